/**
 * The scheduler's side of the endpoints table, in SQL (hot path: one recompute per execution,
 * batched). A recompute holds the endpoint's row lock (FOR UPDATE) from reading the state until
 * after the planned run's due job (BullMQ) has been replaced, so two schedulers recomputing one endpoint are
 * serialised and the queue always ends up holding the job of the newest version only.
 */
import { computeJitteredNextRun, newId, type JitterInput, type ScheduleInput } from '@kairos/core';
import type pg from 'pg';
import type { Database } from './client.js';
import { datesInPlace, epochMs, fromEpochMs, type WithEpochMs } from './epoch-ms.js';

export interface ScheduleRow extends ScheduleInput, JitterInput {
  id: string;
  accountId: string;
  jobStatus: 'active' | 'paused' | 'archived';
  archivedAt: Date | null;
  scheduleVersion: number;
  nextRunAt: Date | null;
  nextRunId: string | null;
}

/**
 * The planned run (ARCHITECTURE.md glossary): an endpoint's one pending execution. Stored on its row
 * as nextRunAt / nextRunId / nextRunSource under `scheduleVersion`, queued as the due job
 * `<endpointId>.<scheduleVersion>`, which carries no copy: the executor reads the run from the row
 * (packages/queue/src/payloads.ts, dueJobData).
 */
export interface PlannedRun {
  endpointId: string;
  accountId: string;
  /** The endpoint's version when this run was planned: a due job of another version is stale. */
  scheduleVersion: number;
  runId: string;
  scheduledAt: Date;
  source: string;
}

/** The scheduler's decision for an endpoint: its planned run (the version and owner come from the row; core's NextRun is the policy's answer it is made from). */
export type RunDecision = Pick<PlannedRun, 'runId' | 'scheduledAt' | 'source'>;

/** The row's times, read as epoch milliseconds and made Dates here (epoch-ms.ts). */
const ROW_TIMES = [
  'archivedAt',
  'nextRunAt',
  'lastScheduledAt',
  'lastRunAt',
  'createdAt',
  'pausedUntil',
  'hintIntervalExpiresAt',
  'hintOneShotAt',
  'hintOneShotExpiresAt',
  'activeFrom',
  'activeUntil',
] as const;

/** A row of SELECT_FOR_UPDATE: its times as epoch milliseconds. */
type LockedRow = WithEpochMs<ScheduleRow, (typeof ROW_TIMES)[number]>;

const timeOut = (name: (typeof ROW_TIMES)[number]) => epochMs(`e."${name}"`, name);

// Rows are locked in id order, so two batches sharing endpoints cannot deadlock.
const SELECT_FOR_UPDATE = `
  SELECT e.id, e."accountId", j.status AS "jobStatus", ${timeOut('archivedAt')}, e."scheduleVersion",
         ${timeOut('nextRunAt')}, e."nextRunId",
         e."baselineIntervalMs", e."baselineCron", e.timezone, e."minIntervalMs", e."maxIntervalMs",
         e."failureCount", ${timeOut('lastScheduledAt')}, ${timeOut('lastRunAt')}, ${timeOut('createdAt')}, ${timeOut('pausedUntil')},
         e."hintIntervalMs", ${timeOut('hintIntervalExpiresAt')}, ${timeOut('hintOneShotAt')}, ${timeOut('hintOneShotExpiresAt')},
         e."hintIntervalOrigin", e."hintOneShotOrigin",
         e."jitterMs", e."missedRuns", ${timeOut('activeFrom')}, ${timeOut('activeUntil')}, e.blackouts,
         last.id AS "lastScheduledRunId", last.source AS "lastScheduledRunSource"
    FROM endpoints e JOIN jobs j ON j.id = e."jobId"
    -- With jitter only: the run recorded at lastScheduledAt, whose id gives back its offset (its planned
    -- time anchors the next slot; core/schedule/jitter.ts). Found by the (endpointId, startedAt) index.
    -- A manual run is not jittered: its scheduledAt is the anchor as it is.
    LEFT JOIN LATERAL (
      SELECT r.id, r.source FROM runs r
       WHERE e."jitterMs" > 0 AND r."endpointId" = e.id AND r."startedAt" = e."lastRunAt"
         AND r."scheduledAt" = e."lastScheduledAt" AND r.source NOT IN ('test', 'manual', 'backfill')
       LIMIT 1
    ) last ON true
   WHERE e.id = ANY($1::uuid[])
   ORDER BY e.id
     FOR UPDATE OF e`;

