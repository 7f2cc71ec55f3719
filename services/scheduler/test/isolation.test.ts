/**
 * A bad row fails alone in the scheduler. Recompute batches: the endpoints changed
 * together with one whose next run cannot be computed are recomputed. Reconcile: one endpoint whose schedule the policy
 * cannot compute (a time zone corrupted through raw SQL) sits in the same recompute chunk as healthy
 * endpoints that lost their schedule and their Redis jobs; the healthy ones are repaired in the same
 * sweep, the bad one is skipped and counted. Retention: an account whose old runs cannot be deleted
 * (something still references one) is skipped; the other accounts are swept.
 */
import { newIdAt } from '@kairos/core';
import { QUEUES, dueJobId } from '@kairos/queue';
import { createLogger, metrics } from '@kairos/runtime';
import { Queue } from 'bullmq';
import { createApiHarness, endpointInput, type ApiHarness } from '../../../test/api.js';
import { startEngine, waitFor, type Engine } from '../../../test/engine.js';
import { RetentionSweeper } from '../src/retention.js';

let harness: ApiHarness;
let engine: Engine;
let due: Queue;

beforeAll(async () => {
  harness = await createApiHarness();
  engine = await startEngine(harness, { withoutExecutor: true });
  due = new Queue(QUEUES.due, { connection: harness.redis, prefix: harness.queuePrefix });
});
afterAll(async () => {
  await due.close();
  await engine.close();
  await harness.close();
});

const skippedCount = async (sweep: string) =>
  (await metrics.sweepItemFailures.get()).values.find((value) => value.labels.sweep === sweep)?.value ?? 0;

/** Five hourly cron endpoints of a fresh account, once their first schedule is stored. */
async function cronEndpoints(): Promise<string[]> {
  const account = await harness.createAccount();
  const api = harness.client(account.apiKey);
  const job = (await api.post('/api/jobs', { name: 'isolation' })).body;
  const ids: string[] = [];
  for (let i = 0; i < 5; i += 1) {
    const response = await api.post(`/api/jobs/${job.id}/endpoints`, {
      name: `e${i}`,
      url: `http://127.0.0.1:9/e${i}`,
      method: 'GET',
      baselineCron: '0 * * * *',
    });
    ids.push(response.body.id);
  }
  await waitFor(
    async () =>
      (await harness.db.prisma.endpoint.count({ where: { id: { in: ids }, nextRunAt: { not: null } } })) === 5,
    3000,
    'the five first schedules',
  );
  return ids;
}

const corruptTimezone = (id: string) =>
  harness.db.pool.query(`UPDATE endpoints SET timezone = 'Nowhere/Atlantis' WHERE id = $1`, [id]);

it('a schedule change batch recomputes everyone but the endpoint whose next run cannot be computed', async () => {
  const ids = await cronEndpoints();
  const [poison, ...healthy] = ids as [string, ...string[]];
  await corruptTimezone(poison);
  const versions = async () =>
    new Map(
      (await harness.db.prisma.endpoint.findMany({ where: { id: { in: ids } } })).map((row) => [
        row.id,
        row.scheduleVersion,
      ]),
    );
  const before = await versions();
  // One message naming all five: its recomputes are submitted together, one batch.
  const changes = new Queue(QUEUES.scheduleChanges, { connection: harness.redis, prefix: harness.queuePrefix });
  await changes.add('change', { endpointIds: ids, reason: 'test' });
  await changes.close();
  const after = await waitFor(
    async () => {
      const current = await versions();
      return healthy.every((id) => current.get(id)! > before.get(id)!) ? current : null;
    },
    5000,
    'the healthy endpoints recomputed',
  );
  expect(after.get(poison)).toBe(before.get(poison));
});

it('reconcile repairs the healthy endpoints of a chunk holding one it cannot recompute', async () => {
  const ids = await cronEndpoints();
  const [poison, ...healthy] = ids as [string, ...string[]];
  // Nothing scheduled anywhere (a lost recompute, then Redis flushed), and one zone nobody knows.
  await harness.db.pool.query(
    `UPDATE endpoints SET "nextRunAt" = NULL, "nextRunId" = NULL, "scheduleDirtyAt" = NULL WHERE id = ANY($1::uuid[])`,
    [ids],
  );
  await corruptTimezone(poison);
  await due.obliterate({ force: true });
  const skippedBefore = await skippedCount('reconcile');

  const report = await engine.scheduler.reconciler.runIfLeader();
  expect(report).toMatchObject({ recomputed: 4, skipped: 1 });
  for (const id of healthy) {
    const row = await harness.db.prisma.endpoint.findUniqueOrThrow({ where: { id } });
    expect(row.nextRunAt).not.toBeNull();
    expect(await due.getJob(dueJobId(id, row.scheduleVersion))).toBeDefined();
  }
  const bad = await harness.db.prisma.endpoint.findUniqueOrThrow({ where: { id: poison } });
  expect(bad.nextRunAt).toBeNull();
  expect(await skippedCount('reconcile')).toBe(skippedBefore + 1);
  // The next sweep skips it again and repairs nothing else: no loop, no error.
  expect(await engine.scheduler.reconciler.runIfLeader()).toMatchObject({ recomputed: 0, skipped: 1 });
});

