import { createApiHarness, type ApiClient, type ApiHarness, type TestAccount } from '../../../test/api.js';
import { signInWithLink } from '../../../test/identity.js';

const GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
let clockMs = Date.parse('2026-11-21T12:00:00Z');
const advance = (seconds: number) => {
  clockMs += seconds * 1000;
};

let harness: ApiHarness;
let alice: TestAccount;
let api: ApiClient;

beforeAll(async () => {
  harness = await createApiHarness({ now: () => new Date(clockMs) });
  alice = await harness.createAccount();
  api = harness.client(alice.apiKey);
});
afterAll(() => harness.close());

async function requestCode(body: Record<string, string> = { client_name: 'Kairos MCP' }) {
  const response = await harness.http.post('/api/auth/device/code').send(body);
  expect(response.status).toBe(200);
  return response.body as { device_code: string; user_code: string; interval: number; expires_in: number };
}

const poll = (deviceCode: string) =>
  harness.http.post('/api/auth/device/token').send({ device_code: deviceCode, grant_type: GRANT });

describe('device flow (RFC 8628)', () => {
  it('issues an access token once the user approves, exactly once', async () => {
    const code = await requestCode();
    expect(code).toMatchObject({ expires_in: 600, interval: 5 });
    expect(code.user_code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    expect(code.device_code.length).toBeGreaterThanOrEqual(43);
    const response = await harness.http.post('/api/auth/device/code');
    expect(response.body.verification_uri).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/device$/);
    expect(response.body.verification_uri_complete).toBe(
      `${response.body.verification_uri}?user_code=${response.body.user_code}`,
    );

    const pending = await poll(code.device_code);
    expect(pending.status).toBe(400);
    expect(pending.body).toEqual({
      error: 'authorization_pending',
      error_description: expect.any(String),
    });
    expect(pending.headers['cache-control']).toBe('no-store');

    const approved = await api.post('/api/auth/device/approve', { user_code: code.user_code.toLowerCase() });
    expect(approved.body).toEqual({
      success: true,
      status: 'approved',
      clientName: 'Kairos MCP',
      userCode: code.user_code,
    });

    advance(5);
    const issued = await poll(code.device_code);
    expect(issued.status).toBe(200);
    expect(issued.body).toEqual({
      access_token: expect.stringMatching(/^kat_/),
      token_type: 'Bearer',
      expires_in: 7776000,
    });
    const stored = await harness.db.prisma.accessToken.findFirstOrThrow({ where: { accountId: alice.accountId } });
    expect(stored.tokenHash).not.toBe(issued.body.access_token);
    expect(stored).toMatchObject({ userId: alice.userId, name: 'Kairos MCP' });

    const bearer = harness.bearerClient(issued.body.access_token);
    expect((await bearer.post('/api/jobs', { name: 'via MCP' })).status).toBe(201);
    expect((await bearer.get('/api/auth/session')).body.authenticatedBy).toBe('access_token');

    advance(5);
    expect((await poll(code.device_code)).body.error).toBe('invalid_grant');
    const hash = await harness.db.prisma.deviceCode.findUniqueOrThrow({
      where: { userCode: code.user_code.replace('-', '') },
    });
    expect(hash.deviceCodeHash).not.toBe(code.device_code);
    expect(hash.status).toBe('consumed');
  });

  it('answers slow_down to polls faster than the interval and grows the interval by 5 s', async () => {
    const code = await requestCode();
    expect((await poll(code.device_code)).body.error).toBe('authorization_pending');
    advance(1);
    const fast = await poll(code.device_code);
    expect(fast.status).toBe(400);
    expect(fast.body).toMatchObject({ error: 'slow_down', interval: 10 });
    advance(10);
    expect((await poll(code.device_code)).body.error).toBe('authorization_pending');
    advance(6); // under the new 10 s interval: slower again
    expect((await poll(code.device_code)).body).toMatchObject({ error: 'slow_down', interval: 15 });
  });

  it('answers access_denied after the user denies', async () => {
    const code = await requestCode();
    expect((await api.post('/api/auth/device/deny', { user_code: code.user_code })).body.status).toBe('denied');
    expect((await poll(code.device_code)).body.error).toBe('access_denied');
    // Decided already: neither approve nor deny finds it any more.
    expect((await api.post('/api/auth/device/approve', { user_code: code.user_code })).status).toBe(404);
  });

  it('answers expired_token after expires_in, and refuses to approve an expired code', async () => {
    const code = await requestCode();
    advance(601);
    expect((await poll(code.device_code)).body.error).toBe('expired_token');
    const late = await api.post('/api/auth/device/approve', { user_code: code.user_code });
    expect(late.status).toBe(404);
    expect(late.body.error.details.field).toBe('user_code');
  });

  it('accepts form-encoded requests and answers OAuth errors for bad ones', async () => {
    const code = await harness.http.post('/api/auth/device/code').type('form').send({ client_id: 'cli-tool' });
    expect(code.status).toBe(200);
    const pending = await harness.http
      .post('/api/auth/device/token')
      .type('form')
      .send({ grant_type: GRANT, device_code: code.body.device_code });
    expect(pending.body.error).toBe('authorization_pending');

    const wrongGrant = await harness.http.post('/api/auth/device/token').type('form').send({ grant_type: 'password' });
    expect(wrongGrant.body.error).toBe('unsupported_grant_type');
    const missing = await harness.http.post('/api/auth/device/token');
    expect(missing.status).toBe(400);
    expect(missing.body.error).toBe('invalid_request');
    const unknown = await harness.http.post('/api/auth/device/token').send({ device_code: 'nope' });
    expect(unknown.body.error).toBe('invalid_grant');
    expect(await harness.db.prisma.deviceCode.findFirst({ where: { clientName: 'cli-tool' } })).not.toBeNull();
  });

  it('documents the token endpoint errors in /api/doc', async () => {
    const document = (await harness.http.get('/api/doc')).body;
    const operation = document.paths['/api/auth/device/token'].post;
    expect(Object.keys(operation.requestBody.content)).toEqual([
      'application/json',
      'application/x-www-form-urlencoded',
    ]);
    const schema = document.components.schemas.OAuthError;
    expect(schema.properties.error.enum).toEqual(
      expect.arrayContaining(['authorization_pending', 'slow_down', 'access_denied', 'expired_token']),
    );
    expect(operation.responses['400'].content['application/json'].schema.$ref).toBe('#/components/schemas/OAuthError');
  });
});

