/**
 * Every answer of the api carries anti-framing and content-type headers (helmet): the server-rendered
 * pages (/device, sign-in errors), the JSON API, the docs, the probes and the errors alike, so no page
 * of Kairos can be framed by another site (clickjacking the device approval) or sniffed into another
 * type. HSTS only when KAIROS_PUBLIC_URL is https (over plain http it would be ignored at best and
 * strand a local install at worst). The reference page's inline script runs under a per-response nonce.
 */
import { createApiHarness, type ApiHarness } from '../../../test/api.js';

const PATHS = ['/device', '/api/jobs', '/api/doc', '/api/reference', '/healthz', '/api/no-such-route'];

function expectAntiFramingHeaders(headers: Record<string, string>, path: string): void {
  const csp = headers['content-security-policy'] ?? '';
  expect({ path, frameAncestors: csp.split(';').find((part) => part.trim().startsWith('frame-ancestors')) }).toEqual({
    path,
    frameAncestors: expect.stringMatching(/^\s*frame-ancestors 'none'$/),
  });
  expect({ path, xfo: headers['x-frame-options'], nosniff: headers['x-content-type-options'] }).toEqual({
    path,
    xfo: 'DENY',
    nosniff: 'nosniff',
  });
  expect(csp).toContain("object-src 'none'");
  expect(csp).toContain("base-uri 'self'");
}

describe('without KAIROS_PUBLIC_URL (plain http)', () => {
  let harness: ApiHarness;
  beforeAll(async () => {
    harness = await createApiHarness();
  });
  afterAll(() => harness.close());

  it.each(PATHS)('%s: frame-ancestors none, X-Frame-Options DENY, nosniff; no HSTS', async (path) => {
    const response = await harness.http.get(path).set('accept', 'text/html');
    expect(response.status).toBeLessThan(500);
    expectAntiFramingHeaders(response.headers as Record<string, string>, path);
    expect(response.headers['strict-transport-security']).toBeUndefined();
  });

  it('lets the reference page run its one inline script by nonce, and no other', async () => {
    const first = await harness.http.get('/api/reference');
    const second = await harness.http.get('/api/reference');
    const nonceOf = (csp: string) => /script-src[^;]*'nonce-([^']+)'/.exec(csp)?.[1];
    const nonce = nonceOf(first.headers['content-security-policy']!);
    expect(nonce).toMatch(/^[A-Za-z0-9+/=_-]{16,}$/);
    expect(nonceOf(second.headers['content-security-policy']!)).not.toBe(nonce);
    expect(first.text).toContain(`nonce="${nonce}"`);
    expect(first.headers['content-security-policy']).not.toContain("'unsafe-inline' 'nonce");
    // Every other page allows no inline script at all.
    const device = await harness.http.get('/device');
    expect(device.headers['content-security-policy']).toMatch(/script-src 'self'(;|$)/);
  });
});

describe('with an https KAIROS_PUBLIC_URL', () => {
  let harness: ApiHarness;
  beforeAll(async () => {
    harness = await createApiHarness({ env: { KAIROS_PUBLIC_URL: 'https://kairos.example.test' } });
  });
  afterAll(() => harness.close());

  it.each(PATHS)('%s also carries Strict-Transport-Security', async (path) => {
    const response = await harness.http.get(path).set('accept', 'text/html');
    expectAntiFramingHeaders(response.headers as Record<string, string>, path);
    expect(response.headers['strict-transport-security']).toBe('max-age=31536000');
  });
});
