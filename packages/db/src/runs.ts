/**
 * The read side of runs (the executor writes them, see executions.ts): lists, one run, and an
 * endpoint's health over a window. Tenant-scoped through the run's and the endpoint's accountId.
 */
import { notFound, type RunStatusValue } from '@kairos/core';
import type { Database } from './client.js';
import type { Run } from './generated/prisma/client.js';

async function assertEndpointVisible(db: Database, accountId: string, endpointId: string) {
  const endpoint = await db.prisma.endpoint.findFirst({
    where: { id: endpointId, accountId },
    select: { id: true, lastRunAt: true, lastStatus: true, failureCount: true },
  });
  if (!endpoint) throw notFound('endpoint', endpointId);
  return endpoint;
}

/** An endpoint's runs, newest first (startedAt, then id: both descending). */
export async function listRuns(
  db: Database,
  accountId: string,
  endpointId: string,
  query: { limit: number; offset: number; status?: RunStatusValue | undefined },
): Promise<{ runs: Run[]; total: number }> {
  await assertEndpointVisible(db, accountId, endpointId);
  const where = { accountId, endpointId, ...(query.status ? { status: query.status } : {}) };
  const [runs, total] = await Promise.all([
    db.prisma.run.findMany({
      where,
      orderBy: [{ startedAt: 'desc' }, { id: 'desc' }],
      take: query.limit,
      skip: query.offset,
    }),
    db.prisma.run.count({ where }),
  ]);
  return { runs, total };
}

export async function getRun(db: Database, accountId: string, runId: string): Promise<Run> {
  const run = await db.prisma.run.findFirst({ where: { id: runId, accountId } });
  if (!run) throw notFound('run', runId);
  return run;
}

export interface EndpointHealth {
  endpointId: string;
  sinceHours: number;
  totalRuns: number;
  successCount: number;
  failureCount: number;
  /** Percent, two decimals; 0 when there are no runs. */
  successRate: number;
  avgDurationMs: number;
  p95DurationMs: number;
  lastRunAt: Date | null;
  lastStatus: RunStatusValue | null;
  failureStreak: number;
}

/**
 * Counts and durations of every run (test runs included) started in the last `sinceHours` before
 * `now`: one aggregate over the (endpointId, startedAt) index. The latest run and the failure
 * streak come from the endpoint row, so they agree with the endpoint record (scheduled runs only).
 */
export async function getEndpointHealth(
  db: Database,
  accountId: string,
  endpointId: string,
  sinceHours: number,
  now: Date,
): Promise<EndpointHealth> {
  const endpoint = await assertEndpointVisible(db, accountId, endpointId);
  const since = new Date(now.getTime() - sinceHours * 3_600_000);
  const { rows } = await db.pool.query<{
    total: number;
    succeeded: number;
    avg_ms: number | null;
    p95_ms: number | null;
  }>(
    `SELECT count(*)::int AS total,
            (count(*) FILTER (WHERE status = 'success'))::int AS succeeded,
            avg("durationMs")::float8 AS avg_ms,
            percentile_cont(0.95) WITHIN GROUP (ORDER BY "durationMs")::float8 AS p95_ms
       FROM runs
      WHERE "endpointId" = $1 AND "accountId" = $2 AND "startedAt" > $3`,
    [endpointId, accountId, since],
  );
  const { total, succeeded, avg_ms: avgMs, p95_ms: p95Ms } = rows[0]!;
  return {
    endpointId,
    sinceHours,
    totalRuns: total,
    successCount: succeeded,
    failureCount: total - succeeded,
    successRate: percentOf(succeeded, total),
    avgDurationMs: Math.round(avgMs ?? 0),
    p95DurationMs: Math.round(p95Ms ?? 0),
    lastRunAt: endpoint.lastRunAt,
    lastStatus: endpoint.lastStatus,
    failureStreak: endpoint.failureCount,
  };
}

/** part / whole as a percentage with two decimals; 0 when whole is 0. */
export function percentOf(part: number, whole: number): number {
  return whole === 0 ? 0 : Math.round((part / whole) * 10_000) / 100;
}

/** A recorded run as the backtest replays it (core's RecordedRun). */
export interface ReplayedRun {
  id: string;
  status: RunStatusValue;
  statusCode: number | null;
  durationMs: number;
  responseBody: unknown;
  responseFormat: string | null;
  responseTruncated: boolean;
  errorKind: string | null;
  errorMessage: string | null;
  startedAt: Date;
  completedAt: Date;
  rulesMatched: string[] | null;
}

/** Runs read per page by forEachRecordedRun: their bodies (up to maxResponseSizeKb each) are held per page only. */
const REPLAY_PAGE = 200;

/**
 * The endpoint's latest `limit` scheduled runs (test runs left out), oldest first, handed to `visit`
 * a page at a time, so thousands of runs with their bodies are never held at once: their ids first
 * (the (endpointId, startedAt) index), then the rows by id. NOT_FOUND for another account's endpoint.
 */
export async function forEachRecordedRun(
  db: Database,
  accountId: string,
  endpointId: string,
  limit: number,
  visit: (runs: ReplayedRun[]) => void,
): Promise<void> {
  await assertEndpointVisible(db, accountId, endpointId);
  const { rows: ids } = await db.pool.query<{ id: string }>(
    `SELECT id FROM runs WHERE "endpointId" = $1 AND "accountId" = $2 AND source <> 'test'
      ORDER BY "startedAt" DESC, id DESC LIMIT $3`,
    [endpointId, accountId, limit],
  );
  ids.reverse();
  for (let from = 0; from < ids.length; from += REPLAY_PAGE) {
    const { rows } = await db.pool.query<ReplayedRun>(
      `SELECT id, status, "statusCode", "durationMs", "responseBody", "responseFormat", "responseTruncated",
              "errorKind", "errorMessage", "startedAt", "completedAt", "rulesMatched"
         FROM runs WHERE id = ANY($1::uuid[]) AND "accountId" = $2
        ORDER BY "startedAt", id`,
      [ids.slice(from, from + REPLAY_PAGE).map((row) => row.id), accountId],
    );
    visit(rows);
  }
}

/**
 * The epoch milliseconds of the endpoint's slots from `from` to `to` that have their backfill run
 * already (a backfill queues only the others).
 */
export async function backfilledSlots(
  db: Database,
  accountId: string,
  endpointId: string,
  from: Date,
  to: Date,
): Promise<Set<number>> {
  const runs = await db.prisma.run.findMany({
    where: { accountId, endpointId, source: 'backfill', scheduledAt: { gte: from, lte: to } },
    select: { scheduledAt: true },
  });
  return new Set(runs.map((run) => run.scheduledAt.getTime()));
}
