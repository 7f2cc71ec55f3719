/**
 * Scheduling control writes (pause, hints, reset failures) on one endpoint. Each change runs under
 * the endpoint's row lock, so the check (`decide`, which may throw a VALIDATION_ERROR) sees the
 * state the write replaces: a concurrent PATCH to a cron baseline or an archive cannot slip in
 * between. In the same transaction the next run is planned as the scheduler would plan it
 * (schedule-state.ts, planChangedSchedule), so the endpoint returned, and the action's answer, show
 * the run that will happen. The row is marked schedule-dirty in the same statement; the caller then
 * notifies the scheduler, whose recompute queues that run and clears the mark (a lost notification is
 * found by the reconcile sweep).
 */
import { AppError, notFound, type AiRulesChange } from '@kairos/core';
import type { Database } from './client.js';
import { CLEARED_INTERVAL_HINT, getEndpoint, type EndpointWithJob } from './endpoints.js';
import { planChangedSchedule } from './schedule-state.js';
import { Prisma, type ChangeOrigin, type Endpoint } from './generated/prisma/client.js';

export type ScheduleChange =
  | { kind: 'pause'; pausedUntil: Date | null; reason: string | null; origin: ChangeOrigin }
  | { kind: 'interval-hint'; intervalMs: number; expiresAt: Date; reason: string; origin: ChangeOrigin }
  | { kind: 'one-shot-hint'; nextRunAt: Date; expiresAt: Date; reason: string; origin: ChangeOrigin }
  | { kind: 'clear-hints' }
  | { kind: 'reset-failures' }
  /** The planner's own response rules (core governRulesProposal), stored apart from the user's. */
  | AiRulesChange;

const jsonOrNull = (value: unknown) => (value === null ? Prisma.DbNull : (value as Prisma.InputJsonValue));

const CLEARED_ONE_SHOT_HINT = {
  hintOneShotAt: null,
  hintOneShotExpiresAt: null,
  hintOneShotReason: null,
  hintOneShotOrigin: null,
  hintOneShotSetAt: null,
} as const;

/** The endpoint columns a change writes (`now`: when it was made, the hints' set time). */
export function changeData(change: ScheduleChange, now: Date): Prisma.EndpointUpdateInput {
  switch (change.kind) {
    case 'pause':
      return change.pausedUntil === null
        ? { pausedUntil: null, pauseReason: null, pauseOrigin: null, autoPausedAt: null }
        : {
            pausedUntil: change.pausedUntil,
            pauseReason: change.reason,
            pauseOrigin: change.origin,
            autoPausedAt: null,
          };
    case 'interval-hint':
      return {
        hintIntervalMs: change.intervalMs,
        hintIntervalExpiresAt: change.expiresAt,
        hintIntervalReason: change.reason,
        hintIntervalOrigin: change.origin,
        hintIntervalSetAt: now,
      };
    case 'one-shot-hint':
      return {
        hintOneShotAt: change.nextRunAt,
        hintOneShotExpiresAt: change.expiresAt,
        hintOneShotReason: change.reason,
        hintOneShotOrigin: change.origin,
        hintOneShotSetAt: now,
      };
    case 'clear-hints':
      return { ...CLEARED_INTERVAL_HINT, ...CLEARED_ONE_SHOT_HINT };
    case 'reset-failures':
      return { failureCount: 0 };
    case 'ai-rules':
      return {
        aiRules: jsonOrNull(change.rules),
        ...(change.successWhen === undefined ? {} : { aiSuccessWhen: jsonOrNull(change.successWhen) }),
        aiRulesReason: change.rules === null && !change.successWhen ? null : change.reason,
        aiRulesSetAt: now,
        aiRulesExpiresAt: change.rules === null && !change.successWhen ? null : change.expiresAt,
        aiRulesSessionId: change.sessionId ?? null,
      };
  }
}

/** The endpoint, locked for this transaction. NOT_FOUND for another account's or an unknown one, CONFLICT if archived. */
async function lockEndpoint(tx: Prisma.TransactionClient, accountId: string, endpointId: string): Promise<Endpoint> {
  const [locked] = await tx.$queryRaw<{ id: string }[]>`
    SELECT id FROM endpoints WHERE id = ${endpointId}::uuid AND "accountId" = ${accountId}::uuid FOR UPDATE`;
  if (!locked) throw notFound('endpoint', endpointId);
  const endpoint = await tx.endpoint.findUniqueOrThrow({ where: { id: endpointId } });
  if (endpoint.archivedAt) {
    throw new AppError('CONFLICT', 'archived endpoints cannot be paused, hinted or reset', {
      archivedAt: endpoint.archivedAt.toISOString(),
    });
  }
  return endpoint;
}

