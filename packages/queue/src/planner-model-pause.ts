/**
 * The planner's pause of model calls, shared by every planner of an installation and shown by the
 * api (GET /api/account, aiPlanner). A planner that sees the model fail too often in a row (or be
 * told by a 429 to wait longer than an analysis can) stops calling it until `pausedUntil`
 * (services/planner/src/model-pause.ts), instead of every endpoint making its own call per backoff
 * step. One key under the queues' prefix, holding `{ pausedUntil, reason }`; it expires at
 * `pausedUntil`, so a pause ends by itself even when no planner is left to lift it.
 */
import type { RedisConnection } from './connection.js';

export interface PlannerModelPause {
  pausedUntil: Date;
  reason: string;
}

export const plannerModelPauseKey = (prefix: string): string => `${prefix}:planner-model-paused`;

export async function pausePlannerModel(
  redis: RedisConnection,
  prefix: string,
  pause: PlannerModelPause,
  now: Date,
): Promise<void> {
  const ms = Math.max(1, pause.pausedUntil.getTime() - now.getTime());
  const value = JSON.stringify({ pausedUntil: pause.pausedUntil.toISOString(), reason: pause.reason });
  await redis.set(plannerModelPauseKey(prefix), value, 'PX', ms);
}

/** The pause in force at `now`, or null. */
export async function readPlannerModelPause(
  redis: RedisConnection,
  prefix: string,
  now: Date,
): Promise<PlannerModelPause | null> {
  const value = await redis.get(plannerModelPauseKey(prefix));
  if (value === null) return null;
  try {
    const parsed = JSON.parse(value) as { pausedUntil: string; reason: string };
    const pausedUntil = new Date(parsed.pausedUntil);
    return pausedUntil > now ? { pausedUntil, reason: String(parsed.reason) } : null;
  } catch {
    return null;
  }
}
