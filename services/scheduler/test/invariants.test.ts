/**
 * The engine's invariants, each with competitors racing: two schedulers, two executors.
 *  - never two pending executions for one endpoint;
 *  - never two concurrent executions of one endpoint;
 *  - a stale job (superseded by a later change) is dropped, not executed;
 *  - several scheduler replicas run at once without duplicate runs;
 *  - a slot recomputed again while its execution is in flight runs once and is recorded once.
 */
import { newId } from '@kairos/core';
import { recordScheduledRun } from '@kairos/db/system';
import { QUEUES, dueJobId, parseDueJobId } from '@kairos/queue';
import { Queue } from 'bullmq';
import { startTestServer, type TestServer } from '../../../test/test-server.js';
import { createApiHarness, type ApiClient, type ApiHarness } from '../../../test/api.js';
import { startEngine, waitFor, type Engine } from '../../../test/engine.js';

let harness: ApiHarness;
let api: ApiClient;
let target: TestServer;
const inFlight = new Map<string, number>();
const maxInFlight = new Map<string, number>();
const engines: Engine[] = [];

beforeAll(async () => {
  harness = await createApiHarness();
  api = harness.client((await harness.createAccount()).apiKey);
  target = await startTestServer((req, res) => {
    const path = req.url ?? '';
    const current = (inFlight.get(path) ?? 0) + 1;
    inFlight.set(path, current);
    maxInFlight.set(path, Math.max(maxInFlight.get(path) ?? 0, current));
    const delayMs = path.startsWith('/slow') ? 1300 : 5;
    setTimeout(() => {
      inFlight.set(path, (inFlight.get(path) ?? 1) - 1);
      res.end('ok');
    }, delayMs);
  });
});
afterEach(async () => {
  while (engines.length > 0) await engines.pop()!.close();
});
afterAll(async () => {
  await target.close();
  await harness.close();
});

async function createEndpoint(path: string, intervalMs: number): Promise<string> {
  const job = (await api.post('/api/jobs', { name: path })).body;
  const response = await api.post(`/api/jobs/${job.id}/endpoints`, {
    name: path,
    url: `${target.origin}${path}`,
    method: 'GET',
    baselineIntervalMs: intervalMs,
  });
  return response.body.id;
}

const dueQueue = () => new Queue(QUEUES.due, { connection: harness.redis, prefix: harness.queuePrefix });