/**
 * What the endpoint's planned run should be, from its locked row: none when it is archived, its
 * job is not active or its calendar leaves no time to run (past activeUntil); otherwise the policy's next run. The scheduler's recompute decides with it, and
 * so does a scheduling action in its own transaction (planChangedSchedule), so both plan the same run.
 *
 * A slot keeps one identity: when the row's planned run has not been recorded yet (lastScheduledAt
 * is before it) and the policy, computed with that run's id, gives its time again, the run id stays.
 * A recompute racing that slot's execution (a run-completed retried after a scheduler restart, a
 * reconcile of a dirty row, two replicas) then queues the same run again, never a second run of the
 * slot: the executor refuses a due job whose slot is recorded (services/executor/src/admission.ts)
 * and a second call under the same id is recorded once. It also lets the scheduler's recompute after
 * a scheduling action keep the run the action planned. Otherwise a fresh run id, made before the
 * time because the endpoint's jitter offset derives from it (core/schedule/jitter.ts): the stored
 * nextRunAt is the jittered time, so a retried delivery or a reconcile re-add keeps it.
 */
export function decideNextRun(row: ScheduleRow, now: Date): RunDecision | null {
  if (row.archivedAt !== null || row.jobStatus !== 'active') return null;
  const planned = row.nextRunId !== null && row.nextRunAt !== null ? { id: row.nextRunId, at: row.nextRunAt } : null;
  if (planned && (row.lastScheduledAt === null || row.lastScheduledAt < planned.at)) {
    const again = computeJitteredNextRun(row, planned.id, now);
    if (again !== null && again.nextRunAt.getTime() === planned.at.getTime()) {
      return { runId: planned.id, scheduledAt: again.nextRunAt, source: again.source };
    }
  }
  const runId = newId();
  const next = computeJitteredNextRun(row, runId, now);
  return next && { runId, scheduledAt: next.nextRunAt, source: next.source };
}

const STORE_DECISIONS = `
  UPDATE endpoints e
     SET "nextRunAt" = ${fromEpochMs('d."nextRunAt"')}, "nextRunId" = d."nextRunId", "nextRunSource" = d."nextRunSource",
         "scheduleVersion" = e."scheduleVersion" + 1, "scheduleDirtyAt" = NULL
    FROM unnest($1::uuid[], $2::bigint[], $3::uuid[], $4::text[]) AS d(id, "nextRunAt", "nextRunId", "nextRunSource")
   WHERE e.id = d.id
  RETURNING e.id, e."scheduleVersion"`;

export interface RecomputedEndpoint {
  /** The locked state before this recompute (its scheduleVersion is the superseded one). */
  row: ScheduleRow;
  /** The new planned run; null when the endpoint is stopped (archived, job not active). */
  planned: PlannedRun | null;
  /** The version stored by this recompute (the new planned run's version). */
  scheduleVersion: number;
}

/**
 * Recomputes endpoints under their row locks, many per transaction: one SELECT … FOR UPDATE, one
 * UPDATE of every decision, then `apply` replaces the queued jobs before COMMIT, still under the
 * locks. Four round trips per batch instead of four per endpoint (a scheduler is bound by round
 * trips, not by computation: docs/decisions/0008-group-commit-on-the-hot-path.md). Endpoints that no longer exist are left out.
 */
