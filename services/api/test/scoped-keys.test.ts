/**
 * API keys with a scope (read: acts as a viewer; write: as its creator) and an expiry.
 */
import { createApiHarness, type ApiHarness, type TestAccount } from '../../../test/api.js';

let harness: ApiHarness;
let owner: TestAccount;

beforeAll(async () => {
  harness = await createApiHarness();
  owner = await harness.createAccount();
});
afterAll(() => harness.close());

it('creates a read key that reads and is refused every write, changing nothing', async () => {
  const api = harness.client(owner.apiKey);
  const created = await api.post('/api/api-keys', { name: 'agent', scope: 'read' });
  expect(created.status).toBe(201);
  expect(created.body).toMatchObject({ scope: 'read', expiresAt: null });
  const readOnly = harness.client(created.body.apiKey);
  expect((await readOnly.get('/api/jobs')).status).toBe(200);
  const refused = await readOnly.post('/api/jobs', { name: 'nope' });
  expect(refused.status).toBe(403);
  expect(refused.body.error).toMatchObject({ code: 'FORBIDDEN', details: { scope: 'read', requiredRole: 'editor' } });
  expect(await harness.db.prisma.job.count({ where: { accountId: owner.accountId } })).toBe(0);
  const session = await readOnly.get('/api/auth/session');
  expect(session.body).toMatchObject({ memberRole: 'viewer', scope: 'read' });
});

it('defaults to write, lists the scope, and refuses an expiry in the past', async () => {
  const api = harness.client(owner.apiKey);
  const created = await api.post('/api/api-keys', { name: 'ci' });
  expect(created.body.scope).toBe('write');
  expect((await harness.client(created.body.apiKey).post('/api/jobs', { name: 'ok' })).status).toBe(201);
  const listed = await api.get('/api/api-keys');
  expect(listed.body.find((key: { id: string }) => key.id === created.body.id).scope).toBe('write');
  const past = await api.post('/api/api-keys', { name: 'late', expiresAt: new Date(Date.now() - 1000).toISOString() });
  expect(past.status).toBe(400);
  expect(past.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'expiresAt' } });
  const bad = await api.post('/api/api-keys', { name: 'x', scope: 'admin' });
  expect(bad.status).toBe(400);
});

it('stops a key at its expiresAt', async () => {
  const api = harness.client(owner.apiKey);
  const expiresAt = new Date(Date.now() + 1500);
  const created = await api.post('/api/api-keys', { name: 'short', expiresAt: expiresAt.toISOString() });
  expect(created.body.expiresAt).toBe(expiresAt.toISOString());
  const shortLived = harness.client(created.body.apiKey);
  expect((await shortLived.get('/api/jobs')).status).toBe(200);
  await new Promise((resolve) => setTimeout(resolve, expiresAt.getTime() - Date.now() + 100));
  const after = await shortLived.get('/api/jobs');
  expect(after.status).toBe(401);
});
