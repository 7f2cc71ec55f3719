/**
 * Runs retention. Deletes in small batches, each its own short statement, so no long transaction
 * holds locks on the hot runs table and autovacuum can keep up between batches. Uses the
 * (accountId, startedAt) index (of each partition). Whole month partitions are dropped instead
 * when past every account's retention (partitions.ts).
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

/**
 * The retention policies in force: each tier in use with each runRetentionDays override in use
 * (a handful of rows whatever the number of accounts), for the longest retention of any account.
 */
export async function listRetentionPolicies(
  db: Database,
): Promise<{ tier: RetentionAccount['tier']; quotaOverrides: unknown }[]> {
  const { rows } = await db.pool.query<{ tier: RetentionAccount['tier']; days: unknown }>(
    `SELECT DISTINCT tier, "quotaOverrides"->'runRetentionDays' AS days FROM accounts`,
  );
  return rows.map(({ tier, days }) => ({ tier, quotaOverrides: { runRetentionDays: days } }));
}

/**
 * Deletes up to `batchSize` runs of one account started before `before`. With runs partitioned by
 * month, this is only for accounts whose retention is shorter than the longest one (whole
 * partitions past the longest are dropped, packages/db/src/partitions.ts).
 */
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
  return runs.rowCount ?? 0;
}

/**
 * Deletes up to `batchSize` analysis sessions of one account created before `before`. Not
 * partitioned: at most one session per endpoint per analysis, orders of magnitude fewer rows than
 * runs (docs/operations/scaling.md, "Runs partitions").
 */
export async function deleteAnalysisSessionsBefore(
  db: Database,
  accountId: string,
  before: Date,
  batchSize: number,
): Promise<number> {
  const sessions = await db.pool.query(
    `DELETE FROM analysis_sessions WHERE id = ANY(ARRAY(
       SELECT id FROM analysis_sessions WHERE "accountId" = $1 AND "createdAt" < $2 LIMIT $3))`,
    [accountId, before, batchSize],
  );
  return sessions.rowCount ?? 0;
}
