/**
 * Sensitive header values at rest: an endpoint's Authorization and X-Api-Key values are stored
 * sealed under the master key (the row holds the mask and a ciphertext), a real target receives
 * the real values, the API and the recorded runs show the mask, a PATCH sending the mask back keeps
 * the stored value, a row stored plain before keeps working, and `rotateMasterKey` re-seals values
 * under an old key and seals the plain ones.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { ENDPOINT_DEFAULTS, masterKeyRing, sealHeaders } from '@kairos/core';
import { createEndpoint } from '@kairos/db';
import { countValuesUnderOldKeys, rotateMasterKey } from '@kairos/db/system';
import { createApiHarness, type ApiClient, type ApiHarness, type TestAccount } from '../../../test/api.js';
import { startEngine, type Engine } from '../../../test/engine.js';
import { startTestServer, type TestServer } from '../../../test/test-server.js';

const oldKey = randomBytes(32);
const newKey = randomBytes(32);
const oldOnly = masterKeyRing([{ id: 'old', key: oldKey }]);
const both = masterKeyRing([
  { id: 'new', key: newKey },
  { id: 'old', key: oldKey },
]);

const TOKEN = 'sealed-Bearer-Value-5b1d';
const API_KEY = 'sealed-Api-Key-Value-8e4c';
const LEGACY = 'legacy-Plain-Value-2f7a';

let harness: ApiHarness;
let engine: Engine;
let target: TestServer;
let owner: TestAccount;
let api: ApiClient;

beforeAll(async () => {
  harness = await createApiHarness({ masterKey: both });
  engine = await startEngine(harness);
  // Echoes the headers it received: a recorded response would hold the values were they not masked.
  target = await startTestServer((req, res) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ received: req.headers })),
  );
  owner = await harness.createAccount({ tier: 'enterprise' });
  api = harness.client(owner.apiKey);
}, 30_000);
afterAll(async () => {
  await engine.close();
  await target.close();
  await harness.close();
});

const row = async (id: string) =>
  (
    await harness.db.pool.query<{ headers: string; sealedHeaders: string | null }>(
      `SELECT headers::text AS headers, "sealedHeaders" FROM endpoints WHERE id = $1`,
      [id],
    )
  ).rows[0]!;
const leaks = (value: unknown) => [TOKEN, API_KEY, LEGACY].some((secret) => JSON.stringify(value).includes(secret));

it('stores sensitive header values sealed, sends them, shows the mask and keeps them on a PATCH', async () => {
  const job = (await api.post('/api/jobs', { name: 'Sealed' })).body;
  const created = await api.post(`/api/jobs/${job.id}/endpoints`, {
    name: 'Billing',
    url: `${target.origin}/hook`,
    method: 'GET',
    headers: { Authorization: `Bearer ${TOKEN}`, 'X-Api-Key': API_KEY, 'X-Plain': 'static' },
    baselineIntervalMs: 3_600_000,
  });
  expect(created.status).toBe(201);
  expect(created.body.headersJson).toEqual({ Authorization: '********', 'X-Api-Key': '********', 'X-Plain': 'static' });

  const stored = await row(created.body.id);
  expect(JSON.parse(stored.headers)).toEqual({
    Authorization: '********',
    'X-Api-Key': '********',
    'X-Plain': 'static',
  });
  expect(stored.sealedHeaders).toMatch(/^v2\.new\./);
  expect(leaks(stored)).toBe(false);

  const tested = await api.post(`/api/endpoints/${created.body.id}/test`);
  expect(tested.body).toMatchObject({ status: 'success' });
  const received = target.requests.at(-1)!;
  expect(received.headers.authorization).toBe(`Bearer ${TOKEN}`);
  expect(received.headers['x-api-key']).toBe(API_KEY);
  expect(received.headers['x-plain']).toBe('static');
  // The target echoed the values: the answer and the recorded run show the mask.
  expect(leaks(tested.body)).toBe(false);
  const run = await api.get(`/api/runs/${tested.body.runId}`);
  expect(run.status).toBe(200);
  expect(leaks(run.body)).toBe(false);
  expect(JSON.stringify(run.body)).toContain('********');

  // The mask sent back keeps the stored value; a changed plain header is stored.
  const patched = await api.patch(`/api/jobs/${job.id}/endpoints/${created.body.id}`, {
    headers: { Authorization: '********', 'X-Api-Key': '********', 'X-Plain': 'changed' },
  });
  expect(patched.status).toBe(200);
  await api.post(`/api/endpoints/${created.body.id}/test`);
  const again = target.requests.at(-1)!;
  expect(again.headers.authorization).toBe(`Bearer ${TOKEN}`);
  expect(again.headers['x-api-key']).toBe(API_KEY);
  expect(again.headers['x-plain']).toBe('changed');
  expect(leaks(await row(created.body.id))).toBe(false);

  // The export masks them as well, and applying it changes nothing.
  const exported = await api.get('/api/config/export');
  expect(exported.status).toBe(200);
  expect(leaks(exported.body)).toBe(false);
}, 60_000);

it('reads rows stored plain before, and rotation re-seals old values and seals the plain ones', async () => {
  const job = (await api.post('/api/jobs', { name: 'Legacy' })).body;
  // Stored as before sealing existed: no master key, the value plain in headers.
  const legacy = await createEndpoint(harness.db, owner.accountId, job.id, {
    ...ENDPOINT_DEFAULTS,
    name: 'Legacy',
    url: `${target.origin}/legacy`,
    method: 'GET',
    baselineIntervalMs: 3_600_000,
    headers: { 'X-Session-Token': LEGACY },
  });
  expect((await row(legacy.id)).sealedHeaders).toBeNull();
  expect(JSON.stringify(await row(legacy.id))).toContain(LEGACY);
  const shown = await api.get(`/api/jobs/${job.id}/endpoints/${legacy.id}`);
  expect(shown.body.headersJson).toEqual({ 'X-Session-Token': '********' });
  await api.post(`/api/endpoints/${legacy.id}/test`);
  expect(target.requests.at(-1)!.headers['x-session-token']).toBe(LEGACY);

  // Another endpoint's values sealed under the old key (as before a key was added).
  const sealedOld = (
    await api.post(`/api/jobs/${job.id}/endpoints`, {
      name: 'Old key',
      url: `${target.origin}/old`,
      method: 'GET',
      headers: { Authorization: TOKEN },
      baselineIntervalMs: 3_600_000,
    })
  ).body;
  const underOld = sealHeaders({ Authorization: TOKEN }, oldOnly);
  await harness.db.pool.query(`UPDATE endpoints SET "sealedHeaders" = $1 WHERE id = $2`, [
    underOld.sealedHeaders,
    sealedOld.id,
  ]);
  expect(await countValuesUnderOldKeys(harness.db, both)).toBeGreaterThanOrEqual(1);

  const totals = await rotateMasterKey(harness.db, both, { batchSize: 1 });
  expect(totals).toEqual(
    expect.arrayContaining([
      { table: 'endpoints', column: 'sealedHeaders', reencrypted: 1 },
      { table: 'endpoints', column: 'headers', reencrypted: 1 },
    ]),
  );
  expect(await countValuesUnderOldKeys(harness.db, both)).toBe(0);
  for (const id of [legacy.id, sealedOld.id]) {
    const stored = await row(id);
    expect(stored.sealedHeaders).toMatch(/^v2\.new\./);
    expect(leaks(stored)).toBe(false);
  }
  await api.post(`/api/endpoints/${legacy.id}/test`);
  expect(target.requests.at(-1)!.headers['x-session-token']).toBe(LEGACY);
  await api.post(`/api/endpoints/${sealedOld.id}/test`);
  expect(target.requests.at(-1)!.headers.authorization).toBe(TOKEN);

  // Nothing stored holds a value in plain text.
  const { stdout } = await promisify(execFile)('pg_dump', ['--data-only', harness.database.url], {
    maxBuffer: 64 * 1024 * 1024,
  });
  expect(stdout).toContain('X-Session-Token');
  expect([TOKEN, API_KEY, LEGACY].some((secret) => stdout.includes(secret))).toBe(false);
}, 60_000);
