/**
 * The per-run statements of the executor (admission's read, the record) and of the scheduler (the
 * recompute's lock and store) are named prepared statements: parsed once per connection, they cut
 * PostgreSQL's CPU per execution at saturation from 0.127–0.140 to 0.098–0.113 ms
 * (docs/decisions/0020-named-prepared-statements.md). This checks that they are prepared on the connection that ran them, and that they keep
 * working when a migration adds a column while services run (a rolling deploy): a prepared statement
 * whose result row changed shape would fail with "cached plan must not change result type".
 */
import { newIdAt } from '@kairos/core';
import { type Database } from '@kairos/db';
import { loadExecutionTargets, recomputeEndpoints, recordScheduledRuns, type RunOutcome } from '@kairos/db/system';
import { useTestDatabase } from './db.js';
import { runOutcome, seedEndpoint } from './runs-fixtures.js';

let db: Database;
// One connection: every statement below runs on it, and pg_prepared_statements is per session.
useTestDatabase(1, (opened) => (db = opened));

let clock = Date.now() - 3_600_000;

function run(endpoint: { accountId: string; endpointId: string }): RunOutcome {
  clock += 1000;
  return runOutcome(endpoint, new Date(clock));
}

/** One run through the statements: admission's read, the record, the scheduler's recompute. */
async function oneRun(endpoint: { accountId: string; endpointId: string }): Promise<number> {
  const targets = await loadExecutionTargets(db, [endpoint.endpointId]);
  expect(targets.get(endpoint.endpointId)?.id).toBe(endpoint.endpointId);
  const recorded = await recordScheduledRuns(db, [run(endpoint)]);
  expect(recorded.ids.size).toBe(1);
  return recomputeEndpoints(
    db,
    [endpoint.endpointId],
    () => ({
      runId: newIdAt(new Date(clock + 60_000)),
      scheduledAt: new Date(clock + 60_000),
      source: 'baseline-interval',
    }),
    async (recomputed) => recomputed[0]!.scheduleVersion,
  );
}

it('prepares the per-run statements once per connection, and they survive a column added while running', async () => {
  const query = (sql: string, values?: unknown[]) => db.pool.query(sql, values);
  const endpoint = await seedEndpoint(query);
  const firstVersion = await oneRun(endpoint);

  const { rows } = await db.pool.query<{ name: string }>('SELECT name FROM pg_prepared_statements ORDER BY name');
  expect(rows.map((row) => row.name)).toEqual([
    'load-execution-targets',
    'recompute-lock-endpoints',
    'recompute-store-decisions',
    'record-scheduled-runs',
  ]);

  // A migration of the next release, applied while this one runs.
  await db.pool.query('ALTER TABLE endpoints ADD COLUMN "addedByAMigration" text');
  await db.pool.query('ALTER TABLE runs ADD COLUMN "addedByAMigration" text');
  expect(await oneRun(endpoint)).toBe(firstVersion + 1);
});
