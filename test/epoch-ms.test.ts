/**
 * The hot paths' times travel to and from PostgreSQL as epoch milliseconds (packages/db/src/epoch-ms.ts):
 * the executor's (executions.ts: RUNS_FROM_JSON when a run is recorded, SELECT_TARGETS when its
 * endpoint is read) and the scheduler's recompute (schedule-state.ts: the locked row read, the planned
 * run's time stored). Each must land as the same instant, to the millisecond, in the run's row and its
 * endpoint's state, for scheduled runs and Test now runs alike, and come back as the same Date (null
 * where the column is).
 */
import { newIdAt } from '@kairos/core';
import { type Database } from '@kairos/db';
import {
  loadExecutionTarget,
  loadExecutionTargets,
  recomputeEndpoints,
  recordScheduledRuns,
  recordTestRun,
  type ScheduleRow,
} from '@kairos/db/system';
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

it("reads the recompute's locked row as the same Dates and stores the planned run's time to the millisecond", async () => {
  const endpoint = await seedEndpoint((sql, values) => db.pool.query(sql, values));
  const scheduledAt = new Date(Date.UTC(2026, 10, 27, 23, 59, 59, 999));
  await recordScheduledRuns(db, [
    { ...runOutcome(endpoint, scheduledAt), startedAt: new Date(scheduledAt.getTime() + 1) },
  ]);
  await db.pool.query(
    `UPDATE endpoints SET "createdAt" = $2, "hintOneShotAt" = $3, "hintOneShotExpiresAt" = $4 WHERE id = $1`,
    [
      endpoint.endpointId,
      new Date(Date.UTC(2026, 10, 1, 0, 0, 0, 1)),
      new Date(Date.UTC(2026, 10, 28, 0, 0, 59, 999)),
      new Date(Date.UTC(2026, 10, 28, 0, 1, 0, 0)),
    ],
  );
  const planned = new Date(Date.UTC(2026, 10, 28, 0, 0, 1, 999));
  const seen: ScheduleRow[] = [];
  await recomputeEndpoints(
    db,
    [endpoint.endpointId],
    (row) => {
      seen.push(row);
      return { runId: newIdAt(planned), scheduledAt: planned, source: 'baseline-interval' };
    },
    async () => undefined,
  );
  const row = seen[0]!;
  expect(row.lastScheduledAt).toEqual(new Date('2026-11-27T23:59:59.999Z'));
  expect(row.lastRunAt).toEqual(new Date('2026-11-28T00:00:00.000Z'));
  expect(row.createdAt).toEqual(new Date('2026-11-01T00:00:00.001Z'));
  expect(row.hintOneShotAt).toEqual(new Date('2026-11-28T00:00:59.999Z'));
  expect(row.hintOneShotExpiresAt).toEqual(new Date('2026-11-28T00:01:00.000Z'));
  expect(row.nextRunAt).toBeNull();
  expect(row.pausedUntil).toBeNull();
  expect(row.archivedAt).toBeNull();
  expect(row.hintIntervalExpiresAt).toBeNull();
  const { rows } = await db.pool.query<{ nextRunAt: Date }>(`SELECT "nextRunAt" FROM endpoints WHERE id = $1`, [
    endpoint.endpointId,
  ]);
  expect(rows[0]!.nextRunAt.toISOString()).toBe('2026-11-28T00:00:01.999Z');
});