it('reconcile recomputes, instead of re-adding, a missing job whose run is already recorded', async () => {
  // The run was recorded, then its recompute was lost (or fails): re-adding the job would call the
  // endpoint again under a run id that already has its run.
  const [ranId, poisonId] = await cronEndpoints();
  await corruptTimezone(poisonId!);
  for (const id of [ranId!, poisonId!]) {
    const row = await harness.db.prisma.endpoint.findUniqueOrThrow({ where: { id } });
    await harness.db.prisma.run.create({
      data: {
        id: row.nextRunId!,
        accountId: row.accountId,
        endpointId: id,
        source: 'baseline-cron',
        status: 'success',
        scheduledAt: row.nextRunAt!,
        startedAt: row.nextRunAt!,
        completedAt: row.nextRunAt!,
        durationMs: 5,
      },
    });
    // The endpoint's state advances with its run, as recordScheduledRuns does in the same statement.
    await harness.db.prisma.endpoint.update({
      where: { id },
      data: { lastScheduledAt: row.nextRunAt, lastRunAt: row.nextRunAt, lastStatus: 'success' },
    });
    await (await due.getJob(dueJobId(id, row.scheduleVersion)))!.remove();
  }
  const before = await harness.db.prisma.endpoint.findUniqueOrThrow({ where: { id: ranId! } });

  const report = await engine.scheduler.reconciler.runIfLeader();
  expect(report).toMatchObject({ restored: 0 });
  const after = await harness.db.prisma.endpoint.findUniqueOrThrow({ where: { id: ranId! } });
  expect(after.nextRunId).not.toBe(before.nextRunId);
  expect(await due.getJob(dueJobId(ranId!, after.scheduleVersion))).toBeDefined();
  // The one that cannot be recomputed is skipped, not re-added under its recorded run id.
  const poison = await harness.db.prisma.endpoint.findUniqueOrThrow({ where: { id: poisonId! } });
  expect(await due.getJob(dueJobId(poisonId!, poison.scheduleVersion))).toBeUndefined();
});

it('retention skips an account whose old runs cannot be deleted and sweeps the others', async () => {
  const seed = async () => {
    const account = await harness.createAccount({ tier: 'free' });
    const api = harness.client(account.apiKey);
    const job = (await api.post('/api/jobs', { name: 'retention' })).body;
    const endpoint = (await api.post(`/api/jobs/${job.id}/endpoints`, endpointInput())).body;
    const at = new Date(Date.now() - 30 * 86_400_000);
    // Run ids are time-ordered and made when the run is planned (retention reads them by id range).
    const runIds = [newIdAt(at), newIdAt(at)];
    await harness.db.prisma.run.createMany({
      data: runIds.map((id) => ({
        id,
        accountId: account.accountId,
        endpointId: endpoint.id,
        source: 'baseline-interval',
        status: 'success' as const,
        scheduledAt: at,
        startedAt: at,
        completedAt: at,
        durationMs: 5,
      })),
    });
    return { accountId: account.accountId, runIds };
  };
  const accounts = [await seed(), await seed(), await seed()];
  const held = accounts[1]!;
  // Something outside Kairos holds on to one old run of the middle account.
  await harness.db.pool.query(`CREATE TABLE run_holds (run_id uuid REFERENCES runs(id) ON DELETE RESTRICT)`);
  await harness.db.pool.query(`INSERT INTO run_holds VALUES ($1)`, [held.runIds[0]]);
  const skippedBefore = await skippedCount('retention');

  const logger = createLogger('retention-test', 'error');
  logger.silent = true;
  const sweeper = new RetentionSweeper({ db: harness.db, logger, intervalMs: 60_000, now: () => new Date() });
  expect(await sweeper.sweep()).toBeGreaterThanOrEqual(4);
  const left = await harness.db.prisma.run.groupBy({
    by: ['accountId'],
    where: { accountId: { in: accounts.map((account) => account.accountId) } },
    _count: true,
  });
  expect(left).toEqual([{ accountId: held.accountId, _count: 2 }]);
  expect(await skippedCount('retention')).toBe(skippedBefore + 1);
});
