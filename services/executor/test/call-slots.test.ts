/**
 * EXECUTOR_CONCURRENCY bounds the calls in flight (services/executor/src/call-slots.ts), the part of
 * an execution that holds a response in memory, while the due workers take twice as many jobs so
 * that admission and the wait for the run's time overlap the calls. Six endpoints fall due together
 * against a target that answers after 300 ms: an executor with 2 call slots takes 4 due jobs, and
 * must still never have more than 2 calls open at the target, and record every run.
 */
import { startTestServer, type TestServer } from '../../../test/test-server.js';
import { createApiHarness, type ApiClient, type ApiHarness } from '../../../test/api.js';
import { startEngine, waitFor, type Engine } from '../../../test/engine.js';

let harness: ApiHarness;
let engine: Engine;
let target: TestServer;
let api: ApiClient;
let open = 0;
let mostOpen = 0;

beforeAll(async () => {
  harness = await createApiHarness();
  engine = await startEngine(harness, { executorConcurrency: 2 });
  target = await startTestServer((_req, res) => {
    open += 1;
    mostOpen = Math.max(mostOpen, open);
    setTimeout(() => {
      open -= 1;
      res.end('{"ok":true}');
    }, 300);
  });
  api = harness.client((await harness.createAccount({ tier: 'enterprise' })).apiKey);
});
afterAll(async () => {
  await engine.close();
  await target.close();
  await harness.close();
});

it('never has more calls open than EXECUTOR_CONCURRENCY, and records every run', async () => {
  const jobId = (await api.post('/api/jobs', { name: 'slots' })).body.id as string;
  const endpoints: string[] = [];
  for (let index = 0; index < 6; index += 1) {
    const created = await api.post(`/api/jobs/${jobId}/endpoints`, {
      name: `slot ${index}`,
      url: `${target.origin}/slot/${index}`,
      method: 'GET',
      baselineIntervalMs: 3_600_000,
    });
    endpoints.push(created.body.id as string);
  }
  const recorded = () => harness.db.prisma.run.count({ where: { endpointId: { in: endpoints } } });
  await waitFor(async () => (await recorded()) >= 6, 20_000, 'a run of each endpoint recorded');
  expect(mostOpen).toBe(2);
  expect(target.requests.length).toBe(6);
});
