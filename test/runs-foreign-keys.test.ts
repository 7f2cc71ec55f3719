/**
 * What a run's foreign keys guard, now that the one to its account is gone (migration
 * 20261128051106_runs_drop_account_fkey: its check cost every recorded run ≈ 10 µs of PostgreSQL CPU).
 * A run still belongs to an endpoint that exists, and an account's deletion still deletes its runs,
 * through its endpoints.
 */
import { type Database } from '@kairos/db';
import { recordScheduledRuns } from '@kairos/db/system';
import { useTestDatabase } from './db.js';
import { runOutcome, seedEndpoint } from './runs-fixtures.js';

let db: Database;
useTestDatabase(1, (opened) => (db = opened));

const query = (sql: string, values?: unknown[]) => db.pool.query(sql, values);
const runsOf = async (accountId: string) =>
  Number((await query(`SELECT count(*) AS n FROM runs WHERE "accountId" = $1`, [accountId])).rows[0].n);

it('runs reference their endpoint only', async () => {
  const { rows } = await query(
    `SELECT confrelid::regclass::text AS target, confdeltype FROM pg_constraint
      WHERE conrelid = 'runs'::regclass AND contype = 'f' ORDER BY 1`,
  );
  expect(rows).toEqual([{ target: 'endpoints', confdeltype: 'c' }]);
});

it("deleting an account deletes its endpoints' runs and no other account's", async () => {
  const gone = await seedEndpoint(query);
  const kept = await seedEndpoint(query);
  const at = new Date(Date.now() - 60_000);
  await recordScheduledRuns(db, [runOutcome(gone, at), runOutcome(kept, at)]);
  expect([await runsOf(gone.accountId), await runsOf(kept.accountId)]).toEqual([1, 1]);

  await query(`DELETE FROM accounts WHERE id = $1`, [gone.accountId]);
  expect([await runsOf(gone.accountId), await runsOf(kept.accountId)]).toEqual([0, 1]);
});

it('a run of an endpoint that does not exist is refused', async () => {
  const { accountId, endpointId } = await seedEndpoint(query);
  await query(`DELETE FROM endpoints WHERE id = $1`, [endpointId]);
  await expect(recordScheduledRuns(db, [runOutcome({ accountId, endpointId }, new Date())])).rejects.toThrow(
    /runs_endpointId_fkey/,
  );
  expect(await runsOf(accountId)).toBe(0);
});
