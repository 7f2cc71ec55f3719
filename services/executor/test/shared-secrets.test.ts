/**
 * Shared secrets end to end: an endpoint references {{secrets.TOKEN}} in its URL, a header and its
 * body; the real executor sends the value to a real target on 127.0.0.1, an update is sent from the
 * next run, a deleted secret fails the run with secret_missing; the API's answers, the recorded runs
 * (the target echoes the value back) and a pg_dump of the database never hold the value.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createApiHarness, type ApiClient, type ApiHarness, type TestAccount } from '../../../test/api.js';
import { startEngine, type Engine } from '../../../test/engine.js';
import { startTestServer, type TestServer } from '../../../test/test-server.js';

const FIRST = 'first-Secret-Value-7c1e';
const SECOND = 'second-Secret-Value-9d2f';

let harness: ApiHarness;
let engine: Engine;
let target: TestServer;
let owner: TestAccount;
let api: ApiClient;

beforeAll(async () => {
  harness = await createApiHarness();
  engine = await startEngine(harness);
  // Echoes what it received: the recorded response would hold the value were it not masked.
  target = await startTestServer((req, res, body) =>
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ url: req.url, authorization: req.headers.authorization, body })),
  );
  owner = await harness.createAccount({ tier: 'enterprise' });
  api = harness.client(owner.apiKey);
}, 30_000);
afterAll(async () => {
  await engine.close();
  await target.close();
  await harness.close();
});

const leaks = (value: unknown, secret: string) => JSON.stringify(value).includes(secret);

it('sends the value, shows the reference, masks it in runs, follows updates and fails when it is missing', async () => {
  const created = await api.post('/api/secrets', { name: 'TOKEN', value: FIRST });
  expect(created.status).toBe(201);
  expect(created.body).toMatchObject({ name: 'TOKEN', reference: '{{secrets.TOKEN}}' });
  expect(leaks(created.body, FIRST)).toBe(false);

  const job = (await api.post('/api/jobs', { name: 'With secrets' })).body;
  const endpoint = await api.post(`/api/jobs/${job.id}/endpoints`, {
    name: 'Billing',
    url: `${target.origin}/hook?k={{secrets.TOKEN}}`,
    method: 'POST',
    headers: { Authorization: 'Bearer {{secrets.TOKEN}}', 'X-Plain': 'static' },
    body: { token: '{{ secrets.TOKEN }}', other: 'kept' },
    baselineIntervalMs: 3_600_000,
  });
  expect(endpoint.status).toBe(201);
  expect(endpoint.body.headersJson.Authorization).toBe('Bearer {{secrets.TOKEN}}');

  const first = await api.post(`/api/endpoints/${endpoint.body.id}/test`);
  expect(first.status).toBe(200);
  const received = target.requests.at(-1)!;
  expect(received.headers.authorization).toBe(`Bearer ${FIRST}`);
  expect(received.url).toBe(`/hook?k=${FIRST}`);
  expect(JSON.parse(received.body)).toEqual({ token: FIRST, other: 'kept' });
  expect(leaks(first.body, FIRST)).toBe(false);
  expect(JSON.stringify(first.body)).toContain('{{secrets.TOKEN}}');

  // An update is sent from the next run.
  expect((await api.put('/api/secrets/TOKEN', { value: SECOND })).status).toBe(200);
  await api.post(`/api/endpoints/${endpoint.body.id}/test`);
  expect(target.requests.at(-1)!.headers.authorization).toBe(`Bearer ${SECOND}`);

  const listed = await api.get('/api/secrets');
  expect(listed.body.map((secret: { name: string }) => secret.name)).toEqual(['TOKEN']);
  const runs = await api.get(`/api/endpoints/${endpoint.body.id}/runs`);
  const shown = await api.get(`/api/endpoints/${endpoint.body.id}`);
  for (const answer of [listed.body, runs.body, shown.body]) {
    expect(leaks(answer, FIRST) || leaks(answer, SECOND)).toBe(false);
  }

  // Deleted: the run fails, naming the secret, and nothing is sent.
  expect((await api.delete('/api/secrets/TOKEN')).status).toBe(200);
  const before = target.requests.length;
  const missing = await api.post(`/api/endpoints/${endpoint.body.id}/test`);
  expect(missing.body).toMatchObject({ status: 'failed', errorMessage: expect.stringContaining('TOKEN') });
  const failedRun = await api.get(`/api/runs/${missing.body.runId}`);
  expect(failedRun.body).toMatchObject({ status: 'failed', errorKind: 'secret_missing' });
  expect(target.requests.length).toBe(before);

  // Nothing stored holds a value: not the runs, not the secrets table, not the audit log.
  const { stdout } = await promisify(execFile)('pg_dump', ['--data-only', harness.database.url], {
    maxBuffer: 64 * 1024 * 1024,
  });
  expect(stdout).toContain('{{secrets.TOKEN}}');
  expect(stdout.includes(FIRST) || stdout.includes(SECOND)).toBe(false);
}, 60_000);

it('answers 4xx for bad names and values, a duplicate, and an unknown secret', async () => {
  expect((await api.post('/api/secrets', { name: '1bad', value: 'x' })).status).toBe(400);
  expect((await api.post('/api/secrets', { name: 'EMPTY', value: '' })).status).toBe(400);
  expect((await api.post('/api/secrets', { name: 'DUP', value: 'a' })).status).toBe(201);
  const duplicate = await api.post('/api/secrets', { name: 'DUP', value: 'b' });
  expect(duplicate.status).toBe(409);
  expect((await api.put('/api/secrets/NOPE', { value: 'x' })).status).toBe(404);
  expect((await api.delete('/api/secrets/bad-name')).status).toBe(404);
});
