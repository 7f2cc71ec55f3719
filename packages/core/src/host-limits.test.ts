import { compileHostLimits, hostLimitFor, parseLimitHost } from './host-limits.js';

describe('parseLimitHost', () => {
  it.each([
    ['api.example.com', { hostname: 'api.example.com', port: null }],
    ['api.example.com:8443', { hostname: 'api.example.com', port: 8443 }],
    ['127.0.0.1:3000', { hostname: '127.0.0.1', port: 3000 }],
    ['localhost', { hostname: 'localhost', port: null }],
  ])('takes %s', (host, parsed) => {
    expect(parseLimitHost(host)).toEqual(parsed);
  });

  it.each([
    '',
    'API.example.com',
    'https://api.example.com',
    'api.example.com/v1',
    'user@api.example.com',
    'api.example.com:',
    'api.example.com:0',
    'api.example.com:65536',
    'api.example.com:80a',
    'a b.example.com',
    '[::1]:80',
    'x'.repeat(300),
  ])('refuses %j', (host) => {
    expect(parseLimitHost(host)).toBeNull();
  });
});

describe('hostLimitFor', () => {
  const limits = compileHostLimits([
    { host: 'api.example.com', maxPerSecond: 5 },
    { host: 'api.example.com:8443', maxConcurrent: 1 },
    { host: 'other.example.com:443', maxPerSecond: 1 },
  ])!;

  it('matches the host on any port, and a limit naming the port first', () => {
    expect(hostLimitFor('https://api.example.com/x', limits)?.host).toBe('api.example.com');
    expect(hostLimitFor('http://api.example.com:9000/x', limits)?.host).toBe('api.example.com');
    expect(hostLimitFor('https://api.example.com:8443/x', limits)?.host).toBe('api.example.com:8443');
    expect(hostLimitFor('https://API.Example.com/x', limits)?.host).toBe('api.example.com');
  });

  it("uses the scheme's default port for a URL without one", () => {
    expect(hostLimitFor('https://other.example.com/x', limits)?.host).toBe('other.example.com:443');
    expect(hostLimitFor('http://other.example.com/x', limits)).toBeNull();
  });

  it('matches nothing else', () => {
    expect(hostLimitFor('https://sub.api.example.com/x', limits)).toBeNull();
    expect(hostLimitFor('not a url', limits)).toBeNull();
  });

  it('compiles nothing from no limits', () => {
    expect(compileHostLimits(null)).toBeNull();
    expect(compileHostLimits([])).toBeNull();
    expect(compileHostLimits([{ host: 'a.example.com' }])).toBeNull();
  });
});
