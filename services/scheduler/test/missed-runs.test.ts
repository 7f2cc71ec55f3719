/**
 * An endpoint's missedRuns after a scheduler outage, against the real scheduler and executor: the
 * scheduler stops while the executor keeps running, slots pass, the scheduler starts again. skip runs
 * none of the missed slots (the next run is a future slot), latest runs one (the latest missed slot),
 * all runs each missed slot once, oldest first, each recorded with its slot's time and started at least
 * a second after the one before.
 */
import { MISSED_SLOT_GRACE_MS } from '@kairos/core';
import { uuidv7Time } from '@kairos/db/system';
import { createApiHarness, type ApiClient, type ApiHarness } from '../../../test/api.js';
import { startEngine, waitFor, type Engine } from '../../../test/engine.js';
import { startTestServer, type TestServer } from '../../../test/test-server.js';

const INTERVAL_MS = 2000;
/**
 * How long a recompute may take between the instant it decides at and the run id it makes (its row
 * lock's round trips): a slot that instant left in the future may be just behind the id's time.
 */
const RECOMPUTE_MARGIN_MS = 500;
/** Long enough that the oldest missed slot is well past the grace a late slot has. */
const OUTAGE_MS = MISSED_SLOT_GRACE_MS + 6 * INTERVAL_MS;

let harness: ApiHarness;
let engine: Engine;
let restarted: Engine | null = null;
let api: ApiClient;
let target: TestServer;

beforeAll(async () => {
  harness = await createApiHarness();
  engine = await startEngine(harness);
  api = harness.client((await harness.createAccount()).apiKey);
  target = await startTestServer((_req, res) => {
    res.statusCode = 200;
    res.end('{}');
  });
});
afterAll(async () => {
  await restarted?.close();
  await engine.executor?.close();
  await target.close();
  await harness.close();
});

const scheduledRuns = (endpointId: string) =>
  harness.db.prisma.run.findMany({ where: { endpointId, source: { not: 'test' } }, orderBy: { scheduledAt: 'asc' } });

it('skip runs no missed slot, latest one, all each once oldest first', async () => {
  const jobId = (await api.post('/api/jobs', { name: 'missed runs' })).body.id as string;
  const ids: Record<string, string> = {};
  for (const missedRuns of ['skip', 'latest', 'all'] as const) {
    const created = await api.post(`/api/jobs/${jobId}/endpoints`, {
      name: missedRuns,
      url: `${target.origin}/${missedRuns}`,
      method: 'GET',
      baselineIntervalMs: INTERVAL_MS,
      missedRuns,
    });
    expect(created.status).toBe(201);
    expect(created.body.missedRuns).toBe(missedRuns);
    ids[missedRuns] = created.body.id as string;
  }
  // Each endpoint's first run (at creation) is recorded and its next one planned: stop the scheduler.
  await waitFor(
    async () => {
      const rows = await harness.db.prisma.endpoint.findMany({ where: { id: { in: Object.values(ids) } } });
      return rows.every((row) => row.lastScheduledAt && row.nextRunAt! > row.lastScheduledAt && !row.scheduleDirtyAt);
    },
    10_000,
    'the first runs',
  );
  await engine.scheduler.close();
  const stoppedAt = Date.now();
  // The due jobs queued before the outage still run (the executor is up); nothing plans the next ones.
  await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS));
  const before = Object.fromEntries(
    await Promise.all(
      Object.entries(ids).map(async ([policy, id]) => [policy, (await scheduledRuns(id)).length] as const),
    ),
  );
  const lastBefore = Object.fromEntries(
    await Promise.all(
      Object.entries(ids).map(async ([policy, id]) => [policy, (await scheduledRuns(id)).at(-1)!.scheduledAt] as const),
    ),
  );
  const restartedAt = new Date();
  restarted = await startEngine(harness, { withoutExecutor: true });

  // all: every slot between the last run before and the restart, once, oldest first, a second apart.
  const expectedSlots: number[] = [];
  for (let at = lastBefore.all!.getTime() + INTERVAL_MS; at <= restartedAt.getTime(); at += INTERVAL_MS) {
    expectedSlots.push(at);
  }
  expect(expectedSlots.length).toBeGreaterThanOrEqual(5);
  const caughtUp = await waitFor(
    async () => {
      const runs = (await scheduledRuns(ids.all!)).slice(before.all);
      return runs.some((run) => run.scheduledAt > restartedAt) ? runs : null;
    },
    expectedSlots.length * 1500 + 10_000,
    'the catch-up of every missed slot',
  );
  const missed = caughtUp.filter((run) => run.scheduledAt <= restartedAt);
  expect(missed.map((run) => run.scheduledAt.getTime())).toEqual(expectedSlots);
  for (let index = 1; index < missed.length; index += 1) {
    expect(missed[index]!.startedAt.getTime() - missed[index - 1]!.startedAt.getTime()).toBeGreaterThanOrEqual(1000);
  }

  // The restarted scheduler decides each endpoint's run at some instant after restartedAt (later on a
  // loaded machine) and before that run's id was made (a UUIDv7 carries the millisecond it was made).
  // latest: its first run is the latest missed slot at that instant, none older.
  const latest = (await scheduledRuns(ids.latest!)).slice(before.latest);
  const latestSlot = latest[0]!.scheduledAt.getTime();
  expect(onGrid(lastBefore.latest!, latestSlot)).toBe(true);
  expect(latestSlot).toBeGreaterThanOrEqual(expectedSlotsOf(lastBefore.latest!, restartedAt).at(-1)!);
  expect(latestSlot).toBeLessThanOrEqual(uuidv7Time(latest[0]!.id).getTime());

  // skip: none of the missed slots; its next run is the first slot after that instant.
  const skip = (await scheduledRuns(ids.skip!)).slice(before.skip);
  expect(skip.filter((run) => run.scheduledAt <= restartedAt)).toEqual([]);
  expect(skip.length).toBeGreaterThan(0);
  const skipSlot = skip[0]!.scheduledAt.getTime();
  const skipDecidedBy = uuidv7Time(skip[0]!.id).getTime();
  expect(onGrid(lastBefore.skip!, skipSlot)).toBe(true);
  expect(skipSlot).toBeGreaterThan(skipDecidedBy - RECOMPUTE_MARGIN_MS);
  expect(skipSlot).toBeLessThanOrEqual(skipDecidedBy + INTERVAL_MS);
  expect(stoppedAt).toBeLessThan(restartedAt.getTime());
});

/** Whether `atMs` is one of the interval slots after `last`. */
const onGrid = (last: Date, atMs: number) => atMs > last.getTime() && (atMs - last.getTime()) % INTERVAL_MS === 0;

/** The interval slots after `last` up to `until`. */
function expectedSlotsOf(last: Date, until: Date): number[] {
  const slots: number[] = [];
  for (let at = last.getTime() + INTERVAL_MS; at <= until.getTime(); at += INTERVAL_MS) slots.push(at);
  return slots;
}
