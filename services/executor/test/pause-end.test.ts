/**
 * The run at the end of a pause (priority 1 of the scheduling rules: a paused endpoint's next run is
 * the pause-until time). Its due job arrives up to the dispatch lead (300 ms) before that time, so the
 * pause is judged against the run's planned time, not the clock at admission: the run is admitted,
 * waits for its time and runs once, with no skip-and-recompute cycles. Measured for a user's pause
 * and for a resume at a chosen time after an auto-pause; each prints the due jobs skipped as
 * `paused` during the pause and how late the run started. (The planner's pause:
 * services/planner/test/pause-end.test.ts.)
 */
import { createApiHarness, type ApiClient, type ApiHarness } from '../../../test/api.js';
import { skippedRuns, startEngine, waitFor, type Engine } from '../../../test/engine.js';
import { startTestServer, type TestServer } from '../../../test/test-server.js';

/** How late the pause-end run may start (the executor waits for the planned time, never less). */
const LATENESS_BOUND_MS = 500;

let harness: ApiHarness;
let engine: Engine;
let api: ApiClient;
let target: TestServer;
let failing = false;

beforeAll(async () => {
  harness = await createApiHarness();
  engine = await startEngine(harness);
  api = harness.client((await harness.createAccount()).apiKey);
  target = await startTestServer((_req, res) => {
    res.statusCode = failing ? 500 : 200;
    res.end('{}');
  });
});
afterAll(async () => {
  await engine.close();
  await target.close();
  await harness.close();
});

const runsOf = (endpointId: string) =>
  harness.db.prisma.run.findMany({ where: { endpointId }, orderBy: { scheduledAt: 'asc' } });
const endpointRow = (endpointId: string) => harness.db.prisma.endpoint.findUniqueOrThrow({ where: { id: endpointId } });

async function createEndpoint(path: string, overrides: Record<string, unknown> = {}): Promise<string> {
  const job = (await api.post('/api/jobs', { name: `job ${path}` })).body;
  const response = await api.post(`/api/jobs/${job.id}/endpoints`, {
    name: path,
    url: `${target.origin}${path}`,
    method: 'GET',
    ...overrides,
  });
  expect(response.status).toBe(201);
  return response.body.id as string;
}

/**
 * Pauses the endpoint until `pausedUntil` and waits until a run has started at or after it: the
 * skips counted meanwhile, the run, and how late it started.
 */
async function pauseAndAwaitRun(endpointId: string, pausedUntil: Date, label: string) {
  const skipsBefore = await skippedRuns('paused');
  const paused = await api.post(`/api/endpoints/${endpointId}/pause`, {
    pausedUntil: pausedUntil.toISOString(),
    reason: label,
  });
  expect(paused.status).toBe(200);
  const run = await waitFor(
    async () => (await runsOf(endpointId)).find((found) => found.startedAt >= pausedUntil),
    pausedUntil.getTime() - Date.now() + 8000,
    `the first run after the ${label}`,
  );
  const skips = (await skippedRuns('paused')) - skipsBefore;
  const latenessMs = run.startedAt.getTime() - pausedUntil.getTime();
  console.log(`${label}: ${skips} due jobs skipped as paused; the run started ${latenessMs} ms after pausedUntil`);
  return { run, skips, latenessMs };
}

/** The endpoint once the run after `at` is planned (the pause-end run recorded, the next one planned). */
const plannedAfter = (endpointId: string, at: Date) =>
  waitFor(
    async () => {
      const found = await endpointRow(endpointId);
      return found.nextRunAt && found.nextRunAt > at ? found : null;
    },
    5000,
    'the slot after the pause-end run',
  );

it("runs once at the end of a user's pause, on time, with no skip", async () => {
  // 6 s baseline, paused for 2.5 s right after the first run: the pause ends 3.5 s before the slot.
  const endpointId = await createEndpoint('/user-pause', { baselineIntervalMs: 6000 });
  const first = await waitFor(async () => (await runsOf(endpointId))[0], 5000, 'the first run');
  const pausedUntil = new Date(Date.now() + 2500);
  const { run, skips, latenessMs } = await pauseAndAwaitRun(endpointId, pausedUntil, 'user pause');

  expect(run.scheduledAt.getTime()).toBe(pausedUntil.getTime());
  expect(run.scheduledAt.getTime()).toBeLessThan(first.scheduledAt.getTime() + 6000);
  // The rule the endpoint resumes under names the run (docs/guide/scheduling.md).
  expect(run.source).toBe('baseline-interval');
  expect(latenessMs).toBeGreaterThanOrEqual(0);
  expect(latenessMs).toBeLessThan(LATENESS_BOUND_MS);
  expect(skips).toBe(0);
  // Once: the next run is the baseline's, anchored on the pause-end run.
  const row = await plannedAfter(endpointId, pausedUntil);
  expect(row.nextRunAt!.getTime()).toBe(pausedUntil.getTime() + 6000);
  expect((await runsOf(endpointId)).filter((found) => found.scheduledAt >= pausedUntil)).toHaveLength(1);
  await api.post(`/api/jobs/${row.jobId}/endpoints/${endpointId}/archive`);
}, 20_000);

it('runs once at the time a resume after an auto-pause names, with no skip', async () => {
  // Auto-paused after two failures ("until resumed": ten years ahead); resumed to a time.
  failing = true;
  const endpointId = await createEndpoint('/auto-paused', { baselineIntervalMs: 1000, autoPauseAfterFailures: 2 });
  const autoPaused = await waitFor(
    async () => {
      const found = await endpointRow(endpointId);
      return found.autoPausedAt ? found : null;
    },
    10_000,
    'the auto-pause',
  );
  expect(autoPaused.failureCount).toBe(2);
  failing = false;
  const pausedUntil = new Date(Date.now() + 2000);
  const { run, skips, latenessMs } = await pauseAndAwaitRun(endpointId, pausedUntil, 'resume after auto-pause');

  expect(run.scheduledAt.getTime()).toBe(pausedUntil.getTime());
  expect(run.status).toBe('success');
  expect(latenessMs).toBeGreaterThanOrEqual(0);
  expect(latenessMs).toBeLessThan(LATENESS_BOUND_MS);
  expect(skips).toBe(0);
  // The success reset the failure count: the baseline runs unmultiplied from the pause-end run.
  const row = await plannedAfter(endpointId, pausedUntil);
  expect(row.failureCount).toBe(0);
  expect(row.nextRunAt!.getTime()).toBe(pausedUntil.getTime() + 1000);
  await api.post(`/api/jobs/${row.jobId}/endpoints/${endpointId}/archive`);
}, 30_000);
