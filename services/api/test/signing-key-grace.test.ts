/**
 * Signing key rotation with a grace window (opt-in), end to end: the api rotates, a real
 * executor calls a real receiver on 127.0.0.1 (test runs), and the receiver verifies the
 * X-Service-Signature header with the old and the new key separately.
 */
import { SIGNING_KEY_GRACE_MAX_MINUTES, decryptSecret, verifySignature } from '@kairos/core';
import { createApiHarness, endpointInput, type ApiClient, type ApiHarness } from '../../../test/api.js';
import { startExecutor, type Executor } from '../../../test/engine.js';
import { startTestServer, type RecordedRequest, type TestServer } from '../../../test/test-server.js';

let harness: ApiHarness;
let executor: Executor;
let receiver: TestServer;

beforeAll(async () => {
  harness = await createApiHarness();
  executor = await startExecutor(harness, { concurrency: 2, egress: { allowPrivateTargets: true, allowCidrs: [] } });
  receiver = await startTestServer((_req, res) => res.writeHead(204).end());
});
afterAll(async () => {
  await executor.close();
  await receiver.close();
  await harness.close();
});

interface Tenant {
  accountId: string;
  api: ApiClient;
  endpointId: string;
}

async function createTenant(): Promise<Tenant> {
  const account = await harness.createAccount();
  const api = harness.client(account.apiKey);
  const jobId = (await api.post('/api/jobs', { name: 'Signed' })).body.id as string;
  const endpoint = await api.post(
    `/api/jobs/${jobId}/endpoints`,
    endpointInput({ url: `${receiver.origin}/hook`, method: 'POST', bodyJson: { ping: true } }),
  );
  expect(endpoint.status).toBe(201);
  return { accountId: account.accountId, api, endpointId: endpoint.body.id as string };
}

async function currentRawKey(accountId: string): Promise<string> {
  const row = await harness.db.prisma.signingKey.findUniqueOrThrow({ where: { accountId } });
  return decryptSecret(row.encryptedKey, harness.masterKey);
}

/** One test run through the executor; the request the receiver got. */
async function deliver(tenant: Tenant): Promise<RecordedRequest> {
  const before = receiver.requests.length;
  const response = await tenant.api.post(`/api/endpoints/${tenant.endpointId}/test`);
  expect(response.status).toBe(200);
  expect(response.body.status).toBe('success');
  expect(receiver.requests).toHaveLength(before + 1);
  return receiver.requests[before]!;
}

/** What the receiver concludes with `rawKey` alone (the reference verification, any listed signature). */
function verifiesWith(request: RecordedRequest, rawKey: string): boolean {
  const timestamp = Number(request.headers['x-service-timestamp']);
  const signature = String(request.headers['x-service-signature']);
  return verifySignature(rawKey, timestamp, request.body, signature, Math.floor(Date.now() / 1000));
}

const setGraceMinutes = (tenant: Tenant, minutes: number) =>
  tenant.api.patch('/api/account/settings', { signingKeyGraceMinutes: minutes });

