/**
 * A run updates its endpoint's row once when the recorder plans the next run with it (nextRunAfter,
 * stored by the record statement), twice when the scheduler plans it (recomputeEndpoints after the
 * record: a failure, a one-shot, response rules that set or end an interval or a pause, a change waiting). Every update must be HOT (PostgreSQL writes no
 * index entry): an index on a column they change, such as the former one on "nextRunAt", makes every
 * such update write an entry into each index of the table (docs/decisions/0021-no-index-on-next-run-at.md):
 * 49 % of these updates were HOT with that index, 99 % without it.
 *
 * The real statements run on a one-connection pool, so that backend's table counters can be flushed
 * (pg_stat_force_next_flush, PostgreSQL 15) and read back without waiting for the stats interval.
 */
import { newIdAt, type RuleOutcome } from '@kairos/core';
import { type Database } from '@kairos/db';
import {
  decideNextRun,
  loadExecutionTarget,
  markScheduleDirty,
  nextRunAfter,
  recomputeEndpoints,
  recordScheduledRuns,
} from '@kairos/db/system';
import { useTestDatabase } from './db.js';
import { runOutcome, seedEndpoint } from './runs-fixtures.js';

const RUNS = 20;

let db: Database;
useTestDatabase(1, (opened) => (db = opened));

async function endpointUpdates(): Promise<{ updates: number; hot: number }> {
  await db.pool.query('SELECT pg_stat_force_next_flush()');
  const { rows } = await db.pool.query<{ updates: string; hot: string }>(
    `SELECT n_tup_upd AS updates, n_tup_hot_upd AS hot FROM pg_stat_user_tables WHERE relname = 'endpoints'`,
  );
  return { updates: Number(rows[0]!.updates), hot: Number(rows[0]!.hot) };
}

/** Plans the endpoint's run at `at` as the scheduler's recompute stores it; its run id. */
async function planRun(endpointId: string, at: Date): Promise<string> {
  const runId = newIdAt(at);
  await recomputeEndpoints(
    db,
    [endpointId],
    () => ({ runId, scheduledAt: at, source: 'baseline-interval' }),
    async () => undefined,
  );
  return runId;
}

it('the two per-run updates of an endpoint row are HOT', async () => {
  const { accountId, endpointId } = await seedEndpoint((sql, values) => db.pool.query(sql, values));
  const before = await endpointUpdates();
  let scheduledAt = new Date(Date.now() - RUNS * 1000);
  for (let index = 0; index < RUNS; index += 1) {
    const runId = await planRun(endpointId, scheduledAt);
    const recorded = await recordScheduledRuns(db, [
      {
        ...runOutcome({ accountId, endpointId }, scheduledAt),
        id: runId,
        responseBody: { ok: true },
        responseFormat: 'json',
        responseSizeBytes: 11,
      },
    ]);
    expect(recorded.ids.has(runId)).toBe(true);
    scheduledAt = new Date(scheduledAt.getTime() + 1000);
  }
  const after = await endpointUpdates();
  expect(after.updates - before.updates).toBe(2 * RUNS);
  // All but a few: an update is HOT only when the row's page has room for the new version, and a page
  // whose dead versions cannot be pruned yet has none (39 of 40 once in CI). With an index
  // on a column these updates change, half of them (20 of 40) are not HOT.
  expect(after.hot - before.hot).toBeGreaterThanOrEqual(2 * RUNS - 4);
});