describe('verification page', () => {
  it('asks to sign in when signed out, and approves through the form with the CSRF token', async () => {
    const code = await requestCode({ client_name: 'Laptop <script>' });
    const signedOut = await harness.http.get(`/device?user_code=${code.user_code}`);
    expect(signedOut.status).toBe(200);
    expect(signedOut.text).toContain('one-time link');

    const session = await signInWithLink(harness, alice.userId, new Date(clockMs));
    const page = await harness.http.get(`/device?user_code=${code.user_code}`).set('cookie', session.cookie);
    expect(page.text).toContain(`value="${code.user_code}"`);
    expect(page.text).toContain('Laptop &lt;script&gt;');
    expect(page.text).not.toContain('<script>');
    expect(page.text).toContain(`name="_csrf" value="${session.csrfToken}"`);

    const forged = await harness.http
      .post('/device')
      .set('cookie', session.cookie)
      .type('form')
      .send({ user_code: code.user_code, decision: 'approve' });
    expect(forged.status).toBe(403);
    expect((await poll(code.device_code)).body.error).toBe('authorization_pending');

    const approved = await harness.http
      .post('/device')
      .set('cookie', session.cookie)
      .type('form')
      .send({ user_code: code.user_code, decision: 'approve', _csrf: session.csrfToken });
    expect(approved.status).toBe(200);
    expect(approved.text).toContain('approved');
    advance(5);
    expect((await poll(code.device_code)).status).toBe(200);

    const wrong = await harness.http
      .post('/device')
      .set('cookie', session.cookie)
      .type('form')
      .send({ user_code: 'BBBB-BBBB', decision: 'approve', _csrf: session.csrfToken });
    expect(wrong.status).toBe(404);
    expect(wrong.text).toContain('no pending device request');
  });
});

describe('connected devices', () => {
  async function connect(client: ApiClient, name: string): Promise<string> {
    const code = await requestCode({ client_name: name });
    await client.post('/api/auth/device/approve', { user_code: code.user_code });
    advance(5);
    return (await poll(code.device_code)).body.access_token;
  }

  it('lists live tokens and revokes one with immediate effect', async () => {
    const token = await connect(api, 'Desktop MCP');
    const bearer = harness.bearerClient(token);
    expect((await bearer.get('/api/jobs')).status).toBe(200); // cached now

    const listed = (await api.get('/api/devices')).body;
    const device = listed.find((entry: { name: string }) => entry.name === 'Desktop MCP');
    expect(device).toMatchObject({ prefix: token.slice(0, 10), revokedAt: null });
    expect(JSON.stringify(listed)).not.toContain(token);

    const bob = harness.client((await harness.createAccount()).apiKey);
    expect((await bob.delete(`/api/devices/${device.id}`)).status).toBe(404);
    expect((await bob.get('/api/devices')).body).toEqual([]);

    const revoked = await api.delete(`/api/devices/${device.id}`);
    expect(revoked.body.device.revokedAt).not.toBeNull();
    expect((await bearer.get('/api/jobs')).status).toBe(401);
    expect((await api.get('/api/devices')).body.map((entry: { id: string }) => entry.id)).not.toContain(device.id);
  });

  it('stops accepting a token after it expires', async () => {
    const token = await connect(api, 'Short-lived');
    const bearer = harness.bearerClient(token);
    expect((await bearer.get('/api/jobs')).status).toBe(200);
    advance(90 * 24 * 60 * 60 + 1);
    expect((await bearer.get('/api/jobs')).status).toBe(401);
  });

  it('rejects malformed and unknown bearer tokens with 401', async () => {
    const unknown = await harness.http.get('/api/jobs').set('authorization', 'Bearer kat_unknown');
    expect(unknown.status).toBe(401);
    const empty = await harness.http.get('/api/jobs').set('authorization', 'Bearer ');
    expect(empty.status).toBe(401);
    const otherScheme = await harness.http.get('/api/jobs').set('authorization', 'Basic dXNlcjpwYXNz');
    expect(otherScheme.status).toBe(401);
    expect(otherScheme.body.error.message).toBe('authentication required');
  });

  it('records approvals, issued tokens and revocations in the audit log', async () => {
    const actions = (await api.get('/api/audit-events?limit=200')).body.map(
      (event: { action: string }) => event.action,
    );
    expect(actions).toEqual(
      expect.arrayContaining(['device.approved', 'device.denied', 'device.token_issued', 'device.revoked']),
    );
  });
});
