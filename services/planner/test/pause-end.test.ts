/**
 * The run at the end of a planner's pause: the model calls pause_until after the first run, the
 * governor applies it, and the endpoint runs once at the pause-until time (priority 1 of the
 * scheduling rules), on time and with no due job skipped as `paused` on the way (the pause is judged
 * against the run's planned time, not the clock when its due job is admitted, up to 300 ms early).
 * The engine and the planner run in-process, the model is the fake Messages API server, the
 * endpoint a real HTTP server. Prints the skips counted during the pause and the run's lateness.
 */
import { createApiHarness, type ApiClient, type ApiHarness } from '../../../test/api.js';
import { skippedRuns, startEngine, waitFor, type Engine } from '../../../test/engine.js';
import { callTools, startFakeModel, submitAnalysis, toolUse, type FakeModel } from '../../../test/fake-model.js';
import { startTestServer, type TestServer } from '../../../test/test-server.js';
import { createTestPlanner } from './helpers.js';

/** How late the pause-end run may start (the executor waits for the planned time, never less). */
const LATENESS_BOUND_MS = 500;

let harness: ApiHarness;
let engine: Engine;
let fake: FakeModel;
let target: TestServer;
let api: ApiClient;

beforeAll(async () => {
  harness = await createApiHarness();
  engine = await startEngine(harness);
  fake = await startFakeModel();
  target = await startTestServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ status: 'maintenance window', reopensInSeconds: 2.5 }));
  });
  api = harness.client((await harness.createAccount({ tier: 'enterprise' })).apiKey);
});
afterAll(async () => {
  await engine.close();
  await fake.close();
  await target.close();
  await harness.close();
});

it("runs once at the end of the planner's pause, on time, with no skip", async () => {
  let pausedUntil: Date | null = null;
  const skipsBefore = await skippedRuns('paused');
  fake.script((request) => {
    if (request.step > 0 || pausedUntil !== null) return submitAnalysis('Paused through the maintenance window.');
    pausedUntil = new Date(Date.now() + 2500);
    return callTools(toolUse('pause_until', { pausedUntil: pausedUntil.toISOString(), reason: 'maintenance window' }));
  });
  const planner = createTestPlanner(harness, fake);
  await planner.start();
  try {
    const job = (await api.post('/api/jobs', { name: 'planner pause' })).body;
    const created = await api.post(`/api/jobs/${job.id}/endpoints`, {
      name: 'Orders',
      description: 'Pause through maintenance windows; run again as soon as one ends.',
      url: `${target.origin}/orders`,
      method: 'GET',
      baselineIntervalMs: 6000,
    });
    expect(created.status).toBe(201);
    const endpointId = created.body.id as string;
    const runsOf = () => harness.db.prisma.run.findMany({ where: { endpointId }, orderBy: { scheduledAt: 'asc' } });

    const first = await waitFor(async () => (await runsOf())[0], 5000, 'the first run');
    await waitFor(async () => pausedUntil, 5000, "the planner's pause");
    const end = pausedUntil!;
    expect(end.getTime()).toBeLessThan(first.scheduledAt.getTime() + 6000);
    const run = await waitFor(
      async () => (await runsOf()).find((found) => found.startedAt >= end),
      end.getTime() - Date.now() + 8000,
      'the first run after the pause',
    );
    const skips = (await skippedRuns('paused')) - skipsBefore;
    const latenessMs = run.startedAt.getTime() - end.getTime();
    console.log(
      `planner pause: ${skips} due jobs skipped as paused; the run started ${latenessMs} ms after pausedUntil`,
    );

    const row = await harness.db.prisma.endpoint.findUniqueOrThrow({ where: { id: endpointId } });
    expect(row.pauseOrigin).toBe('planner');
    expect(run.scheduledAt.getTime()).toBe(end.getTime());
    expect(run.source).toBe('baseline-interval');
    expect(latenessMs).toBeGreaterThanOrEqual(0);
    expect(latenessMs).toBeLessThan(LATENESS_BOUND_MS);
    expect(skips).toBe(0);
  } finally {
    await planner.close();
  }
}, 30_000);
