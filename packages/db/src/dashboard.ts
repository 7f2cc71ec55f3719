/**
 * Account statistics for the dashboard: a handful of aggregates, each one SQL statement over an
 * index that starts with accountId (runs: accountId, startedAt; analysis_sessions: accountId,
 * createdAt), run in parallel. Days are UTC calendar days; the range is [start, end + 1 day).
 */
import type { Database } from './client.js';
import { percentOf } from './runs.js';

export interface DashboardRange {
  /** 00:00 UTC of the first day. */
  from: Date;
  /** 00:00 UTC of the day after the last day (exclusive). */
  to: Date;
}

export interface DashboardStats {
  totals: {
    jobs: number;
    endpoints: number;
    activeEndpoints: number;
    pausedEndpoints: number;
    runs: number;
    successfulRuns: number;
    failedRuns: number;
  };
  successRate: number;
  runsOverTime: { date: string; success: number; failed: number }[];
  runsBySource: Record<string, number>;
  lateness: { runs: number; p50Ms: number; p95Ms: number; p99Ms: number; maxMs: number };
  failingEndpoints: {
    endpointId: string;
    name: string;
    jobId: string;
    jobName: string;
    failureCount: number;
    lastRunAt: Date | null;
  }[];
  ai: { sessions: number; tokens: number };
}

const FAILING_ENDPOINTS_LIMIT = 10;

export async function getDashboardStats(
  db: Database,
  accountId: string,
  range: DashboardRange,
  now: Date,
): Promise<DashboardStats> {
  const [inventory, days, sources, lateness, failing, ai] = await Promise.all([
    db.pool.query<{ jobs: number; endpoints: number; paused: number }>(
      `SELECT (SELECT count(*)::int FROM jobs WHERE "accountId" = $1 AND status <> 'archived') AS jobs,
              count(*)::int AS endpoints,
              (count(*) FILTER (WHERE j.status = 'paused' OR e."pausedUntil" > $2))::int AS paused
         FROM endpoints e JOIN jobs j ON j.id = e."jobId"
        WHERE e."accountId" = $1 AND e."archivedAt" IS NULL`,
      [accountId, now],
    ),
    db.pool.query<{ date: string; success: number; failed: number }>(
      `WITH per_day AS (
         SELECT ("startedAt" AT TIME ZONE 'UTC')::date AS day,
                (count(*) FILTER (WHERE status = 'success'))::int AS success,
                (count(*) FILTER (WHERE status = 'failed'))::int AS failed
           FROM runs
          WHERE "accountId" = $1 AND "startedAt" >= $2 AND "startedAt" < $3
          GROUP BY 1)
       SELECT to_char(series.day, 'YYYY-MM-DD') AS date,
              coalesce(per_day.success, 0) AS success,
              coalesce(per_day.failed, 0) AS failed
         FROM generate_series(($2::timestamptz AT TIME ZONE 'UTC')::date::timestamp,
                              (($3::timestamptz AT TIME ZONE 'UTC')::date - 1)::timestamp,
                              interval '1 day') AS series(day)
         LEFT JOIN per_day ON per_day.day = series.day::date
        ORDER BY series.day`,
      [accountId, range.from, range.to],
    ),
    db.pool.query<{ source: string; runs: number }>(
      `SELECT source, count(*)::int AS runs
         FROM runs
        WHERE "accountId" = $1 AND "startedAt" >= $2 AND "startedAt" < $3
        GROUP BY source`,
      [accountId, range.from, range.to],
    ),
    db.pool.query<{ runs: number; percentiles: number[] | null; max_ms: number | null }>(
      `SELECT count(*)::int AS runs,
              percentile_cont(ARRAY[0.5, 0.95, 0.99]) WITHIN GROUP (ORDER BY late_ms) AS percentiles,
              max(late_ms)::float8 AS max_ms
         FROM (SELECT (extract(epoch FROM "startedAt" - "scheduledAt") * 1000)::float8 AS late_ms
                 FROM runs
                WHERE "accountId" = $1 AND "startedAt" >= $2 AND "startedAt" < $3 AND source <> 'test') AS late`,
      [accountId, range.from, range.to],
    ),
    db.pool.query<{
      endpointId: string;
      name: string;
      jobId: string;
      jobName: string;
      failureCount: number;
      lastRunAt: Date | null;
    }>(
      `SELECT e.id AS "endpointId", e.name, e."jobId", j.name AS "jobName", e."failureCount", e."lastRunAt"
         FROM endpoints e JOIN jobs j ON j.id = e."jobId"
        WHERE e."accountId" = $1 AND e."archivedAt" IS NULL AND e."failureCount" > 0
        ORDER BY e."failureCount" DESC, e."lastRunAt" DESC NULLS LAST, e.id
        LIMIT $2`,
      [accountId, FAILING_ENDPOINTS_LIMIT],
    ),
    db.pool.query<{ sessions: number; tokens: number }>(
      `SELECT count(*)::int AS sessions, coalesce(sum("tokenUsage"), 0)::int AS tokens
         FROM analysis_sessions
        WHERE "accountId" = $1 AND "createdAt" >= $2 AND "createdAt" < $3`,
      [accountId, range.from, range.to],
    ),
  ]);

  const { jobs, endpoints, paused } = inventory.rows[0]!;
  const successfulRuns = days.rows.reduce((sum, day) => sum + day.success, 0);
  const failedRuns = days.rows.reduce((sum, day) => sum + day.failed, 0);
  const late = lateness.rows[0]!;
  const [p50 = 0, p95 = 0, p99 = 0] = late.percentiles ?? [];
  return {
    totals: {
      jobs,
      endpoints,
      activeEndpoints: endpoints - paused,
      pausedEndpoints: paused,
      runs: successfulRuns + failedRuns,
      successfulRuns,
      failedRuns,
    },
    successRate: percentOf(successfulRuns, successfulRuns + failedRuns),
    runsOverTime: days.rows,
    runsBySource: Object.fromEntries(sources.rows.map((row) => [row.source, row.runs])),
    lateness: {
      runs: late.runs,
      p50Ms: Math.round(p50),
      p95Ms: Math.round(p95),
      p99Ms: Math.round(p99),
      maxMs: Math.round(late.max_ms ?? 0),
    },
    failingEndpoints: failing.rows,
    ai: ai.rows[0]!,
  };
}
