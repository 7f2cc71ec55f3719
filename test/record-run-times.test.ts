/**
 * The executor's times travel to and from PostgreSQL as epoch milliseconds (packages/db/src/executions.ts:
 * RUNS_FROM_JSON when a run is recorded, SELECT_TARGETS when its endpoint is read): each must land as
 * the same instant, to the millisecond, in the run's row and its endpoint's state, for scheduled runs
 * and Test now runs alike, and come back as the same Date (null where the column is).
 */
import { type Database } from '@kairos/db';
import { loadExecutionTarget, loadExecutionTargets, recordScheduledRuns, recordTestRun } from '@kairos/db/system';
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

it("reads an endpoint's times back as the same Dates, and an empty one as null", async () => {
  const endpoint = await seedEndpoint((sql, values) => db.pool.query(sql, values));
  const scheduledAt = new Date(Date.UTC(2026, 10, 27, 23, 59, 59, 999));
  await recordScheduledRuns(db, [
    { ...runOutcome(endpoint, scheduledAt), startedAt: new Date(scheduledAt.getTime() + 1) },
  ]);
  await db.pool.query(`UPDATE endpoints SET "nextRunAt" = $2, "pausedUntil" = $3 WHERE id = $1`, [
    endpoint.endpointId,
    new Date(Date.UTC(2026, 10, 28, 0, 0, 0, 1)),
    new Date(Date.UTC(2027, 0, 1, 0, 0, 0, 500)),
  ]);
  const one = await loadExecutionTarget(db, endpoint.endpointId);
  const batch = (await loadExecutionTargets(db, [endpoint.endpointId])).get(endpoint.endpointId);
  for (const target of [one, batch]) {
    expect(target!.lastScheduledAt).toEqual(new Date('2026-11-27T23:59:59.999Z'));
    expect(target!.lastRunAt).toEqual(new Date('2026-11-28T00:00:00.000Z'));
    expect(target!.nextRunAt).toEqual(new Date('2026-11-28T00:00:00.001Z'));
    expect(target!.pausedUntil).toEqual(new Date('2027-01-01T00:00:00.500Z'));
    expect(target!.archivedAt).toBeNull();
    expect(target!.previousSigningKeyExpiresAt).toBeNull();
  }
});