/**
 * Applies the change `decide` makes from the locked endpoint. NOT_FOUND for another account's or
 * an unknown endpoint, CONFLICT for an archived one.
 */
export async function changeEndpointSchedule(
  db: Database,
  accountId: string,
  endpointId: string,
  now: Date,
  decide: (endpoint: Endpoint) => ScheduleChange,
): Promise<EndpointWithJob> {
  await db.prisma.$transaction(async (tx) => {
    const endpoint = await lockEndpoint(tx, accountId, endpointId);
    await tx.endpoint.update({
      where: { id: endpointId },
      data: { ...changeData(decide(endpoint), now), scheduleDirtyAt: now },
    });
    await planChangedSchedule((sql, ...values) => tx.$queryRawUnsafe(sql, ...values), endpointId, now);
  });
  return getEndpoint(db, accountId, endpointId);
}

/** The account's AI switches, as read under an endpoint's row lock. */
export interface AiSwitches {
  aiSchedulingEnabled: boolean;
  aiShadowMode: boolean;
  /** The account lets the planner write response rules. */
  aiRules: boolean;
}

/**
 * Applies the changes a planner analysis staged, all or none, in one transaction under the
 * endpoint's row lock: the account's AI switches are read again there (so a switch turned off, or
 * shadow mode turned on, while the analysis ran applies nothing), `judge` sees each proposal against
 * the row as the earlier ones left it and returns the change to write (with the time it was made)
 * or null, and the row is written once, its next run planned as changeEndpointSchedule plans it.
 * NOT_FOUND / CONFLICT as changeEndpointSchedule.
 */
export async function applyPlannerChanges<T>(
  db: Database,
  accountId: string,
  endpointId: string,
  now: Date,
  proposals: readonly T[],
  judge: (proposal: T, endpoint: Endpoint, switches: AiSwitches) => { change: ScheduleChange; at: Date } | null,
): Promise<void> {
  await db.prisma.$transaction(async (tx) => {
    let endpoint = await lockEndpoint(tx, accountId, endpointId);
    const [switches] = await tx.$queryRaw<AiSwitches[]>`
      SELECT "aiSchedulingEnabled", "aiShadowMode", "aiRules" FROM accounts WHERE id = ${accountId}::uuid`;
    if (!switches) throw notFound('account', accountId);
    let data: Prisma.EndpointUpdateInput = {};
    let scheduleChanged = false;
    for (const proposal of proposals) {
      const decided = judge(proposal, endpoint, switches);
      if (decided === null) continue;
      const changed = changeData(decided.change, decided.at);
      endpoint = { ...endpoint, ...changed } as Endpoint;
      data = { ...data, ...changed };
      scheduleChanged ||= decided.change.kind !== 'ai-rules';
    }
    if (scheduleChanged) {
      await tx.endpoint.update({ where: { id: endpointId }, data: { ...data, scheduleDirtyAt: now } });
      await planChangedSchedule((sql, ...values) => tx.$queryRawUnsafe(sql, ...values), endpointId, now);
    } else if (Object.keys(data).length > 0) {
      // The planner's rules alone do not move the next run (the executor reads them with the target).
      await tx.endpoint.update({ where: { id: endpointId }, data });
    }
  });
}

/**
 * A completed analysis renews the planner's rules it did not replace: they lapse `expiresAt`
 * instead (only rules that have not lapsed yet, and only while the account keeps AI rules on and
 * shadow mode off).
 */
export async function renewAiRules(db: Database, endpointId: string, now: Date, expiresAt: Date): Promise<boolean> {
  const { rowCount } = await db.pool.query(
    `UPDATE endpoints e SET "aiRulesExpiresAt" = $3
       FROM accounts a
      WHERE e.id = $1::uuid AND a.id = e."accountId" AND a."aiRules" AND NOT a."aiShadowMode"
        AND a."aiSchedulingEnabled" AND (e."aiRules" IS NOT NULL OR e."aiSuccessWhen" IS NOT NULL)
        AND e."aiRulesExpiresAt" > $2`,
    [endpointId, now, expiresAt],
  );
  return rowCount === 1;
}
