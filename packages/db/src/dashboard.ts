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
const DAY_MS = 86_400_000;

/** How many runs started `lateMs` after their planned time. */
export interface LatenessBucket {
  lateMs: number;
  runs: number;
}

/**
 * Count, p50 / p95 / p99 (PostgreSQL's percentile_cont: linear interpolation between the ranks
 * around p × (n − 1)) and max of lateness, rounded to whole ms, from buckets sorted by lateMs.
 */
export function latenessFromHistogram(buckets: LatenessBucket[]): DashboardStats['lateness'] {
  const runs = buckets.reduce((sum, bucket) => sum + bucket.runs, 0);
  if (runs === 0) return { runs: 0, p50Ms: 0, p95Ms: 0, p99Ms: 0, maxMs: 0 };
  /** The value at 0-based rank k of the sorted runs. */
  const valueAt = (rank: number): number => {
    let seen = 0;
    for (const bucket of buckets) {
      seen += bucket.runs;
      if (rank < seen) return bucket.lateMs;
    }
    return buckets[buckets.length - 1]!.lateMs;
  };
  const percentile = (p: number): number => {
    const position = p * (runs - 1);
    const below = valueAt(Math.floor(position));
    return Math.round(below + (position - Math.floor(position)) * (valueAt(Math.ceil(position)) - below));
  };
  return {
    runs,
    p50Ms: percentile(0.5),
    p95Ms: percentile(0.95),
    p99Ms: percentile(0.99),
    maxMs: Math.round(buckets[buckets.length - 1]!.lateMs),
  };
}

export async function getDashboardStats(
  db: Database,
  accountId: string,
  range: DashboardRange,
  now: Date,
): Promise<DashboardStats> {
  const [inventory, daysAndSources, lateness, failing, ai] = await Promise.all([
    db.pool.query<{ jobs: number; endpoints: number; paused: number }>(
      `SELECT (SELECT count(*)::int FROM jobs WHERE "accountId" = $1 AND status <> 'archived') AS jobs,
              count(*)::int AS endpoints,
              (count(*) FILTER (WHERE j.status = 'paused' OR e."pausedUntil" > $2))::int AS paused
         FROM endpoints e JOIN jobs j ON j.id = e."jobId"
        WHERE e."accountId" = $1 AND e."archivedAt" IS NULL`,
      [accountId, now],
    ),
    // Per day and per source in one pass over the range's runs (was two: a second scan of 300,000
    // runs for the sources alone); the days without runs are filled in below.
    db.pool.query<{ date: string; source: string; success: number; failed: number }>(
      `SELECT to_char(("startedAt" AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD') AS date, source,
              (count(*) FILTER (WHERE status = 'success'))::int AS success,
              (count(*) FILTER (WHERE status = 'failed'))::int AS failed
         FROM runs
        WHERE "accountId" = $1 AND "startedAt" >= $2 AND "startedAt" < $3
        GROUP BY ("startedAt" AT TIME ZONE 'UTC')::date, source`,
      [accountId, range.from, range.to],
    ),
    // A histogram, not percentile_cont: timestamps are whole milliseconds, so lateness takes a few
    // thousand distinct values at most and a hash aggregate replaces sorting every run. At 300,000
    // runs in range (bench/dashboard.ts) percentile_cont spent 1.15 s sorting; this query 0.4 s.
    db.pool.query<LatenessBucket>(
      `SELECT (extract(epoch FROM late) * 1000)::float8 AS "lateMs", runs
         FROM (SELECT "startedAt" - "scheduledAt" AS late, count(*)::int AS runs
                 FROM runs
                WHERE "accountId" = $1 AND "startedAt" >= $2 AND "startedAt" < $3 AND source <> 'test'
                GROUP BY 1) AS histogram
        ORDER BY 1`,
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
  const runsOverTime = new Map<string, { date: string; success: number; failed: number }>();
  for (let dayMs = range.from.getTime(); dayMs < range.to.getTime(); dayMs += DAY_MS) {
    const date = new Date(dayMs).toISOString().slice(0, 10);
    runsOverTime.set(date, { date, success: 0, failed: 0 });
  }
  const runsBySource: Record<string, number> = {};
  for (const row of daysAndSources.rows) {
    const day = runsOverTime.get(row.date);
    if (day) {
      day.success += row.success;
      day.failed += row.failed;
    }
    runsBySource[row.source] = (runsBySource[row.source] ?? 0) + row.success + row.failed;
  }
  const days = [...runsOverTime.values()];
  const successfulRuns = days.reduce((sum, day) => sum + day.success, 0);
  const failedRuns = days.reduce((sum, day) => sum + day.failed, 0);
  const late = latenessFromHistogram(lateness.rows);
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
    runsOverTime: days,
    runsBySource,
    lateness: late,
    failingEndpoints: failing.rows,
    ai: ai.rows[0]!,
  };
}