it('a run whose next run the recorder plans writes its endpoint row once, HOT, and a waiting change is left to the scheduler', async () => {
  const { accountId, endpointId } = await seedEndpoint((sql, values) => db.pool.query(sql, values));
  await db.pool.query(`UPDATE endpoints SET "baselineIntervalMs" = 1000 WHERE id = $1`, [endpointId]);
  const firstAt = new Date(Date.now() - RUNS * 1000);
  await planRun(endpointId, firstAt);
  const before = await endpointUpdates();
  for (let index = 0; index < RUNS; index += 1) {
    const target = (await loadExecutionTarget(db, endpointId))!;
    const run = { ...runOutcome({ accountId, endpointId }, target.nextRunAt!), id: target.nextRunId! };
    const nextRun = nextRunAfter(target, run, target.scheduleVersion, new Date(run.completedAt.getTime()));
    expect(nextRun).not.toBeNull();
    const recorded = await recordScheduledRuns(db, [{ ...run, nextRun: nextRun! }]);
    expect(recorded.planned.get(run.id)).toBe(target.scheduleVersion + 1);
  }
  const after = await endpointUpdates();
  expect(after.updates - before.updates).toBe(RUNS);
  expect(after.hot - before.hot).toBeGreaterThanOrEqual(RUNS - 2);
  const { rows } = await db.pool.query<{ nextRunAt: Date; scheduleVersion: number }>(
    `SELECT "nextRunAt", "scheduleVersion" FROM endpoints WHERE id = $1`,
    [endpointId],
  );
  // The planned grid: each run one interval after the one before.
  expect(rows[0]!.nextRunAt.getTime()).toBe(firstAt.getTime() + RUNS * 1000);

  // A change marked the row dirty after the target was read: the record stores the run, not the plan.
  const target = (await loadExecutionTarget(db, endpointId))!;
  const run = { ...runOutcome({ accountId, endpointId }, target.nextRunAt!), id: target.nextRunId! };
  const nextRun = nextRunAfter(target, run, target.scheduleVersion, run.completedAt)!;
  await markScheduleDirty(db, [endpointId], new Date());
  const recorded = await recordScheduledRuns(db, [{ ...run, nextRun }]);
  expect(recorded.ids.has(run.id)).toBe(true);
  expect(recorded.planned.size).toBe(0);
  const { rows: left } = await db.pool.query<{ nextRunId: string; scheduleVersion: number }>(
    `SELECT "nextRunId", "scheduleVersion" FROM endpoints WHERE id = $1`,
    [endpointId],
  );
  expect(left[0]).toEqual({ nextRunId: run.id, scheduleVersion: target.scheduleVersion });
});

it("a run whose response rules leave the schedule alone is planned by the recorder; one that sets or ends a rule's interval is left to the scheduler", async () => {
  const { accountId, endpointId } = await seedEndpoint((sql, values) => db.pool.query(sql, values));
  const rules = [
    { name: 'backlog high', when: { all: [{ path: '$.backlog', op: 'gt', value: 100 }] }, then: { intervalMs: 5000 } },
  ];
  await db.pool.query(`UPDATE endpoints SET "baselineIntervalMs" = 1000, rules = $2 WHERE id = $1`, [
    endpointId,
    JSON.stringify(rules),
  ]);
  await planRun(endpointId, new Date(Date.now() - 10_000));
  const nothing: RuleOutcome = { matched: [], interval: null, pause: null, runEndpoints: [], analyse: false };
  const interval = {
    ...nothing,
    matched: ['backlog high'],
    interval: { rule: 'backlog high', intervalMs: 5000, expiresAtMs: Date.now() + 60_000 },
  };
  /** Records the endpoint's planned run with `outcome`; whether the recorder planned its next run, and the row updates it took. */
  const recordWith = async (outcome: RuleOutcome) => {
    const target = (await loadExecutionTarget(db, endpointId))!;
    expect(target.responseRules).not.toBeNull();
    const run = {
      ...runOutcome({ accountId, endpointId }, target.nextRunAt!),
      id: target.nextRunId!,
      rulesMatched: outcome.matched,
      ruleOutcome: outcome,
    };
    const nextRun = nextRunAfter(target, run, target.scheduleVersion, run.completedAt);
    const before = await endpointUpdates();
    const recorded = await recordScheduledRuns(db, [nextRun ? { ...run, nextRun } : run]);
    expect(recorded.ids.has(run.id)).toBe(true);
    const updates = (await endpointUpdates()).updates - before.updates;
    if (recorded.planned.size === 0) {
      // Left to the scheduler, as its recompute after the run does.
      await recomputeEndpoints(
        db,
        [endpointId],
        (row) => decideNextRun(row, run.completedAt),
        async () => undefined,
      );
    }
    return { planned: recorded.planned.size === 1, updates };
  };
  const origin = async () =>
    (
      await db.pool.query<{ origin: string | null }>(
        `SELECT "hintIntervalOrigin" AS origin FROM endpoints WHERE id = $1`,
        [endpointId],
      )
    ).rows[0]!.origin;

  // Nothing matched and no rule's interval in force: one write, the next run stored with the run.
  expect(await recordWith(nothing)).toEqual({ planned: true, updates: 1 });
  // The interval rule matches: the record sets the hint, the scheduler plans from it.
  expect(await recordWith(interval)).toEqual({ planned: false, updates: 1 });
  expect(await origin()).toBe('rule');
  // The next run no longer matches: the record ends the hint, the scheduler plans again.
  expect(await recordWith(nothing)).toEqual({ planned: false, updates: 1 });
  expect(await origin()).toBeNull();
  // Back on the baseline: the recorder plans again.
  expect(await recordWith(nothing)).toEqual({ planned: true, updates: 1 });
});
