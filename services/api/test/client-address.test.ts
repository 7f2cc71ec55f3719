/**
 * The client address behind a proxy (KAIROS_TRUST_PROXY) and the device flow's global cap.
 *
 * Trusting every proxy hop made req.ip the left-most X-Forwarded-For entry, which the client writes:
 * rotating it gave a fresh anonymous rate-limit bucket per request (35 requests all answered 200).
 * Now a hop count or the proxies' address ranges decide, and `true` means one hop: the address the
 * one proxy appended is the client's, whatever the client put before it.
 */
import { createApiHarness, type ApiHarness } from '../../../test/api.js';
import { loadApiConfig } from '../src/config.js';

/** The address the proxy (this test) appends after whatever the client sent. */
const CLIENT = '203.0.113.7';

async function rotatingForwardedFor(harness: ApiHarness, count: number) {
  const statuses: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const response = await harness.http
      .get('/api/auth/providers')
      .set('x-forwarded-for', `198.51.100.${i % 250}, ${CLIENT}`);
    statuses.push(response.status);
  }
  return statuses;
}

describe.each([
  ['true (one hop)', 'true'],
  ['a hop count', '1'],
  ['a named range', 'loopback'],
  ['an address range', '127.0.0.0/8, ::1/128'],
])('KAIROS_TRUST_PROXY as %s', (_label, value) => {
  let harness: ApiHarness;
  beforeAll(async () => {
    harness = await createApiHarness({ limits: 'tier', env: { KAIROS_TRUST_PROXY: value } });
  });
  afterAll(() => harness.close());

  it('keys the anonymous rate limit on the address the proxy appended: a rotating X-Forwarded-For gets 429', async () => {
    const statuses = await rotatingForwardedFor(harness, 35);
    // The anonymous burst is 30 (2 tokens come back per second): the last requests are refused.
    expect(statuses.filter((status) => status === 200).length).toBeLessThanOrEqual(33);
    expect(statuses.at(-1)).toBe(429);
    // Another client behind the same proxy has its own bucket.
    const other = await harness.http.get('/api/auth/providers').set('x-forwarded-for', '203.0.113.8');
    expect(other.status).toBe(200);
  });
});

describe('KAIROS_TRUST_PROXY values', () => {
  const load = (value: string) => loadApiConfig({ KAIROS_TRUST_PROXY: value } as NodeJS.ProcessEnv).KAIROS_TRUST_PROXY;

  it("takes express's forms: none, a hop count, addresses, ranges and range names", () => {
    expect(loadApiConfig({} as NodeJS.ProcessEnv).KAIROS_TRUST_PROXY).toBe(false);
    expect(load('false')).toBe(false);
    expect(load('0')).toBe(false);
    expect(load('true')).toBe(1);
    expect(load('2')).toBe(2);
    expect(load('loopback, uniquelocal')).toEqual(['loopback', 'uniquelocal']);
    expect(load('10.0.0.0/8,fd00::/8, 192.168.1.10')).toEqual(['10.0.0.0/8', 'fd00::/8', '192.168.1.10']);
  });

  it.each(['yes', '-1', '1.5', '10.0.0.0/33', 'loopback,not-an-address', '300.1.1.1'])(
    'refuses %j with a message naming the setting',
    (value) => {
      expect(() => load(value)).toThrow(/KAIROS_TRUST_PROXY/);
    },
  );
});

describe('pending device codes', () => {
  let clockMs = Date.parse('2026-11-21T12:00:00Z');
  let harness: ApiHarness;
  beforeAll(async () => {
    harness = await createApiHarness({
      now: () => new Date(clockMs),
      env: { KAIROS_DEVICE_CODES_MAX_PENDING: '3' },
    });
  });
  afterAll(() => harness.close());

  const requestCode = () => harness.http.post('/api/auth/device/code').send({ client_name: 'capped' });

  it('are capped across all clients: past KAIROS_DEVICE_CODES_MAX_PENDING, 429 until one expires', async () => {
    for (let i = 0; i < 3; i += 1) {
      const issued = await requestCode().set('x-forwarded-for', `198.51.100.${i}`);
      expect(issued.status).toBe(200);
      clockMs += 60_000;
    }
    const refused = await requestCode().set('x-forwarded-for', '198.51.100.99');
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({ code: 'RATE_LIMITED', details: { maxPendingDeviceCodes: 3 } });
    // The first code was issued 3 minutes ago and lives 10: a slot frees in 7 minutes.
    expect(Number(refused.headers['retry-after'])).toBe(420);
    expect(await harness.db.prisma.deviceCode.count()).toBe(3);

    clockMs += 420_000;
    expect((await requestCode()).status).toBe(200);
  });
});
