/**
 * Scheduling control (pause and hints, and how they combine): the
 * input shapes, the checks a pause or hint must pass, and the records the API answers with.
 *
 * The checks are pure functions of the endpoint's state and `now`, shared by the API, the MCP
 * server and the planner's tools, so a hint is refused where it is proposed, not silently dropped
 * later by the governor. What they refuse:
 *  - a pause whose end is not in the future (pausedUntil null resumes instead);
 *  - interval hints on cron endpoints (adaptive intervals need baselineIntervalMs);
 *  - a one-shot at or after its own expiry, or one the minIntervalMs floor would push past its
 *    expiry: either would never run.
 * What they accept: an interval outside minIntervalMs..maxIntervalMs (the governor clamps it at
 * scheduling time; `clampedIntervalMs` says what will apply), and a one-shot time in the past,
 * which means "as soon as possible" and is stored as `now` (a past time at or before the last
 * scheduled run would count as already consumed, see schedule/next-run.ts).
 */
import { z } from 'zod';
import { timestamp } from './common.js';
import type { FieldIssue } from './endpoint.js';
import { LIMITS } from './limits.js';
import { endpointRecord } from './records.js';

export const SCHEDULING_LIMITS = {
  reasonMaxLength: 500,
  /** Hints always expire; seven days is the longest TTL (typical TTLs are 15 to 60 minutes). */
  hintTtlMaxMinutes: 10_080,
} as const;

const MS_PER_MINUTE = 60_000;

const reasonText = z
  .string()
  .trim()
  .max(SCHEDULING_LIMITS.reasonMaxLength, `must be at most ${SCHEDULING_LIMITS.reasonMaxLength} characters`);

const requiredReason = reasonText
  .min(1, 'must not be empty')
  .meta({ description: `Why (shown on the endpoint; at most ${SCHEDULING_LIMITS.reasonMaxLength} characters)` });

const ttlMinutes = z
  .number({ error: 'must be a number of minutes' })
  .positive('must be greater than 0')
  .max(SCHEDULING_LIMITS.hintTtlMaxMinutes, `must be at most ${SCHEDULING_LIMITS.hintTtlMaxMinutes} minutes (7 days)`)
  .meta({
    description: `Minutes until the hint expires and the baseline applies again (fractions allowed; at most ${SCHEDULING_LIMITS.hintTtlMaxMinutes}, 7 days)`,
    example: 30,
  });

export const pauseEndpointInput = z
  .strictObject({
    pausedUntil: timestamp.nullable().meta({
      description: 'Pause until this time (must be in the future); null resumes immediately and clears the reason',
    }),
    reason: reasonText
      .nullable()
      .optional()
      .meta({
        description: `Why the endpoint is paused (at most ${SCHEDULING_LIMITS.reasonMaxLength} characters)`,
      }),
  })
  .meta({ id: 'PauseEndpointInput' });

export const intervalHintInput = z
  .strictObject({
    intervalMs: z
      .number({ error: 'must be a number of milliseconds' })
      .int('must be a whole number of milliseconds')
      .min(LIMITS.intervalMinMs, `intervalMs must be at least ${LIMITS.intervalMinMs} ms`)
      .max(LIMITS.intervalMaxMs, `intervalMs must be at most ${LIMITS.intervalMaxMs} ms`)
      .meta({
        description:
          'Temporary interval between runs; replaces the baseline (and its backoff) until the hint expires. ' +
          'Clamped to minIntervalMs/maxIntervalMs when scheduling. Interval-baseline endpoints only.',
        example: 30000,
      }),
    ttlMinutes,
    reason: requiredReason,
  })
  .meta({ id: 'IntervalHintInput' });

export const oneShotHintInput = z
  .strictObject({
    nextRunAt: timestamp.meta({
      description: 'When to run once; a time in the past means as soon as possible. Must be before the expiry.',
    }),
    ttlMinutes,
    reason: requiredReason,
  })
  .meta({ id: 'OneShotHintInput' });

export type PauseEndpointInput = z.infer<typeof pauseEndpointInput>;
export type IntervalHintInput = z.infer<typeof intervalHintInput>;
export type OneShotHintInput = z.infer<typeof oneShotHintInput>;

/** The parts of an endpoint's state the checks read. */
export interface HintTarget {
  baselineCron: string | null;
  minIntervalMs: number | null;
  maxIntervalMs: number | null;
  /** Start of the latest scheduled run: the min/max clamps are relative to it. */
  lastRunAt: Date | null;
}

export type HintCheck<T> = { ok: true; value: T } | { ok: false; issues: FieldIssue[] };

