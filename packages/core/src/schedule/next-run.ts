/**
 * The next run of an endpoint: the scheduling rules, as one pure function of the
 * endpoint's scheduling state and `now`.
 *
 * Priority (first match wins):
 * 1. paused (pausedUntil > now): the pause-until time, run once (the executor judges the pause
 *    against the run's planned time: services/executor/src/admission.ts). Not cut by the max clamp
 *    (it must not cut a pause short); the min clamp holds (a floor only moves the pause end later,
 *    to the time the rules give once the pause is over). The source is what rules 2-5 give at the
 *    pause end; a one-shot gives it only when due by then (that run is the one-shot's and uses it
 *    up), a later one still runs at its own time.
 * 2. one-shot hint active: the one-shot time, even if already past (overdue: it runs once).
 * 3. interval hint active, endpoint on an interval baseline: anchor + hint interval, no backoff.
 *    If that slot would fall at or after the hint's expiry, the hint is ignored and the baseline
 *    runs, but not before the expiry (the hint governs until it ends).
 * 4. baselineCron: next occurrence in the endpoint's zone, occurrences skipped under backoff.
 * 5. baselineIntervalMs: anchor + baseline × backoff multiplier; the first run is due at creation.
 * Anchor = lastScheduledAt ?? createdAt; missed slots collapse into one run (slots.ts).
 *
 * Clamps (rules 2-5, only once a run has happened), relative to lastRunAt:
 * - max: not later than lastRunAt + maxIntervalMs. If that is already past, the run is simply
 *   due now: the ceiling is max(lastRunAt + maxIntervalMs, now), so an overdue slot is never moved
 *   further into the past (which would only move the next anchor back).
 * - min: not sooner than lastRunAt + minIntervalMs. Applied last, so when min > max (invalid
 *   input) the safety floor wins.
 *
 * Hints never run after their TTL: a hint whose (clamped) run would fall at or after its expiry is
 * ignored, as is an expired one; both are reported as `hintExpired`. A one-shot at or before
 * lastScheduledAt is consumed (that run, or a later one, already executed) and ignored, so a hint
 * the scheduler failed to clear cannot fire again. Cron endpoints ignore interval hints
 * (adaptive intervals need a baseline interval); with both baselines set, cron wins, as in the priority table.
 */
import { AppError } from '../errors.js';
import { backoffMultiplier } from './backoff.js';
import { isHintActive } from './hints.js';
import { nextCronSlotMissing, nextIntervalSlot, nextIntervalSlotMissing, type MissedRuns } from './slots.js';

/** rule-interval / rule: the interval or one-shot hint was set by a response rule (origin rule). */
export type RunSource = 'baseline-cron' | 'baseline-interval' | 'ai-interval' | 'ai-oneshot' | 'rule-interval' | 'rule';
export type ScheduleRule = 'paused' | 'one-shot' | 'interval-hint' | 'cron' | 'interval';
export type ClampKind = 'min' | 'max';

export interface ScheduleInput {
  baselineIntervalMs: number | null;
  baselineCron: string | null;
  /** IANA zone of baselineCron; 'UTC' by default. */
  timezone: string;
  minIntervalMs: number | null;
  maxIntervalMs: number | null;
  /** Consecutive failures, already updated for the latest outcome. */
  failureCount: number;
  /** Planned time of the latest scheduled run that executed (the interval anchor). */
  lastScheduledAt: Date | null;
  /** Actual start time of that run (clamps are relative to it). */
  lastRunAt: Date | null;
  /** The anchor when nothing has run yet. */
  createdAt: Date;
  pausedUntil: Date | null;
  hintIntervalMs: number | null;
  hintIntervalExpiresAt: Date | null;
  hintOneShotAt: Date | null;
  hintOneShotExpiresAt: Date | null;
  /** Who set each hint; only `rule` changes anything (the run's source). Absent: user or planner. */
  hintIntervalOrigin?: string | null;
  hintOneShotOrigin?: string | null;
  /**
   * What runs for baseline slots missed while the scheduler was away (slots.ts): latest (absent: one run,
   * the latest slot), skip (none: the next slot in the future) or all (each once, oldest first).
   */
  missedRuns?: MissedRuns | string | null;
}

export interface NextRunExplanation {
  rule: ScheduleRule;
  /** 1 when not applied. */
  backoffMultiplier: number;
  clamped: ClampKind | null;
  pausedUntil: Date | null;
  /** A hint was present but ignored because of its TTL (judged at the instant the rules ran). */
  hintExpired: boolean;
}

export interface NextRun {
  /** Planned time of the next run; at or before `now` means overdue: run at once, once. */
  nextRunAt: Date;
  source: RunSource;
  explanation: NextRunExplanation;
}

export function computeNextRun(input: ScheduleInput, now: Date): NextRun {
  const { pausedUntil } = input;
  if (pausedUntil !== null && pausedUntil > now) {
    const floor = minFloor(input);
    const endsAt = floor !== null && floor > pausedUntil ? floor : pausedUntil;
    const resumed = selectRun(input, endsAt);
    const isLaterOneShot = resumed.source === 'ai-oneshot' && resumed.nextRunAt > endsAt;
    return {
      nextRunAt: endsAt,
      source: isLaterOneShot ? selectRun({ ...input, hintOneShotAt: null }, endsAt).source : resumed.source,
      explanation: {
        rule: 'paused',
        backoffMultiplier: 1,
        clamped: endsAt === pausedUntil ? null : 'min',
        pausedUntil,
        hintExpired: resumed.explanation.hintExpired,
      },
    };
  }
  return selectRun(input, now);
}