describe('signing key grace window', () => {
  it('default 0: a rotation sends exactly one signature, the new key, and keeps no previous key', async () => {
    const tenant = await createTenant();
    expect((await tenant.api.get('/api/account')).body.settings.signingKeyGraceMinutes).toBe(0);
    const oldKey = await currentRawKey(tenant.accountId);
    const rotated = await tenant.api.post('/api/signing-keys/rotate');
    expect(rotated.body).toMatchObject({ previousKeyPrefix: null, previousExpiresAt: null });

    const request = await deliver(tenant);
    expect(String(request.headers['x-service-signature'])).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(verifiesWith(request, rotated.body.rawKey)).toBe(true);
    expect(verifiesWith(request, oldKey)).toBe(false);
    const row = await harness.db.prisma.signingKey.findUniqueOrThrow({ where: { accountId: tenant.accountId } });
    expect([row.previousEncryptedKey, row.previousKeyPrefix, row.previousExpiresAt]).toEqual([null, null, null]);
    const revoke = await tenant.api.post('/api/signing-keys/revoke-previous');
    expect(revoke.status).toBe(404);
    expect(revoke.body.error.code).toBe('NOT_FOUND');
  });

  it('signs with both keys during the window (new first), and only the new key once it has passed', async () => {
    const tenant = await createTenant();
    expect((await setGraceMinutes(tenant, 60)).body.settings.signingKeyGraceMinutes).toBe(60);
    const oldKey = await currentRawKey(tenant.accountId);
    const before = Date.now();
    const rotated = await tenant.api.post('/api/signing-keys/rotate');
    expect(rotated.status).toBe(200);
    const newKey = rotated.body.rawKey as string;
    expect(rotated.body.previousKeyPrefix).toBe(oldKey.slice(0, 8));
    const expiresAt = Date.parse(rotated.body.previousExpiresAt as string);
    expect(expiresAt).toBeGreaterThanOrEqual(before + 60 * 60_000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 60 * 60_000);
    expect((await tenant.api.get('/api/signing-keys')).body).toMatchObject({
      keyPrefix: newKey.slice(0, 8),
      previousKeyPrefix: oldKey.slice(0, 8),
      previousExpiresAt: rotated.body.previousExpiresAt,
    });
    // The previous key is stored encrypted like the current one.
    const row = await harness.db.prisma.signingKey.findUniqueOrThrow({ where: { accountId: tenant.accountId } });
    expect(row.previousEncryptedKey).not.toContain(oldKey);
    expect(decryptSecret(row.previousEncryptedKey!, harness.masterKey)).toBe(oldKey);

    const during = await deliver(tenant);
    const entries = String(during.headers['x-service-signature']).split(' ');
    expect(entries).toHaveLength(2);
    expect(verifiesWith({ ...during, headers: { ...during.headers, 'x-service-signature': entries[0] } }, newKey)).toBe(
      true,
    );
    expect(verifiesWith(during, newKey)).toBe(true);
    expect(verifiesWith(during, oldKey)).toBe(true);

    // The window ends (moved into the past rather than waiting an hour): one signature, the new key.
    await harness.db.prisma.signingKey.update({
      where: { accountId: tenant.accountId },
      data: { previousExpiresAt: new Date(Date.now() - 1000) },
    });
    const after = await deliver(tenant);
    expect(String(after.headers['x-service-signature'])).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(verifiesWith(after, newKey)).toBe(true);
    expect(verifiesWith(after, oldKey)).toBe(false);
    expect((await tenant.api.get('/api/signing-keys')).body).toMatchObject({
      previousKeyPrefix: null,
      previousExpiresAt: null,
    });
    expect((await tenant.api.post('/api/signing-keys/revoke-previous')).status).toBe(404);
  });

  it('revoke-previous ends the window at once, audited; a second revoke is 404', async () => {
    const tenant = await createTenant();
    await setGraceMinutes(tenant, SIGNING_KEY_GRACE_MAX_MINUTES);
    const oldKey = await currentRawKey(tenant.accountId);
    const newKey = (await tenant.api.post('/api/signing-keys/rotate')).body.rawKey as string;
    expect(verifiesWith(await deliver(tenant), oldKey)).toBe(true);

    const revoked = await tenant.api.post('/api/signing-keys/revoke-previous');
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({
      hasKey: true,
      keyPrefix: newKey.slice(0, 8),
      previousKeyPrefix: null,
      previousExpiresAt: null,
    });
    const request = await deliver(tenant);
    expect(verifiesWith(request, newKey)).toBe(true);
    expect(verifiesWith(request, oldKey)).toBe(false);
    const row = await harness.db.prisma.signingKey.findUniqueOrThrow({ where: { accountId: tenant.accountId } });
    expect(row.previousEncryptedKey).toBeNull();

    const events = await harness.db.prisma.auditEvent.findMany({
      where: { accountId: tenant.accountId, action: 'signing_key.previous_revoked' },
    });
    expect(events).toHaveLength(1);
    expect(events[0]!.details).toMatchObject({ keyPrefix: newKey.slice(0, 8), revokedKeyPrefix: oldKey.slice(0, 8) });
    const again = await tenant.api.post('/api/signing-keys/revoke-previous');
    expect(again.status).toBe(404);
    expect(again.body.error.code).toBe('NOT_FOUND');
  });

  it('a second rotation inside the window keeps only the key it replaced', async () => {
    const tenant = await createTenant();
    await setGraceMinutes(tenant, 30);
    const first = await currentRawKey(tenant.accountId);
    const second = (await tenant.api.post('/api/signing-keys/rotate')).body.rawKey as string;
    const third = (await tenant.api.post('/api/signing-keys/rotate')).body.rawKey as string;
    const request = await deliver(tenant);
    expect(verifiesWith(request, third)).toBe(true);
    expect(verifiesWith(request, second)).toBe(true);
    expect(verifiesWith(request, first)).toBe(false);
  });

  it('refuses a grace window outside 0..10080 minutes', async () => {
    const tenant = await createTenant();
    for (const minutes of [-1, SIGNING_KEY_GRACE_MAX_MINUTES + 1, 1.5]) {
      const response = await setGraceMinutes(tenant, minutes);
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('VALIDATION_ERROR');
    }
    expect((await tenant.api.get('/api/account')).body.settings.signingKeyGraceMinutes).toBe(0);
  });
});
