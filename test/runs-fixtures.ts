/**
 * Rows for the runs partitioning tests, written in SQL so they also fit a database migrated only up
 * to the migration before the partitioning one (test/runs-partitioning-migration.test.ts), and the
 * run outcome the per-run statements record (recordScheduledRuns).
 */
import { newIdAt } from '@kairos/core';
import type { RunOutcome } from '@kairos/db/system';

type Query = (sql: string, values?: unknown[]) => Promise<unknown>;

/** An account of `tier` (optionally with a runRetentionDays override) with one job and one endpoint. */
export async function seedEndpoint(
  query: Query,
  tier: 'free' | 'pro' | 'enterprise' = 'free',
  retentionDays?: number,
): Promise<{ accountId: string; endpointId: string }> {
  const [accountId, jobId, endpointId] = [newIdAt(new Date()), newIdAt(new Date()), newIdAt(new Date())];
  const overrides = retentionDays === undefined ? {} : { runRetentionDays: retentionDays };
  await query(`INSERT INTO accounts (id, name, tier, "quotaOverrides", "updatedAt") VALUES ($1, 'a', $2, $3, now())`, [
    accountId,
    tier,
    overrides,
  ]);
  await query(`INSERT INTO jobs (id, "accountId", name, "updatedAt") VALUES ($1, $2, 'j', now())`, [jobId, accountId]);
  await query(
    `INSERT INTO endpoints (id, "accountId", "jobId", name, url, method, "updatedAt")
     VALUES ($1, $2, $3, 'e', 'http://127.0.0.1:9/', 'GET', now())`,
    [endpointId, accountId, jobId],
  );
  return { accountId, endpointId };
}

/** Inserts one run per (id, startedAt) pair for the endpoint. */
export async function insertRuns(
  query: Query,
  { accountId, endpointId }: { accountId: string; endpointId: string },
  runs: { id: string; startedAt: Date }[],
): Promise<void> {
  await query(
    `INSERT INTO runs (id, "accountId", "endpointId", source, status, "scheduledAt", "startedAt", "completedAt", "durationMs")
     SELECT id, $3, $4, 'baseline-interval', 'success', at, at, at, 5
       FROM unnest($1::uuid[], $2::timestamptz[]) AS t(id, at)`,
    [runs.map(({ id }) => id), runs.map(({ startedAt }) => startedAt), accountId, endpointId],
  );
}

/**
 * A scheduled run of the endpoint at `scheduledAt` that took 5 ms: a 200 without a body, or a 500
 * (`failed`, http_error), as the executor hands it to recordScheduledRuns.
 */
export function runOutcome(
  { accountId, endpointId }: { accountId: string; endpointId: string },
  scheduledAt: Date,
  status: 'success' | 'failed' = 'success',
): RunOutcome {
  const failed = status === 'failed';
  return {
    id: newIdAt(scheduledAt),
    accountId,
    endpointId,
    source: 'baseline-interval',
    status,
    scheduledAt,
    startedAt: scheduledAt,
    completedAt: new Date(scheduledAt.getTime() + 5),
    durationMs: 5,
    statusCode: failed ? 500 : 200,
    responseBody: null,
    responseFormat: null,
    responseTruncated: false,
    responseBodyAltered: false,
    responseSizeBytes: 0,
    errorKind: failed ? 'http_error' : null,
    errorMessage: failed ? 'HTTP 500' : null,
    attempt: 1,
  };
}