describe('engine invariants', () => {
  it('never leaves two pending executions for one endpoint, however many recomputes race', async () => {
    const [first, second] = [
      await startEngine(harness, { withoutExecutor: true }),
      await startEngine(harness, { withoutExecutor: true }),
    ];
    engines.push(first!, second!);
    const endpointId = await createEndpoint('/pending', 3_600_000);
    await Promise.all(
      Array.from({ length: 40 }, (_, index) => (index % 2 === 0 ? first! : second!).scheduler.recompute(endpointId)),
    );
    const queue = dueQueue();
    const pending = (await queue.getJobs(['wait', 'delayed', 'prioritized'], 0, -1)).filter(
      (job) => parseDueJobId(job.id)?.endpointId === endpointId,
    );
    const row = await harness.db.prisma.endpoint.findUniqueOrThrow({ where: { id: endpointId } });
    // The one due job names the row's version, so it runs the row's planned run (nextRunId).
    expect(pending.map((job) => job.id)).toEqual([dueJobId(endpointId, row.scheduleVersion)]);
    await queue.close();
  });

  it('never runs one endpoint twice at once, even when changes and executors race', async () => {
    engines.push(
      await startEngine(harness, { executorConcurrency: 10 }),
      await startEngine(harness, { executorConcurrency: 10 }),
    );
    const endpointId = await createEndpoint('/slow', 1000);
    // Changes arriving while a slow execution is in flight each make a new, sooner, pending job.
    for (let i = 0; i < 6; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 400));
      await api.post(`/api/endpoints/${endpointId}/hints/oneshot`, {
        nextRunAt: new Date().toISOString(),
        ttlMinutes: 5,
        reason: `race ${i}`,
      });
    }
    await waitFor(async () => (await harness.db.prisma.run.count({ where: { endpointId } })) >= 3, 8000, 'three runs');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(maxInFlight.get('/slow')).toBe(1);
    const runs = await harness.db.prisma.run.findMany({ where: { endpointId }, orderBy: { startedAt: 'asc' } });
    for (let i = 1; i < runs.length; i += 1) {
      expect(runs[i]!.startedAt.getTime()).toBeGreaterThanOrEqual(runs[i - 1]!.completedAt.getTime());
    }
  });

  // Both recomputes see the slot not recorded yet and plan it again. Concurrency 1: the job they
  // queue is taken the moment the in-flight execution finishes (BullMQ fetches it in the same call),
  // before the scheduler hears of that run. Concurrency 10: it is taken while the first is in flight.
  it.each([1, 10])(
    'runs a slot once when two recomputes race its execution (executor concurrency %i)',
    async (concurrency) => {
      const path = `/slow-recomputed-${concurrency}`;
      const [first, second] = [
        await startEngine(harness, { executorConcurrency: concurrency }),
        await startEngine(harness, { withoutExecutor: true }),
      ];
      engines.push(first!, second!);
      const endpointId = await createEndpoint(path, 3_600_000);
      const calls = () =>
        target.requests.filter((request) => request.url === path).map((request) => request.headers['x-service-run-id']);
      await waitFor(async () => calls().length === 1, 5000, 'the first slot to be in flight');
      expect(await harness.db.prisma.run.count({ where: { endpointId } })).toBe(0);
      const planned = await harness.db.prisma.endpoint.findUniqueOrThrow({ where: { id: endpointId } });
      await Promise.all([first!.scheduler.recompute(endpointId), second!.scheduler.recompute(endpointId)]);
      await waitFor(
        async () => (await harness.db.prisma.run.count({ where: { endpointId } })) >= 1,
        5000,
        'the slot to be recorded',
      );
      await new Promise((resolve) => setTimeout(resolve, 2500));
      const runs = await harness.db.prisma.run.findMany({ where: { endpointId } });
      expect(runs.map((run) => run.scheduledAt.getTime())).toEqual([planned.nextRunAt!.getTime()]);
      expect(calls()).toEqual([runs[0]!.id]);
      expect(maxInFlight.get(path)).toBe(1);
      // The endpoint goes on: its next slot is planned and queued.
      const row = await harness.db.prisma.endpoint.findUniqueOrThrow({ where: { id: endpointId } });
      expect(row.nextRunAt!.getTime()).toBe(planned.nextRunAt!.getTime() + 3_600_000);
      const queue = dueQueue();
      expect(await queue.getJob(dueJobId(endpointId, row.scheduleVersion))).toBeDefined();
      await queue.close();
    },
  );

  it('frees the running lock of a recorded run delivered again, so the endpoint goes on (kill -9 after recording)', async () => {
    // An executor killed after recording a run but before freeing its lock (and before run-completed):
    // the stalled job comes back, is skipped as recorded, frees the lock and has the next slot planned.
    const engine = await startEngine(harness);
    engines.push(engine);
    const endpointId = await createEndpoint('/recorded-lock', 3_600_000);
    await waitFor(async () => (await harness.db.prisma.run.count({ where: { endpointId } })) === 1, 5000, 'a run');
    const row = await waitFor(
      async () => {
        const found = await harness.db.prisma.endpoint.findUniqueOrThrow({ where: { id: endpointId } });
        return found.lastScheduledAt && found.nextRunAt! > found.lastScheduledAt ? found : null;
      },
      5000,
      'the next slot to be planned',
    );
    const lockKey = `${harness.queuePrefix}:running:${endpointId}`;
    await harness.redis.set(lockKey, `${row.nextRunId}@${row.scheduleVersion}`, 'PX', 60_000);
    await recordScheduledRun(harness.db, {
      id: row.nextRunId!,
      accountId: row.accountId,
      endpointId,
      source: 'baseline-interval',
      status: 'success',
      scheduledAt: row.nextRunAt!,
      startedAt: new Date(),
      completedAt: new Date(),
      durationMs: 5,
      statusCode: 200,
      responseBody: null,
      responseFormat: null,
      responseTruncated: false,
      responseBodyAltered: false,
      responseSizeBytes: 0,
      errorKind: null,
      errorMessage: null,
      attempt: 1,
    });
    const queue = dueQueue();
    await (await queue.getJob(dueJobId(endpointId, row.scheduleVersion)))!.promote();
    const next = await waitFor(
      async () => {
        const found = await harness.db.prisma.endpoint.findUniqueOrThrow({ where: { id: endpointId } });
        return found.scheduleVersion > row.scheduleVersion ? found : null;
      },
      5000,
      'the next slot after the recorded one',
    );
    expect(next.nextRunAt!.getTime()).toBe(row.nextRunAt!.getTime() + 3_600_000);
    // Freed: only the recorded run's mark is left, which refuses that run alone (running-lock.ts).
    expect(await harness.redis.get(lockKey)).toBe(`${row.nextRunId}@recorded`);
    expect(target.requests.filter((request) => request.headers['x-service-run-id'] === row.nextRunId)).toHaveLength(0);
    await queue.close();
  });

  it('drops a stale job instead of executing it', async () => {
    const engine = await startEngine(harness);
    engines.push(engine);
    const endpointId = await createEndpoint('/stale', 3_600_000);
    await waitFor(
      async () => (await harness.db.prisma.run.count({ where: { endpointId } })) === 1,
      3000,
      'the first run',
    );
    // The recompute after that run has committed, and the run's own due job (the version before the
    // row's) is gone from Redis: a stale job added under that id while it still ran was a no-op
    // (a duplicate id), and the test read the real job's outcome (once, in the full suite at load).
    const row = await waitFor(
      async () => {
        const current = await harness.db.prisma.endpoint.findUniqueOrThrow({ where: { id: endpointId } });
        return current.lastScheduledAt && current.nextRunAt && current.nextRunAt > current.lastScheduledAt
          ? current
          : null;
      },
      3000,
      'the recompute after the first run',
    );
    const queue = dueQueue();
    await waitFor(
      async () => ((await queue.getJob(dueJobId(endpointId, row.scheduleVersion - 1))) ? null : true),
      3000,
      'the first run’s due job to be removed',
    );
    const staleRunId = newId();
    await queue.add(
      'run',
      {
        endpointId,
        accountId: row.accountId,
        scheduleVersion: row.scheduleVersion - 1,
        runId: staleRunId,
        scheduledAt: new Date().toISOString(),
        source: 'baseline-interval',
      },
      { jobId: dueJobId(endpointId, row.scheduleVersion - 1), removeOnComplete: false },
    );
    const finished = await waitFor(
      async () => {
        const job = await queue.getJob(dueJobId(endpointId, row.scheduleVersion - 1));
        return job && (await job.isCompleted()) ? job : null;
      },
      3000,
      'the stale job to be processed',
    );
    expect(finished.returnvalue).toEqual({ skipped: 'stale' });
    expect(await harness.db.prisma.run.findUnique({ where: { id: staleRunId } })).toBeNull();
    expect(target.requests.filter((request) => request.headers['x-service-run-id'] === staleRunId)).toHaveLength(0);
    await queue.close();
  });

  it('runs each planned slot exactly once with two scheduler and two executor replicas', async () => {
    engines.push(await startEngine(harness), await startEngine(harness));
    const endpointIds = await Promise.all(
      ['/replica-a', '/replica-b', '/replica-c'].map((path) => createEndpoint(path, 1000)),
    );
    await new Promise((resolve) => setTimeout(resolve, 4200));
    for (const endpointId of endpointIds) {
      const runs = await harness.db.prisma.run.findMany({ where: { endpointId }, orderBy: { scheduledAt: 'asc' } });
      expect(runs.length).toBeGreaterThanOrEqual(4);
      const planned = runs.map((run) => run.scheduledAt.getTime());
      expect(new Set(planned).size).toBe(planned.length);
      for (let i = 1; i < planned.length; i += 1) expect(planned[i]! - planned[i - 1]!).toBe(1000);
    }
  });
});
