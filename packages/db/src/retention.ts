/**
 * Runs retention. Deletes in small batches, each its own short statement, so no long transaction
 * holds locks on the hot runs table and autovacuum can keep up between batches. Uses the
 * (accountId, startedAt) index.
 */
import type { Database } from './client.js';

export interface RetentionAccount {
  id: string;
  tier: 'free' | 'pro' | 'enterprise';
  quotaOverrides: unknown;
}

export async function listAccountsForRetention(
  db: Database,
  afterId: string | null,
  limit: number,
): Promise<RetentionAccount[]> {
  const { rows } = await db.pool.query<RetentionAccount>(
    `SELECT id, tier, "quotaOverrides" FROM accounts WHERE ($1::uuid IS NULL OR id > $1::uuid) ORDER BY id LIMIT $2`,
    [afterId, limit],
  );
  return rows;
}

/** Deletes up to `batchSize` runs (and analysis sessions) of one account started before `before`. */
export async function deleteRunsBefore(
  db: Database,
  accountId: string,
  before: Date,
  batchSize: number,
): Promise<number> {
  const runs = await db.pool.query(
    `DELETE FROM runs WHERE id = ANY(ARRAY(
       SELECT id FROM runs WHERE "accountId" = $1 AND "startedAt" < $2 LIMIT $3))`,
    [accountId, before, batchSize],
  );
  await db.pool.query(
    `DELETE FROM analysis_sessions WHERE id = ANY(ARRAY(
       SELECT id FROM analysis_sessions WHERE "accountId" = $1 AND "createdAt" < $2 LIMIT $3))`,
    [accountId, before, batchSize],
  );
  return runs.rowCount ?? 0;
}
