/**
 * A device access token (90 days, meant for an MCP client) cannot manage credentials: creating,
 * listing or revoking API keys, listing or revoking other devices, and approving or denying device
 * requests answer 403 FORBIDDEN to it, so a stolen token cannot mint a permanent API key or a new
 * token that outlives its revocation. A browser session and an API key keep every one of these; a
 * device may still disconnect itself.
 */
import { createApiHarness, createRouteResources, type ApiHarness, type TestAccount } from '../../../test/api.js';
import { signInWithLink } from '../../../test/identity.js';

let harness: ApiHarness;
let alice: TestAccount;
let accessToken: string;
let tokenId: string;

beforeAll(async () => {
  harness = await createApiHarness();
  alice = await harness.createAccount();
  const resources = await createRouteResources(harness, alice, {
    jobName: 'scope',
    endpointTimeoutMs: 500,
    deviceClientName: 'MCP client',
  });
  accessToken = resources.accessToken;
  tokenId = resources.ids.tokenId;
});
afterAll(() => harness.close());

/** A second device of the account (its token id) and a pending device request (its user code). */
async function secondDeviceAndPendingCode() {
  const api = harness.client(alice.apiKey);
  const code = (await harness.http.post('/api/auth/device/code').send({ client_name: 'other' })).body;
  await api.post('/api/auth/device/approve', { user_code: code.user_code });
  await harness.http.post('/api/auth/device/token').send({ device_code: code.device_code });
  const other = await harness.db.prisma.accessToken.findFirstOrThrow({
    where: { accountId: alice.accountId, name: 'other' },
  });
  const pending = (await harness.http.post('/api/auth/device/code').send({ client_name: 'pending' })).body;
  return { otherTokenId: other.id, pendingUserCode: pending.user_code as string };
}

describe('a device access token', () => {
  it('gets 403 FORBIDDEN on API key and device management, changing nothing', async () => {
    const { otherTokenId, pendingUserCode } = await secondDeviceAndPendingCode();
    const bearer = harness.bearerClient(accessToken);
    const before = {
      keys: await harness.db.prisma.apiKey.findMany({ orderBy: { id: 'asc' } }),
      tokens: await harness.db.prisma.accessToken.count({ where: { revokedAt: null } }),
    };
    const attempts = [
      await bearer.post('/api/api-keys', { name: 'forever' }),
      await bearer.get('/api/api-keys'),
      await bearer.delete(`/api/api-keys/${alice.apiKeyId}`),
      await bearer.get('/api/devices'),
      await bearer.delete(`/api/devices/${otherTokenId}`),
      await bearer.post('/api/auth/device/approve', { user_code: pendingUserCode }),
      await bearer.post('/api/auth/device/deny', { user_code: pendingUserCode }),
    ];
    for (const response of attempts) {
      expect(response.status).toBe(403);
      expect(response.body.error).toMatchObject({
        code: 'FORBIDDEN',
        message: expect.stringContaining('browser session or an API key'),
      });
    }
    expect(await harness.db.prisma.apiKey.findMany({ orderBy: { id: 'asc' } })).toEqual(before.keys);
    expect(await harness.db.prisma.accessToken.count({ where: { revokedAt: null } })).toBe(before.tokens);
    const pending = await harness.db.prisma.deviceCode.findFirstOrThrow({ where: { clientName: 'pending' } });
    expect(pending.status).toBe('pending');
    // Everything else still works with it.
    expect((await bearer.get('/api/jobs')).status).toBe(200);
  });

  it('still disconnects its own device', async () => {
    const revoked = await harness.bearerClient(accessToken).delete(`/api/devices/${tokenId}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.device.revokedAt).not.toBeNull();
    expect((await harness.bearerClient(accessToken).get('/api/jobs')).status).toBe(401);
  });
});

describe('a browser session and an API key', () => {
  it('manage API keys and devices', async () => {
    const session = await signInWithLink(harness, alice.userId);
    const created = await harness.http
      .post('/api/api-keys')
      .set('cookie', session.cookie)
      .set('x-csrf-token', session.csrfToken)
      .send({ name: 'from the UI' });
    expect(created.status).toBe(201);
    expect((await harness.http.get('/api/devices').set('cookie', session.cookie)).status).toBe(200);

    const api = harness.client(alice.apiKey);
    const key = await api.post('/api/api-keys', { name: 'from a script' });
    expect(key.status).toBe(201);
    expect((await api.delete(`/api/api-keys/${key.body.id}`)).status).toBe(200);
    expect((await api.get('/api/devices')).status).toBe(200);
  });
});
