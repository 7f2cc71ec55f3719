/**
 * A run's times travel to PostgreSQL as epoch milliseconds (packages/db/src/executions.ts,
 * RUNS_FROM_JSON): each must land as the same instant, to the millisecond, in the run's row and in
 * its endpoint's state, whatever the millisecond, for scheduled runs and Test now runs alike.
 */
import { type Database } from '@kairos/db';
import { recordScheduledRuns, recordTestRun } from '@kairos/db/system';
import { useTestDatabase } from './db.js';
import { runOutcome, seedEndpoint } from './runs-fixtures.js';

let db: Database;
useTestDatabase(2, (opened) => (db = opened));

const rowOf = async (id: string) =>
  (
    await db.pool.query<{ scheduledAt: Date; startedAt: Date; completedAt: Date }>(
      `SELECT "scheduledAt", "startedAt", "completedAt" FROM runs WHERE id = $1`,
      [id],
    )
  ).rows[0]!;

it('records each time as the same instant, to the millisecond', async () => {
  const endpoint = await seedEndpoint((sql, values) => db.pool.query(sql, values));
  // Milliseconds at the edges of a second (…999, …001), where a rounding would show.
  const scheduledAt = new Date(Date.UTC(2026, 10, 27, 18, 59, 59, 999));
  const run = {
    ...runOutcome(endpoint, scheduledAt),
    startedAt: new Date(scheduledAt.getTime() + 2),
    completedAt: new Date(scheduledAt.getTime() + 1001),
  };
  expect((await recordScheduledRuns(db, [run])).ids).toEqual(new Set([run.id]));
  const row = await rowOf(run.id);
  expect(row.scheduledAt.toISOString()).toBe('2026-11-27T18:59:59.999Z');
  expect(row.startedAt.toISOString()).toBe('2026-11-27T19:00:00.001Z');
  expect(row.completedAt.toISOString()).toBe('2026-11-27T19:00:01.000Z');
  const { rows } = await db.pool.query<{ lastScheduledAt: Date; lastRunAt: Date }>(
    `SELECT "lastScheduledAt", "lastRunAt" FROM endpoints WHERE id = $1`,
    [endpoint.endpointId],
  );
  expect(rows[0]!.lastScheduledAt.toISOString()).toBe('2026-11-27T18:59:59.999Z');
  expect(rows[0]!.lastRunAt.toISOString()).toBe('2026-11-27T19:00:00.001Z');

  const testAt = new Date(Date.UTC(2026, 10, 27, 19, 0, 0, 123));
  const test = { ...runOutcome(endpoint, testAt), source: 'test' };
  await recordTestRun(db, test);
  expect((await rowOf(test.id)).startedAt.toISOString()).toBe('2026-11-27T19:00:00.123Z');
});
