import { createApiKey, revokeApiKey } from '@kairos/db';
import { revokeApiKeyAsOperator } from '@kairos/db/system';
import { createApiHarness, type ApiClient, type ApiHarness, type TestAccount } from '../../../test/api.js';
import { signInWithLink } from '../../../test/identity.js';

let harness: ApiHarness;
let alice: TestAccount;
let api: ApiClient;

beforeAll(async () => {
  harness = await createApiHarness();
  alice = await harness.createAccount();
  api = harness.client(alice.apiKey);
});
afterAll(() => harness.close());

describe('API keys', () => {
  it('creates a key shown once, lists it without the secret, and the key works', async () => {
    const created = await api.post('/api/api-keys', { name: '  CI deploys ' });
    expect(created.status).toBe(201);
    expect(created.headers['cache-control']).toBe('no-store');
    expect(created.body).toMatchObject({ name: 'CI deploys', lastUsedAt: null, revokedAt: null });
    expect(created.body.apiKey).toMatch(/^kairos_[A-Za-z0-9_-]{43}$/);
    expect(created.body.apiKey.startsWith(created.body.prefix)).toBe(true);

    const stored = await harness.db.prisma.apiKey.findUniqueOrThrow({ where: { id: created.body.id } });
    expect(stored.keyHash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(stored)).not.toContain(created.body.apiKey);
    expect(stored.userId).toBe(alice.userId);

    const listed = await api.get('/api/api-keys');
    expect(listed.headers['x-total-count']).toBe('2');
    expect(listed.body.map((key: { name: string }) => key.name)).toEqual(['CI deploys', 'test']);
    expect(JSON.stringify(listed.body)).not.toContain(created.body.apiKey);

    const withNewKey = harness.client(created.body.apiKey);
    expect((await withNewKey.post('/api/jobs', { name: 'by the new key' })).status).toBe(201);
    const used = (await api.get('/api/api-keys')).body.find((key: { id: string }) => key.id === created.body.id);
    expect(used.lastUsedAt).not.toBeNull();
  });

  it('revokes a key with immediate effect (even with the key cached), idempotently', async () => {
    const created = (await api.post('/api/api-keys', { name: 'temporary' })).body;
    const temporary = harness.client(created.apiKey);
    expect((await temporary.get('/api/jobs')).status).toBe(200); // now cached in this process

    const revoked = await api.delete(`/api/api-keys/${created.id}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ success: true, apiKey: { id: created.id } });
    expect(revoked.body.apiKey.revokedAt).not.toBeNull();

    const refused = await temporary.get('/api/jobs');
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('UNAUTHORIZED');
    expect((await api.delete(`/api/api-keys/${created.id}`)).body.apiKey.revokedAt).toBe(revoked.body.apiKey.revokedAt);
    const listed = (await api.get('/api/api-keys')).body.find((key: { id: string }) => key.id === created.id);
    expect(listed.revokedAt).toBe(revoked.body.apiKey.revokedAt);
  });

  it("cannot see or revoke another account's keys", async () => {
    const bob = await harness.createAccount();
    const bobApi = harness.client(bob.apiKey);
    expect((await bobApi.get('/api/api-keys')).body.map((key: { id: string }) => key.id)).toEqual([bob.apiKeyId]);
    const attempt = await bobApi.delete(`/api/api-keys/${alice.apiKeyId}`);
    expect(attempt.status).toBe(404);
    expect((await api.get('/api/jobs')).status).toBe(200);
  });

  it('revokes in the database tenant-scoped by default, across accounts only as the operator', async () => {
    const bob = await harness.createAccount();
    const { record } = await createApiKey(harness.db, alice.accountId, 'db-level');
    expect(await revokeApiKey(harness.db, bob.accountId, record.id)).toBeNull();
    expect((await revokeApiKey(harness.db, alice.accountId, record.id))?.revokedAt).toBeInstanceOf(Date);
    const other = await createApiKey(harness.db, bob.accountId, 'operator-revoked');
    expect((await revokeApiKeyAsOperator(harness.db, other.record.id))?.revokedAt).toBeInstanceOf(Date);
    expect(await revokeApiKeyAsOperator(harness.db, '00000000-0000-7000-8000-000000000000')).toBeNull();
  });

  it('works for the signed-in user through the session cookie (with the CSRF token)', async () => {
    const session = await signInWithLink(harness, alice.userId);
    const created = await harness.http
      .post('/api/api-keys')
      .set('cookie', session.cookie)
      .set('x-csrf-token', session.csrfToken)
      .send({ name: 'from settings' });
    expect(created.status).toBe(201);
    const noToken = await harness.http.post('/api/api-keys').set('cookie', session.cookie).send({ name: 'x' });
    expect(noToken.status).toBe(403);
    const events = await harness.db.prisma.auditEvent.findMany({
      where: { accountId: alice.accountId, action: { startsWith: 'api_key.' } },
      orderBy: { createdAt: 'asc' },
    });
    expect(events.map((event) => [event.action, event.actorType])).toEqual([
      ['api_key.created', 'api_key'],
      ['api_key.created', 'api_key'],
      ['api_key.revoked', 'api_key'],
      ['api_key.created', 'user'],
    ]);
  });

  it('validates the name', async () => {
    const response = await api.post('/api/api-keys', { name: '' });
    expect(response.status).toBe(400);
    expect(response.body.error.details.field).toBe('name');
  });
});
