/**
 * Redis holds only derived state: after every Kairos key in Redis is lost (what FLUSHALL does to
 * us; done here by prefix so parallel test files keep theirs), the reconcile sweep rebuilds every
 * pending execution from PostgreSQL under the same run id, and an overdue one runs exactly once.
 */
import { DISPATCH_LEAD_MS } from '@kairos/core';
import { QUEUES, dueJobId } from '@kairos/queue';
import { Queue } from 'bullmq';
import { startTestServer, type TestServer } from '../../../test/test-server.js';
import { createApiHarness, type ApiClient, type ApiHarness } from '../../../test/api.js';
import { startEngine, waitFor, type Engine } from '../../../test/engine.js';

let harness: ApiHarness;
let api: ApiClient;
let target: TestServer;
let engine: Engine;

beforeAll(async () => {
  harness = await createApiHarness();
  api = harness.client((await harness.createAccount()).apiKey);
  target = await startTestServer((_req, res) => res.end('ok'));
});
afterAll(async () => {
  await engine?.close();
  await target.close();
  await harness.close();
});

const flushKairosKeys = async () => {
  const keys = await harness.redis.keys(`${harness.queuePrefix}*`);
  if (keys.length > 0) await harness.redis.del(...keys);
};

describe('reconcile', () => {
  it('rebuilds every pending execution after Redis loses them, and an overdue one runs once', async () => {
    engine = await startEngine(harness, { withoutExecutor: true });
    const job = (await api.post('/api/jobs', { name: 'reconcile' })).body;
    const endpointIds: string[] = [];
    for (let i = 0; i < 12; i += 1) {
      const response = await api.post(`/api/jobs/${job.id}/endpoints`, {
        name: `e${i}`,
        url: `${target.origin}/e${i}`,
        method: 'GET',
        baselineIntervalMs: 3_600_000,
      });
      endpointIds.push(response.body.id);
    }
    const queue = new Queue(QUEUES.due, { connection: harness.redis, prefix: harness.queuePrefix });
    await waitFor(async () => (await queue.getJobCounts('wait', 'delayed')).wait === 12, 3000, '12 pending executions');

    // Downtime: one endpoint's next run is 10 minutes overdue when Redis comes back empty.
    const overdue = new Date(Date.now() - 600_000);
    await harness.db.prisma.endpoint.update({ where: { id: endpointIds[0] }, data: { nextRunAt: overdue } });
    await flushKairosKeys();
    expect(await queue.getJobCounts('wait', 'delayed')).toEqual({ wait: 0, delayed: 0 });

    const report = await engine.scheduler.reconciler.runIfLeader();
    expect(report).toMatchObject({ checked: 12, restored: 12, recomputed: 0 });
    const rows = await harness.db.prisma.endpoint.findMany({ where: { id: { in: endpointIds } } });
    for (const row of rows) {
      const restored = await queue.getJob(dueJobId(row.id, row.scheduleVersion));
      // Due at the stored nextRunAt (at once when overdue); the executor reads the run id from the row.
      expect(restored?.data).toEqual({});
      // The dispatch lead before it: the executor waits for the run's time once admitted.
      const dueAt = restored!.timestamp + (restored!.opts.delay ?? 0) + DISPATCH_LEAD_MS;
      expect(dueAt).toBeGreaterThanOrEqual(Math.min(row.nextRunAt!.getTime(), restored!.timestamp));
      expect(dueAt - Math.max(row.nextRunAt!.getTime(), restored!.timestamp)).toBeLessThan(1000);
    }
    // A second sweep finds nothing to do.
    expect(await engine.scheduler.reconciler.runIfLeader()).toMatchObject({ restored: 0, recomputed: 0 });

    await engine.close();
    engine = await startEngine(harness);
    const overdueRuns = await waitFor(
      async () => {
        const runs = await harness.db.prisma.run.findMany({
          where: { endpointId: endpointIds[0], scheduledAt: overdue },
        });
        return runs.length > 0 ? runs : null;
      },
      5000,
      'the overdue run',
    );
    await new Promise((resolve) => setTimeout(resolve, 1000));
    // No executor ran before the loss, so the overdue slot is the endpoint's only run: once, no burst.
    expect(await harness.db.prisma.run.count({ where: { endpointId: endpointIds[0] } })).toBe(1);
    expect(overdueRuns).toHaveLength(1);
    const after = await harness.db.prisma.endpoint.findUniqueOrThrow({ where: { id: endpointIds[0] } });
    expect(after.nextRunAt!.getTime()).toBeGreaterThan(Date.now());
    await queue.close();
  });

  it('recomputes a change whose notification was lost', async () => {
    engine ??= await startEngine(harness);
    const job = (await api.post('/api/jobs', { name: 'lost notification' })).body;
    const endpoint = (
      await api.post(`/api/jobs/${job.id}/endpoints`, {
        name: 'x',
        url: `${target.origin}/lost`,
        method: 'GET',
        baselineIntervalMs: 3_600_000,
      })
    ).body;
    await waitFor(
      async () => (await harness.db.prisma.run.count({ where: { endpointId: endpoint.id } })) === 1,
      3000,
      'first run',
    );
    // The scheduler's own recompute after that run (run-completed, one job per recorder batch) must
    // land first: landing after the pause below, it would read the pause, clear scheduleDirtyAt and
    // leave the sweep nothing to repair (failed CI once). It moves nextRunAt to the next hourly slot.
    await waitFor(
      async () => {
        const row = await harness.db.prisma.endpoint.findUniqueOrThrow({ where: { id: endpoint.id } });
        return row.nextRunAt !== null && row.nextRunAt.getTime() > Date.now() + 1_800_000;
      },
      5000,
      'the recompute after the first run',
    );
    // A pause written to PostgreSQL whose schedule-changes message never reached the scheduler.
    const pausedUntil = new Date(Date.now() + 7_200_000);
    await harness.db.prisma.endpoint.update({
      where: { id: endpoint.id },
      data: { pausedUntil, scheduleDirtyAt: new Date(Date.now() - 60_000) },
    });
    const report = await engine.scheduler.reconciler.runIfLeader();
    expect(report?.recomputed).toBeGreaterThanOrEqual(1);
    const row = await harness.db.prisma.endpoint.findUniqueOrThrow({ where: { id: endpoint.id } });
    expect(row.nextRunAt).toEqual(pausedUntil);
    expect(row.scheduleDirtyAt).toBeNull();
  });

  it('only one replica sweeps at a time (the leader holds an advisory lock)', async () => {
    const other = await startEngine(harness, { withoutExecutor: true });
    const leader = await harness.db.pool.connect();
    try {
      await leader.query('SELECT pg_advisory_lock($1)', [0x6b616972]);
      expect(await other.scheduler.reconciler.runIfLeader()).toBeNull();
      await leader.query('SELECT pg_advisory_unlock($1)', [0x6b616972]);
      expect(await other.scheduler.reconciler.runIfLeader()).not.toBeNull();
    } finally {
      leader.release();
      await other.close();
    }
  });
});
