/**
 * The dispatch lead (packages/core/src/schedule/dispatch-lead.ts): a due job becomes due before
 * its run's time so the executor can admit the run first, and the call still leaves at the run's
 * time, never before it. Measured at a target in the test process: arrival minus the run's
 * scheduledAt. A lead of 400 ms makes an early call unmistakable (the executor's wait removed, every
 * call would arrive ≈400 ms early); with the lead off the calls are on time too.
 */
import { metrics } from '@kairos/runtime';
import { startTestServer, type TestServer } from '../../../test/test-server.js';
import { createApiHarness, type ApiClient, type ApiHarness } from '../../../test/api.js';
import { startEngine, waitFor, type Engine } from '../../../test/engine.js';

let harness: ApiHarness;
let api: ApiClient;
let target: TestServer;
/** Arrival time of each run id at the target (epoch ms). */
const arrivals = new Map<string, number>();

beforeAll(async () => {
  harness = await createApiHarness();
  api = harness.client((await harness.createAccount()).apiKey);
  target = await startTestServer((req, res) => {
    arrivals.set(String(req.headers['x-service-run-id']), Date.now());
    res.end('ok');
  });
});
afterAll(async () => {
  await target.close();
  await harness.close();
});

/** Lateness of an endpoint's first `count` runs at the target: arrival − scheduledAt, ms. */
async function latenessOfRuns(engine: Engine, path: string, count: number): Promise<number[]> {
  const job = (await api.post('/api/jobs', { name: `lead ${path}` })).body;
  const endpoint = (
    await api.post(`/api/jobs/${job.id}/endpoints`, {
      name: path,
      url: `${target.origin}${path}`,
      method: 'GET',
      baselineIntervalMs: 1000,
    })
  ).body;
  const runs = await waitFor(
    async () => {
      const found = await harness.db.prisma.run.findMany({
        where: { endpointId: endpoint.id },
        orderBy: { scheduledAt: 'asc' },
      });
      return found.length >= count ? found.slice(0, count) : null;
    },
    count * 1000 + 5000,
    `${count} runs of ${path}`,
  );
  await engine.close();
  return runs.map((run) => arrivals.get(run.id)! - run.scheduledAt.getTime());
}

/** kairos_execution_phase_seconds so far in this process (the engine's executor runs here): count and sum by phase. */
async function phases(): Promise<Record<string, { count: number; sum: number }>> {
  const byPhase: Record<string, { count: number; sum: number }> = {};
  for (const { metricName, labels, value } of (await metrics.executionPhase.get()).values) {
    const entry = (byPhase[String(labels.phase)] ??= { count: 0, sum: 0 });
    if (metricName?.endsWith('_count')) entry.count = value;
    if (metricName?.endsWith('_sum')) entry.sum = value;
  }
  return byPhase;
}

it('admits a run ahead of its time and calls it at its time, never before', async () => {
  const before = await phases();
  const engine = await startEngine(harness, { dispatchLeadMs: 400 });
  const lateness = await latenessOfRuns(engine, '/lead', 5);
  for (const ms of lateness) expect(ms).toBeGreaterThanOrEqual(0);
  // The executor's slot time by phase (kairos_execution_phase_seconds): every run was admitted,
  // called and recorded, and the wait for the run's time is where the lead went (≈ 400 ms less the
  // admission for each of the four led runs; at least 100 ms each on a loaded machine).
  const after = await phases();
  for (const phase of ['admission', 'wait', 'call', 'record']) {
    expect((after[phase]?.count ?? 0) - (before[phase]?.count ?? 0)).toBeGreaterThanOrEqual(5);
  }
  expect(after.wait!.sum - (before.wait?.sum ?? 0)).toBeGreaterThan(0.4);
  // On time once running: the first run was planned at the endpoint's creation (due at once, nothing
  // to lead; 843 ms late on a loaded machine with the engine just started), later ones were admitted
  // during their 400 ms lead. A loaded machine delays some calls, not all: the best is within 100 ms.
  expect(Math.min(...lateness.slice(1))).toBeLessThan(100);
});

it('with the lead off (0) the calls are never early either', async () => {
  const engine = await startEngine(harness, { dispatchLeadMs: 0 });
  for (const ms of await latenessOfRuns(engine, '/no-lead', 3)) expect(ms).toBeGreaterThanOrEqual(0);
});
