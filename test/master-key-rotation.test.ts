/**
 * Master-key rotation while the services run: values sealed under key "old", services configured
 * with "new" first and "old" beside it, endpoints (signed, with a shared secret) running every
 * second, `rotateMasterKey` re-encrypting in small batches meanwhile: no run fails, every request
 * carries the secret and a signature, and afterwards every value opens with "new" alone.
 */
import { randomBytes } from 'node:crypto';
import { decryptSecret, encryptSecret, masterKeyRing } from '@kairos/core';
import { createSecret } from '@kairos/db';
import { countValuesUnderOldKeys, createAccount, rotateMasterKey } from '@kairos/db/system';
import { createApiHarness, type ApiHarness } from './api.js';
import { startEngine, waitFor, type Engine } from './engine.js';
import { startTestServer, type TestServer } from './test-server.js';

const oldKey = randomBytes(32);
const newKey = randomBytes(32);
const oldOnly = masterKeyRing([{ id: 'old', key: oldKey }]);
const both = masterKeyRing([
  { id: 'new', key: newKey },
  { id: 'old', key: oldKey },
]);
const newOnly = masterKeyRing([{ id: 'new', key: newKey }]);
const VALUE = 'rotation-secret-3e8a';

let harness: ApiHarness;
let engine: Engine;
let target: TestServer;

beforeAll(async () => {
  harness = await createApiHarness({ masterKey: both });
  target = await startTestServer((_req, res) => res.end('ok'));
}, 30_000);
afterAll(async () => {
  await engine?.close();
  await target.close();
  await harness.close();
});

it('re-encrypts signing keys and secrets under the new key with no failed run', async () => {
  const endpointIds: string[] = [];
  for (let index = 0; index < 3; index++) {
    const created = await createAccount(
      harness.db,
      { email: `rotation${index}@example.test`, emailVerified: true, tier: 'enterprise', apiKeyName: 'k' },
      { masterKey: oldOnly },
    );
    await createSecret(harness.db, created.account.id, 'TOKEN', encryptSecret(VALUE, oldOnly));
    for (let extra = 0; extra < 40; extra++) {
      await createSecret(harness.db, created.account.id, `EXTRA_${extra}`, encryptSecret(`v${extra}`, oldOnly));
    }
    const api = harness.client(created.apiKey!.raw);
    const job = (await api.post('/api/jobs', { name: 'Rotation' })).body;
    for (let endpoint = 0; endpoint < 2; endpoint++) {
      const answer = await api.post(`/api/jobs/${job.id}/endpoints`, {
        name: `e${endpoint}`,
        url: `${target.origin}/r/${index}/${endpoint}`,
        method: 'GET',
        headers: { 'X-Token': '{{secrets.TOKEN}}' },
        baselineIntervalMs: 1000,
        timeoutMs: 2000,
      });
      expect(answer.status).toBe(201);
      endpointIds.push(answer.body.id);
    }
  }
  expect(await countValuesUnderOldKeys(harness.db, both)).toBe(3 + 3 * 41);

  engine = await startEngine(harness);
  await waitFor(async () => target.requests.length >= 6, 15_000, 'runs before the rotation');
  const totals = await rotateMasterKey(harness.db, both, { batchSize: 7 });
  expect(totals.reduce((sum, total) => sum + total.reencrypted, 0)).toBe(3 + 3 * 41);
  const afterRotation = target.requests.length;
  await waitFor(async () => target.requests.length >= afterRotation + 6, 15_000, 'runs after the rotation');
  await engine.close();

  expect(await countValuesUnderOldKeys(harness.db, both)).toBe(0);
  const runs = await harness.db.prisma.run.findMany({ where: { endpointId: { in: endpointIds } } });
  expect(runs.length).toBeGreaterThanOrEqual(12);
  expect(runs.filter((run) => run.status !== 'success').map((run) => run.errorMessage)).toEqual([]);
  for (const request of target.requests) {
    expect(request.headers['x-token']).toBe(VALUE);
    expect(request.headers['x-service-signature']).toBeDefined();
  }

  // The old key can go: every stored value opens with the new key alone.
  const signingKeys = await harness.db.prisma.signingKey.findMany();
  const secrets = await harness.db.prisma.secret.findMany();
  for (const value of [...signingKeys.map((key) => key.encryptedKey), ...secrets.map((s) => s.encryptedValue)]) {
    expect(value.startsWith('v2.new.')).toBe(true);
    expect(() => decryptSecret(value, newOnly)).not.toThrow();
  }
}, 90_000);