export async function recomputeEndpoints<T>(
  db: Database,
  endpointIds: string[],
  decide: (row: ScheduleRow) => RunDecision | null,
  apply: (recomputed: RecomputedEndpoint[]) => Promise<T>,
): Promise<T> {
  const client = await db.pool.connect();
  try {
    await client.query('BEGIN');
    const { rows } = await client.query<LockedRow>({
      name: 'recompute-lock-endpoints',
      text: SELECT_FOR_UPDATE,
      values: [[...new Set(endpointIds)]],
    });
    const decided = rows.map((read) => {
      const row = datesInPlace<ScheduleRow>(read, ROW_TIMES);
      return { row, next: decide(row) };
    });
    const stored = await client.query<{ id: string; scheduleVersion: number }>({
      name: 'recompute-store-decisions',
      text: STORE_DECISIONS,
      values: [
        decided.map(({ row }) => row.id),
        decided.map(({ next }) => next?.scheduledAt.getTime() ?? null),
        decided.map(({ next }) => next?.runId ?? null),
        decided.map(({ next }) => next?.source ?? null),
      ],
    });
    const versions = new Map(stored.rows.map((row) => [row.id, row.scheduleVersion]));
    const result = await apply(
      decided.map(({ row, next }) => {
        const scheduleVersion = versions.get(row.id)!;
        const planned = next && { endpointId: row.id, accountId: row.accountId, scheduleVersion, ...next };
        return { row, planned, scheduleVersion };
      }),
    );
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/** A raw query inside a transaction that already holds the endpoint's row lock (Prisma's $queryRawUnsafe). */
export type LockedQuery = (sql: string, ...values: unknown[]) => Promise<unknown>;

/**
 * A scheduling action's plan, in its own transaction after its write, under the row lock it holds:
 * the next run as the scheduler's recompute decides it (decideNextRun on the same row), stored with
 * the next version, so the action answers with the run that will happen. The row stays
 * schedule-dirty: the scheduler's recompute that follows keeps this run (same time, same run id) and
 * queues its due job, removing the superseded one (the version before this one: Scheduler).
 * Returns the plan (null: nothing to plan, the job is not active).
 */
export async function planChangedSchedule(
  query: LockedQuery,
  endpointId: string,
  now: Date,
): Promise<RunDecision | null> {
  const [read] = (await query(SELECT_FOR_UPDATE, [endpointId])) as LockedRow[];
  if (!read) return null;
  const next = decideNextRun(datesInPlace<ScheduleRow>(read, ROW_TIMES), now);
  await query(
    `UPDATE endpoints SET "nextRunAt" = ${fromEpochMs('$2::bigint')}, "nextRunId" = $3::uuid, "nextRunSource" = $4,
            "scheduleVersion" = "scheduleVersion" + 1
      WHERE id = $1::uuid RETURNING id`,
    endpointId,
    next?.scheduledAt.getTime() ?? null,
    next?.runId ?? null,
    next?.source ?? null,
  );
  return next;
}

/** One page of the reconcile's walk over the endpoints (listPlannedRuns). */
export interface PlannedRunsPage {
  /** The active endpoints' planned runs among the page's rows, in id order. */
  planned: PlannedRun[];
  /** Where the next page starts (the last id read), or null when the table has no more rows. */
  nextAfterId: string | null;
}

/**
 * The next `limit` endpoints after `afterId` in id order (reconcile paging), and the planned runs of
 * the active ones among them. The page is cut on the primary key first and filtered after, so each
 * page is an index range scan: filtered and joined before the LIMIT, PostgreSQL chose a parallel
 * sequential scan and a top-N sort of every row left, 2.7–3.0 s per 2,000-row page at 1,000,000
 * endpoints (EXPLAIN ANALYZE, docs/decisions/0014-reconcile-pages-by-primary-key.md), a sweep quadratic in the table's size.
 */
export async function listPlannedRuns(db: Database, afterId: string | null, limit: number): Promise<PlannedRunsPage> {
  const { rows } = await db.pool.query<PlannedRun & { planned: boolean }>(
    `WITH page AS MATERIALIZED (
       SELECT id, "jobId", "accountId", "scheduleVersion", "nextRunId", "nextRunAt", "nextRunSource", "archivedAt"
         FROM endpoints WHERE ($1::uuid IS NULL OR id > $1::uuid) ORDER BY id LIMIT $2
     )
     SELECT e.id AS "endpointId", e."accountId", e."scheduleVersion", e."nextRunId" AS "runId",
            e."nextRunAt" AS "scheduledAt", e."nextRunSource" AS source,
            (e."archivedAt" IS NULL AND j.status = 'active' AND e."nextRunAt" IS NOT NULL
             AND e."nextRunId" IS NOT NULL) AS planned
       FROM page e LEFT JOIN jobs j ON j.id = e."jobId"
      ORDER BY e.id`,
    [afterId, limit],
  );
  return {
    planned: rows.flatMap(({ planned, ...run }) => (planned ? [run] : [])),
    nextAfterId: rows.length < limit ? null : rows[rows.length - 1]!.endpointId,
  };
}

/**
 * Which of these planned run ids are already recorded: their endpoint's recompute after the run
 * was lost, so the reconcile sweep recomputes them instead of re-adding (and re-calling) that run.
 */
export async function listRecordedRunIds(db: Database, runIds: string[]): Promise<Set<string>> {
  if (runIds.length === 0) return new Set();
  const { rows } = await db.pool.query<{ id: string }>(`SELECT id FROM runs WHERE id = ANY($1::uuid[])`, [runIds]);
  return new Set(rows.map((row) => row.id));
}

/**
 * Locks the planned runs' endpoints (skipping rows a recompute holds right now) and passes on those
 * whose version is still the one the caller saw; the caller re-adds their due jobs before `fn` returns
 * and the transaction commits.
 */
export async function withLockedPlannedRuns<T>(
  db: Database,
  planned: PlannedRun[],
  fn: (locked: PlannedRun[]) => Promise<T>,
): Promise<T> {
  const client: pg.PoolClient = await db.pool.connect();
  try {
    await client.query('BEGIN');
    const { rows: current } = await client.query<{ id: string; scheduleVersion: number }>(
      `SELECT id, "scheduleVersion" FROM endpoints WHERE id = ANY($1::uuid[]) FOR UPDATE SKIP LOCKED`,
      [planned.map((run) => run.endpointId)],
    );
    const versions = new Map(current.map((row) => [row.id, row.scheduleVersion]));
    const result = await fn(planned.filter((run) => versions.get(run.endpointId) === run.scheduleVersion));
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/**
 * Endpoints whose stored schedule disagrees with their state: a change left dirty for longer than
 * `graceMs` (its notification was lost), an active endpoint with nothing scheduled (unless its
 * active period has ended: then nothing is to be scheduled), or a stopped one
 * (archived, job paused/archived) that still has a planned run. `excludeIds`: rows this sweep
 * already failed to recompute (they still disagree; listing them again would loop).
 */
export async function listEndpointsNeedingRecompute(
  db: Database,
  now: Date,
  graceMs: number,
  limit: number,
  excludeIds: string[] = [],
): Promise<string[]> {
  const { rows } = await db.pool.query<{ id: string }>(
    `SELECT e.id FROM endpoints e JOIN jobs j ON j.id = e."jobId"
      WHERE ((e."scheduleDirtyAt" IS NOT NULL AND e."scheduleDirtyAt" < $1)
         OR (e."archivedAt" IS NULL AND j.status = 'active' AND e."nextRunAt" IS NULL
             AND (e."activeUntil" IS NULL OR e."activeUntil" > $4))
         OR ((e."archivedAt" IS NOT NULL OR j.status <> 'active') AND e."nextRunAt" IS NOT NULL))
        AND e.id <> ALL($3::uuid[])
      LIMIT $2`,
    [new Date(now.getTime() - graceMs), limit, excludeIds, now],
  );
  return rows.map((row) => row.id);
}

/** Marks endpoints as needing a recompute (before the change is published to the scheduler). */
export async function markScheduleDirty(db: Database, endpointIds: string[], now: Date): Promise<void> {
  if (endpointIds.length === 0) return;
  await db.pool.query(`UPDATE endpoints SET "scheduleDirtyAt" = $2 WHERE id = ANY($1::uuid[])`, [endpointIds, now]);
}
