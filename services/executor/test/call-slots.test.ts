/**
 * EXECUTOR_CONCURRENCY bounds the calls in flight (services/executor/src/call-slots.ts), the part of
 * an execution that holds a response in memory, while the due workers take twice as many jobs so
 * that admission and the wait for the run's time overlap the calls. Six endpoints fall due together
 * against a target that answers after 300 ms: an executor with 2 call slots takes 4 due jobs, and
 * must still never have more than 2 calls open at the target, and record every run.
 * EXECUTOR_RESPONSE_MEMORY_MB bounds them too: with 1 MiB, endpoints allowed 1 MiB of response each
 * are called one at a time though two slots are free.
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
  engine = await startEngine(harness, { executorConcurrency: 2, executorResponseMemoryMb: 1 });
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

/** Six endpoints due together (hourly, so each runs once here); resolves once each has its run recorded. */
async function runSix(name: string, maxResponseSizeKb: number): Promise<void> {
  open = 0;
  mostOpen = 0;
  const jobId = (await api.post('/api/jobs', { name })).body.id as string;
  const endpoints: string[] = [];
  for (let index = 0; index < 6; index += 1) {
    const created = await api.post(`/api/jobs/${jobId}/endpoints`, {
      name: `${name} ${index}`,
      url: `${target.origin}/${name}/${index}`,
      method: 'GET',
      baselineIntervalMs: 3_600_000,
      maxResponseSizeKb,
    });
    expect(created.status).toBe(201);
    endpoints.push(created.body.id as string);
  }
  const recorded = () => harness.db.prisma.run.count({ where: { endpointId: { in: endpoints } } });
  await waitFor(async () => (await recorded()) >= 6, 20_000, 'a run of each endpoint recorded');
}

it('never has more calls open than EXECUTOR_CONCURRENCY, and records every run', async () => {
  await runSix('slots', 100);
  expect(mostOpen).toBe(2);
  expect(target.requests.filter((request) => request.url.startsWith('/slots/'))).toHaveLength(6);
});

it('never has more response memory reserved than EXECUTOR_RESPONSE_MEMORY_MB: 1 MiB endpoints one at a time', async () => {
  await runSix('memory', 1024);
  expect(mostOpen).toBe(1);
  expect(target.requests.filter((request) => request.url.startsWith('/memory/'))).toHaveLength(6);
});
