/**
 * The scheduler's side of the endpoints table, in SQL (hot path: one recompute per execution).
 * A recompute holds the endpoint's row lock (FOR UPDATE) from reading the state until after the
 * pending BullMQ job has been replaced, so two schedulers recomputing one endpoint are serialised
 * and the queue always ends up holding the job of the newest version only.
 */
import type { ScheduleInput } from '@kairos/core';
import type pg from 'pg';
import type { Database } from './client.js';

export interface ScheduleRow extends ScheduleInput {
  id: string;
  accountId: string;
  jobStatus: 'active' | 'paused' | 'archived';
  archivedAt: Date | null;
  scheduleVersion: number;
  nextRunAt: Date | null;
  nextRunId: string | null;
}

export interface ScheduleDecision {
  nextRunAt: Date | null;
  nextRunId: string | null;
  nextRunSource: string | null;
}

const SELECT_FOR_UPDATE = `
  SELECT e.id, e."accountId", j.status AS "jobStatus", e."archivedAt", e."scheduleVersion",
         e."nextRunAt", e."nextRunId",
         e."baselineIntervalMs", e."baselineCron", e.timezone, e."minIntervalMs", e."maxIntervalMs",
         e."failureCount", e."lastScheduledAt", e."lastRunAt", e."createdAt", e."pausedUntil",
         e."hintIntervalMs", e."hintIntervalExpiresAt", e."hintOneShotAt", e."hintOneShotExpiresAt"
    FROM endpoints e JOIN jobs j ON j.id = e."jobId"
   WHERE e.id = $1
     FOR UPDATE OF e`;

const STORE_DECISION = `
  UPDATE endpoints
     SET "nextRunAt" = $2, "nextRunId" = $3, "nextRunSource" = $4,
         "scheduleVersion" = "scheduleVersion" + 1, "scheduleDirtyAt" = NULL
   WHERE id = $1
  RETURNING "scheduleVersion"`;

/**
 * Recomputes one endpoint under its row lock. `decide` turns the locked state into a decision;
 * `apply` replaces the queued job (it runs before COMMIT, still under the lock). Returns null when
 * the endpoint no longer exists.
 */
export async function recomputeEndpoint<T>(
  db: Database,
  endpointId: string,
  decide: (row: ScheduleRow) => ScheduleDecision,
  apply: (row: ScheduleRow, decision: ScheduleDecision, newVersion: number) => Promise<T>,
): Promise<T | null> {
  const client = await db.pool.connect();
  try {
    await client.query('BEGIN');
    const { rows } = await client.query<ScheduleRow>(SELECT_FOR_UPDATE, [endpointId]);
    const row = rows[0];
    if (!row) {
      await client.query('ROLLBACK');
      return null;
    }
    const decision = decide(row);
    const stored = await client.query<{ scheduleVersion: number }>(STORE_DECISION, [
      endpointId,
      decision.nextRunAt,
      decision.nextRunId,
      decision.nextRunSource,
    ]);
    const result = await apply(row, decision, stored.rows[0]!.scheduleVersion);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

export interface PendingExecutionRow {
  id: string;
  accountId: string;
  scheduleVersion: number;
  nextRunAt: Date;
  nextRunId: string;
  nextRunSource: string;
}

/** Active endpoints with a pending execution, in id order after `afterId` (reconcile paging). */
export async function listPendingExecutions(
  db: Database,
  afterId: string | null,
  limit: number,
): Promise<PendingExecutionRow[]> {
  const { rows } = await db.pool.query<PendingExecutionRow>(
    `SELECT e.id, e."accountId", e."scheduleVersion", e."nextRunAt", e."nextRunId", e."nextRunSource"
       FROM endpoints e JOIN jobs j ON j.id = e."jobId"
      WHERE e."archivedAt" IS NULL AND j.status = 'active' AND e."nextRunAt" IS NOT NULL AND e."nextRunId" IS NOT NULL
        AND ($1::uuid IS NULL OR e.id > $1::uuid)
      ORDER BY e.id
      LIMIT $2`,
    [afterId, limit],
  );
  return rows;
}

/**
 * Locks the given endpoints (skipping rows a recompute holds right now) and returns those whose
 * version is still the one the caller saw; the caller re-adds their jobs before `done` commits.
 */
export async function withLockedPendingExecutions<T>(
  db: Database,
  rows: PendingExecutionRow[],
  fn: (locked: PendingExecutionRow[]) => Promise<T>,
): Promise<T> {
  const client: pg.PoolClient = await db.pool.connect();
  try {
    await client.query('BEGIN');
    const { rows: current } = await client.query<{ id: string; scheduleVersion: number }>(
      `SELECT id, "scheduleVersion" FROM endpoints WHERE id = ANY($1::uuid[]) FOR UPDATE SKIP LOCKED`,
      [rows.map((row) => row.id)],
    );
    const versions = new Map(current.map((row) => [row.id, row.scheduleVersion]));
    const result = await fn(rows.filter((row) => versions.get(row.id) === row.scheduleVersion));
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
 * `graceMs` (its notification was lost), an active endpoint with nothing scheduled, or a stopped one
 * (archived, job paused/archived) that still has a pending execution.
 */
export async function listEndpointsNeedingRecompute(
  db: Database,
  now: Date,
  graceMs: number,
  limit: number,
): Promise<string[]> {
  const { rows } = await db.pool.query<{ id: string }>(
    `SELECT e.id FROM endpoints e JOIN jobs j ON j.id = e."jobId"
      WHERE (e."scheduleDirtyAt" IS NOT NULL AND e."scheduleDirtyAt" < $1)
         OR (e."archivedAt" IS NULL AND j.status = 'active' AND e."nextRunAt" IS NULL)
         OR ((e."archivedAt" IS NOT NULL OR j.status <> 'active') AND e."nextRunAt" IS NOT NULL)
      LIMIT $2`,
    [new Date(now.getTime() - graceMs), limit],
  );
  return rows.map((row) => row.id);
}

/** Marks endpoints as needing a recompute (before the change is published to the scheduler). */
export async function markScheduleDirty(db: Database, endpointIds: string[], now: Date): Promise<void> {
  if (endpointIds.length === 0) return;
  await db.pool.query(`UPDATE endpoints SET "scheduleDirtyAt" = $2 WHERE id = ANY($1::uuid[])`, [endpointIds, now]);
}