/** lastRunAt + minIntervalMs: the earliest the next run may start (null: no floor yet). */
function minFloor({ lastRunAt, minIntervalMs }: ScheduleInput): Date | null {
  return lastRunAt === null || minIntervalMs === null ? null : new Date(lastRunAt.getTime() + minIntervalMs);
}

export type OneShotState =
  | { kind: 'absent' }
  /** At or before lastScheduledAt: it (or a later run) already executed. */
  | { kind: 'consumed' }
  /** Expired, without an expiry, or due at or after its expiry. */
  | { kind: 'expired' }
  | { kind: 'applicable'; at: Date; expiresAt: Date };

/** Whether the one-shot hint will run at `now`'s evaluation, and if not, why. */
export function describeOneShot(input: ScheduleInput, now: Date): OneShotState {
  const { hintOneShotAt: at, hintOneShotExpiresAt: expiresAt, lastScheduledAt } = input;
  if (at === null) return { kind: 'absent' };
  if (lastScheduledAt !== null && at <= lastScheduledAt) return { kind: 'consumed' };
  if (expiresAt === null || !isHintActive(expiresAt, now) || at >= expiresAt) return { kind: 'expired' };
  return { kind: 'applicable', at, expiresAt };
}

/** Rules 2-5 with clamps. */
function selectRun(input: ScheduleInput, now: Date): NextRun {
  const oneShot = describeOneShot(input, now);
  let hintExpired = oneShot.kind === 'expired';
  if (oneShot.kind === 'applicable') {
    const clamped = clampToWindow(oneShot.at, input, now);
    if (clamped.at < oneShot.expiresAt) {
      return buildRun(clamped, input.hintOneShotOrigin === 'rule' ? 'rule' : 'ai-oneshot', 'one-shot', 1, false);
    }
    hintExpired = true; // the min clamp pushes it past its expiry
  }

  const anchor = input.lastScheduledAt ?? input.createdAt;
  const multiplier = backoffMultiplier(input.failureCount);
  const { baselineCron, baselineIntervalMs } = input;

  if (baselineCron !== null) {
    const slot = nextCronSlotMissing(
      baselineCron,
      input.timezone,
      anchor,
      multiplier,
      input.lastRunAt,
      now,
      missedRunsOf(input),
    );
    return buildRun(clampToWindow(slot, input, now), 'baseline-cron', 'cron', multiplier, hintExpired);
  }
  if (baselineIntervalMs === null) {
    throw new AppError('VALIDATION_ERROR', 'endpoint has neither baselineCron nor baselineIntervalMs', {
      field: 'baselineIntervalMs',
    });
  }

  let notBefore: Date | null = null;
  if (input.hintIntervalMs !== null) {
    const expiresAt = input.hintIntervalExpiresAt;
    if (expiresAt !== null && isHintActive(expiresAt, now)) {
      const slot = nextIntervalSlot(anchor, input.hintIntervalMs, input.lastRunAt, now);
      const clamped = clampToWindow(slot, input, now);
      if (clamped.at < expiresAt) {
        const source = input.hintIntervalOrigin === 'rule' ? 'rule-interval' : 'ai-interval';
        return buildRun(clamped, source, 'interval-hint', 1, hintExpired);
      }
      notBefore = expiresAt;
    }
    hintExpired = true;
  }

  // An interval endpoint starts executing at once (it starts executing immediately on its
  // baseline): before its first scheduled run, the creation time itself is the slot.
  if (!(baselineIntervalMs > 0)) {
    throw new AppError('VALIDATION_ERROR', 'baselineIntervalMs must be positive', { field: 'baselineIntervalMs' });
  }
  const slot =
    input.lastScheduledAt === null
      ? input.createdAt
      : nextIntervalSlotMissing(anchor, baselineIntervalMs * multiplier, input.lastRunAt, now, missedRunsOf(input));
  const candidate = notBefore !== null && notBefore > slot ? notBefore : slot;
  return buildRun(clampToWindow(candidate, input, now), 'baseline-interval', 'interval', multiplier, hintExpired);
}

/** The endpoint's missed-runs policy; anything but skip and all is latest (today's behaviour). */
const missedRunsOf = ({ missedRuns }: ScheduleInput): MissedRuns =>
  missedRuns === 'skip' || missedRuns === 'all' ? missedRuns : 'latest';

interface ClampedTime {
  at: Date;
  clamped: ClampKind | null;
}

function clampToWindow(candidate: Date, input: ScheduleInput, now: Date): ClampedTime {
  const { lastRunAt, maxIntervalMs } = input;
  if (lastRunAt === null) return { at: candidate, clamped: null };
  let atMs = candidate.getTime();
  let clamped: ClampKind | null = null;
  if (maxIntervalMs !== null) {
    const ceilingMs = Math.max(lastRunAt.getTime() + maxIntervalMs, now.getTime());
    if (atMs > ceilingMs) {
      atMs = ceilingMs;
      clamped = 'max';
    }
  }
  const floor = minFloor(input);
  if (floor !== null && atMs < floor.getTime()) {
    atMs = floor.getTime();
    clamped = 'min';
  }
  return { at: new Date(atMs), clamped };
}

function buildRun(
  time: ClampedTime,
  source: RunSource,
  rule: ScheduleRule,
  multiplier: number,
  hintExpired: boolean,
): NextRun {
  return {
    nextRunAt: time.at,
    source,
    explanation: { rule, backoffMultiplier: multiplier, clamped: time.clamped, pausedUntil: null, hintExpired },
  };
}
