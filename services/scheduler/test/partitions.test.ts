/**
 * Runs partitions under the retention sweep, on real PostgreSQL: partitions are created ahead
 * (runs already in the DEFAULT partition move in), a month past the longest retention is dropped
 * whole unless a run in it started inside the window, runs of a shorter-retention account go by
 * batches, and nothing else is lost.
 */
import { randomUUID } from 'node:crypto';
import { newIdAt } from '@kairos/core';
import { type Database } from '@kairos/db';
import { ensureRunPartitions, listRunPartitions, runPartitionName } from '@kairos/db/system';
import { createLogger } from '@kairos/runtime';
import { useTestDatabase } from '../../../test/db.js';
import { insertRuns, seedEndpoint } from '../../../test/runs-fixtures.js';
import { RetentionSweeper } from '../src/retention.js';

const DAY_MS = 86_400_000;
let db: Database;
useTestDatabase(4, (opened) => (db = opened));

const query = (sql: string, values?: unknown[]) => db.pool.query(sql, values);
const daysAgo = (days: number) => new Date(Date.now() - days * DAY_MS);
/** Noon UTC of `day` in the month `months` before the current one. */
function monthsAgo(months: number, day = 10): Date {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - months, day, 12));
}
const partitionOf = async (id: string) =>
  (await query(`SELECT tableoid::regclass::text AS name FROM runs WHERE id = $1`, [id])).rows[0]?.name as
    string | undefined;
const remainingIds = async () => new Set((await query(`SELECT id FROM runs`)).rows.map(({ id }: { id: string }) => id));

function sweeper(): RetentionSweeper {
  const logger = createLogger('partitions-test', 'error');
  logger.silent = true;
  return new RetentionSweeper({
    db,
    logger,
    intervalMs: 60_000,
    batchSize: 1,
    pauseBetweenBatchesMs: 0,
    now: () => new Date(),
  });
}

describe('runs partitions', () => {
  it('creates the current month and two ahead, moving runs the DEFAULT partition holds in their range', async () => {
    const { rows } = await query(`SELECT relname FROM pg_class WHERE relname = $1`, [
      runPartitionName(monthsAgo(-5, 1)),
    ]);
    expect(rows).toHaveLength(0);
    const target = await seedEndpoint(query);
    const early = newIdAt(monthsAgo(-5)); // made by a clock five months ahead
    await insertRuns(query, target, [{ id: early, startedAt: new Date() }]);
    expect(await partitionOf(early)).toBe('runs_default');
    const newest = (await listRunPartitions(db)).filter(({ from }) => from !== null).at(-1)!;
    await query(`ALTER TABLE "${newest.name}" SET (autovacuum_vacuum_scale_factor = 0.02)`);

    const created = await ensureRunPartitions(db, monthsAgo(-4), 2);
    expect(created).toEqual([4, 5, 6].map((ahead) => runPartitionName(monthsAgo(-ahead, 1))));
    expect(await partitionOf(early)).toBe(runPartitionName(monthsAgo(-5, 1)));
    expect(await ensureRunPartitions(db, monthsAgo(-4), 2)).toEqual([]);
    const options = await query(`SELECT reloptions FROM pg_class WHERE relname = ANY($1)`, [created]);
    expect(options.rows.map(({ reloptions }) => reloptions)).toEqual(
      created.map(() => ['autovacuum_vacuum_scale_factor=0.02']),
    );
    // The sweep keeps the lead from the current month on.
    const months = (await listRunPartitions(db)).map(({ name }) => name);
    expect(months).toEqual(expect.arrayContaining([0, 1, 2].map((ahead) => runPartitionName(monthsAgo(-ahead, 1)))));
  });

  it('drops months past the longest retention, batches shorter retentions, loses nothing else', async () => {
    await query(`DELETE FROM accounts`);
    // Month partitions six to one months back, as a table partitioned long ago would have.
    await ensureRunPartitions(db, monthsAgo(6), 5);
    const longest = await seedEndpoint(query, 'enterprise'); // 90 days: the longest retention here
    const short = await seedEndpoint(query, 'free'); // 7 days
    const custom = await seedEndpoint(query, 'pro', 20);
    const run = (at: Date, startedAt = at) => ({ id: newIdAt(at), startedAt });
    const old = [run(monthsAgo(6)), run(monthsAgo(6, 20))];
    const oldShort = [run(monthsAgo(6))];
    // Planned five months ago, started ten days ago (a long-interval cron): its month must stay.
    const late = run(monthsAgo(5), daysAgo(10));
    const keptWithLate = run(monthsAgo(5, 20));
    const recent = [run(daysAgo(1)), run(daysAgo(30)), run(daysAgo(80))];
    const shortRuns = { expired: [run(daysAgo(8)), run(daysAgo(20))], kept: [run(daysAgo(1)), run(daysAgo(6))] };
    const customRuns = { expired: [run(daysAgo(21))], kept: [run(daysAgo(19))] };
    const foreign = {
      expired: { id: randomUUID(), startedAt: daysAgo(100) },
      kept: { id: randomUUID(), startedAt: daysAgo(10) },
    };
    await insertRuns(query, longest, [...old, late, keptWithLate, ...recent, foreign.expired, foreign.kept]);
    await insertRuns(query, short, [...oldShort, ...shortRuns.expired, ...shortRuns.kept]);
    await insertRuns(query, custom, [...customRuns.expired, ...customRuns.kept]);
    expect(await partitionOf(old[0]!.id)).toBe(runPartitionName(monthsAgo(6, 1)));
    expect(await partitionOf(foreign.expired.id)).toBe('runs_default');

    // Batches of one: 2 + 1 by account, 1 from the DEFAULT partition; the old month goes whole.
    expect(await sweeper().runIfLeader()).toBe(2 + 1 + 1);
    const names = (await listRunPartitions(db)).map(({ name }) => name);
    expect(names).not.toContain(runPartitionName(monthsAgo(6, 1)));
    expect(names).toContain(runPartitionName(monthsAgo(5, 1)));
    expect(await remainingIds()).toEqual(
      new Set([late, keptWithLate, ...recent, foreign.kept, ...shortRuns.kept, ...customRuns.kept].map(({ id }) => id)),
    );

    // Once its late run is gone too, the month past the longest retention goes whole.
    await query(`DELETE FROM runs WHERE id = $1`, [late.id]);
    expect(await sweeper().runIfLeader()).toBe(0);
    expect((await listRunPartitions(db)).map(({ name }) => name)).not.toContain(runPartitionName(monthsAgo(5, 1)));
    expect(await remainingIds()).toEqual(
      new Set([...recent, foreign.kept, ...shortRuns.kept, ...customRuns.kept].map(({ id }) => id)),
    );
  });
});