/** When a hint set at `now` with this TTL expires (millisecond precision, as stored). */
export function hintExpiresAt(now: Date, ttlMinutes: number): Date {
  return new Date(now.getTime() + Math.round(ttlMinutes * MS_PER_MINUTE));
}

/** The interval the governor applies: not below minIntervalMs, not above maxIntervalMs (min wins). */
export function clampIntervalMs(
  intervalMs: number,
  minIntervalMs: number | null,
  maxIntervalMs: number | null,
): number {
  let clamped = intervalMs;
  if (maxIntervalMs !== null && clamped > maxIntervalMs) clamped = maxIntervalMs;
  if (minIntervalMs !== null && clamped < minIntervalMs) clamped = minIntervalMs;
  return clamped;
}

/** A pause must end in the future; null (resume) is always valid. */
export function checkPause(pausedUntil: Date | null, now: Date): HintCheck<{ pausedUntil: Date | null }> {
  if (pausedUntil !== null && pausedUntil.getTime() <= now.getTime()) {
    return {
      ok: false,
      issues: [
        {
          field: 'pausedUntil',
          message: `pausedUntil (${pausedUntil.toISOString()}) must be in the future; send null to resume now`,
        },
      ],
    };
  }
  return { ok: true, value: { pausedUntil } };
}

export function checkIntervalHint(
  target: HintTarget,
  input: { intervalMs: number; ttlMinutes: number },
  now: Date,
): HintCheck<{ intervalMs: number; clampedIntervalMs: number; expiresAt: Date }> {
  if (target.baselineCron !== null) {
    return {
      ok: false,
      issues: [
        {
          field: 'intervalMs',
          message:
            'cron-scheduled endpoints do not support interval hints; adaptive interval behaviour needs baselineIntervalMs',
        },
      ],
    };
  }
  return {
    ok: true,
    value: {
      intervalMs: input.intervalMs,
      clampedIntervalMs: clampIntervalMs(input.intervalMs, target.minIntervalMs, target.maxIntervalMs),
      expiresAt: hintExpiresAt(now, input.ttlMinutes),
    },
  };
}

export function checkOneShotHint(
  target: HintTarget,
  input: { nextRunAt: Date; ttlMinutes: number },
  now: Date,
): HintCheck<{ nextRunAt: Date; expiresAt: Date }> {
  const expiresAt = hintExpiresAt(now, input.ttlMinutes);
  const nextRunAt = input.nextRunAt.getTime() < now.getTime() ? now : input.nextRunAt;
  if (nextRunAt.getTime() >= expiresAt.getTime()) {
    return {
      ok: false,
      issues: [
        {
          field: 'nextRunAt',
          message: `nextRunAt (${nextRunAt.toISOString()}) is not before the hint's expiry (${expiresAt.toISOString()}), so it would never run; lengthen ttlMinutes`,
        },
      ],
    };
  }
  if (target.lastRunAt !== null && target.minIntervalMs !== null) {
    const earliest = new Date(target.lastRunAt.getTime() + target.minIntervalMs);
    if (earliest.getTime() >= expiresAt.getTime()) {
      return {
        ok: false,
        issues: [
          {
            field: 'ttlMinutes',
            message: `minIntervalMs allows the next run at ${earliest.toISOString()} at the earliest, after the hint's expiry (${expiresAt.toISOString()}), so it would never run; lengthen ttlMinutes`,
          },
        ],
      };
    }
  }
  return { ok: true, value: { nextRunAt, expiresAt } };
}

const isoTime = z.string().meta({ format: 'date-time', description: 'ISO 8601 UTC timestamp' });
const actionResult = { success: z.literal(true), endpoint: endpointRecord };

export const pauseResult = z
  .object({
    ...actionResult,
    pausedUntil: isoTime.nullable().meta({ description: 'The pause end; null when the endpoint was resumed' }),
  })
  .meta({ id: 'PauseResult' });

export const intervalHintResult = z
  .object({
    ...actionResult,
    intervalMs: z.number().int().meta({ description: 'The interval as requested' }),
    clampedIntervalMs: z
      .number()
      .int()
      .meta({ description: 'The interval that applies after the minIntervalMs/maxIntervalMs clamps' }),
    expiresAt: isoTime,
  })
  .meta({ id: 'IntervalHintResult' });

export const oneShotHintResult = z
  .object({
    ...actionResult,
    nextRunAt: isoTime.meta({ description: 'The one-shot time as stored (a past request time becomes now)' }),
    expiresAt: isoTime,
  })
  .meta({ id: 'OneShotHintResult' });

export const clearHintsResult = z.object(actionResult).meta({ id: 'ClearHintsResult' });

export const resetFailuresResult = z
  .object({ ...actionResult, failureCount: z.literal(0) })
  .meta({ id: 'ResetFailuresResult' });
