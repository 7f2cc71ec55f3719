/**
 * A batch that holds a run recorded already (a retried delivery) beside new ones: the record statement
 * goes out as plain inserts first, fails whole on that run's id, and is written again leaving it alone
 * (packages/db/src/executions.ts, recordScheduledRuns). The new runs are recorded and advance their
 * endpoints; the recorded one neither counts again nor moves its endpoint a second time.
 */
import { type Database } from '@kairos/db';
import { recordScheduledRuns } from '@kairos/db/system';
import { useTestDatabase } from './db.js';
import { runOutcome, seedEndpoint } from './runs-fixtures.js';

let db: Database;
// One connection: the prepared statements below are this session's (the first test starts with none).
useTestDatabase(1, (opened) => (db = opened));

const query = (sql: string, values?: unknown[]) => db.pool.query(sql, values);
const failureCount = async (endpointId: string) =>
  (await query(`SELECT "failureCount" FROM endpoints WHERE id = $1`, [endpointId])).rows[0].failureCount as number;
const prepared = async () =>
  (await query(`SELECT name FROM pg_prepared_statements ORDER BY name`)).rows.map((row) => row.name as string);

it('a batch of new runs is written by the plain statement alone', async () => {
  const endpoints = [await seedEndpoint(query), await seedEndpoint(query), await seedEndpoint(query)];
  const runs = endpoints.map((endpoint) => runOutcome(endpoint, new Date(Date.now() - 10_000)));
  expect((await recordScheduledRuns(db, runs)).ids).toEqual(new Set(runs.map((run) => run.id)));
  expect(await prepared()).toEqual(['record-scheduled-runs']);
});

it('records the new runs of a batch beside one recorded already, and that one once', async () => {
  const retried = await seedEndpoint(query);
  const fresh = await seedEndpoint(query);
  const at = new Date(Date.now() - 60_000);
  const first = runOutcome(retried, at, 'failed');
  expect((await recordScheduledRuns(db, [first])).ids).toEqual(new Set([first.id]));
  expect(await prepared()).not.toContain('record-scheduled-runs-again');

  const next = runOutcome(fresh, at, 'failed');
  const recorded = await recordScheduledRuns(db, [first, next]);

  expect(recorded.ids).toEqual(new Set([next.id]));
  expect(recorded.transitionCandidates).toEqual([fresh.endpointId]);
  // The retried run's endpoint counted its failure once; the new run's endpoint its own.
  expect([await failureCount(retried.endpointId), await failureCount(fresh.endpointId)]).toEqual([1, 1]);
  const { rows } = await query(`SELECT id FROM runs WHERE id = ANY($1::uuid[]) ORDER BY id`, [[first.id, next.id]]);
  expect(rows.map((row) => row.id)).toEqual([first.id, next.id].sort());
  // The second statement is prepared only when a batch needs it.
  expect(await prepared()).toContain('record-scheduled-runs-again');
});
