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
 *
 * Calendars (calendar.ts; opt-in): no run starts before activeFrom, inside a blackout window, or at
 * or after activeUntil. A run the rules above would start inside a window (its time, or `now` when
 * overdue) is planned again with the window's end as a floor: a baseline or interval-hint run at the
 * first slot at or after it (a cron's next time, the interval's next slot on its grid), a one-shot
 * or a pause end at the end itself; a hint whose moved run reaches its expiry does not apply, as
 * above. The window wins over the max clamp. The explanation names the window (`calendar`). Past
 * activeUntil, or with no gap within MAX_CALENDAR_STEPS windows, there is no next run (null).
 */
import { AppError } from '../errors.js';
import { backoffMultiplier } from './backoff.js';
import { findCalendarHold, hasCalendar, type CalendarHold, type CalendarInput } from './calendar.js';
import { nextCronTime } from './cron.js';
import { isHintActive } from './hints.js';
import { nextCronSlotMissing, nextIntervalSlot, nextIntervalSlotMissing, type MissedRuns } from './slots.js';

/** rule-interval / rule: the interval or one-shot hint was set by a response rule (origin rule). */
export type RunSource = 'baseline-cron' | 'baseline-interval' | 'ai-interval' | 'ai-oneshot' | 'rule-interval' | 'rule';
export type ScheduleRule = 'paused' | 'one-shot' | 'interval-hint' | 'cron' | 'interval';
export type ClampKind = 'min' | 'max';

export interface ScheduleInput extends CalendarInput {
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
  /** The calendar window that moved the run (absent: none did). */
  calendar?: CalendarHold;
}

export interface NextRun {
  /** Planned time of the next run; at or before `now` means overdue: run at once, once. */
  nextRunAt: Date;
  source: RunSource;
  explanation: NextRunExplanation;
}

/** How many windows the rules step past before giving up: a calendar with no gap in sight plans no run. */
const MAX_CALENDAR_STEPS = 100;

/** The next run; null only when the endpoint's calendar leaves no time to run (calendar.ts). */
export function computeNextRun(input: ScheduleInput, now: Date): NextRun | null {
  if (!hasCalendar(input)) return computeRun(input, now, null);
  const activeUntil = input.activeUntil ?? null;
  let hold: CalendarHold | null = null;
  for (let step = 0; step < MAX_CALENDAR_STEPS; step++) {
    const run = computeRun(input, now, hold?.to ?? null);
    const startsAt = run.nextRunAt > now ? run.nextRunAt : now;
    if (activeUntil !== null && startsAt >= activeUntil) return null;
    // Each window found ends after startsAt, which is at or after the previous one's end: the floor only rises.
    const found = findCalendarHold(input, input.timezone, startsAt);
    if (found === null) return hold === null ? run : { ...run, explanation: { ...run.explanation, calendar: hold } };
    hold = found;
  }
  return null;
}

/** The rules without the calendar, no run before `notBefore` (a window's end) when given. */
function computeRun(input: ScheduleInput, now: Date, notBefore: Date | null): NextRun {
  const { pausedUntil } = input;
  if (pausedUntil !== null && pausedUntil > now) {
    const floor = latest(minFloor(input), notBefore);
    const endsAt = floor !== null && floor > pausedUntil ? floor : pausedUntil;
    const resumed = selectRun(input, endsAt);
    const isLaterOneShot = resumed.source === 'ai-oneshot' && resumed.nextRunAt > endsAt;
    return {
      nextRunAt: endsAt,
      source: isLaterOneShot ? selectRun({ ...input, hintOneShotAt: null }, endsAt).source : resumed.source,
      explanation: {
        rule: 'paused',
        backoffMultiplier: 1,
        clamped:
          endsAt === pausedUntil || (notBefore !== null && endsAt.getTime() === notBefore.getTime()) ? null : 'min',
        pausedUntil,
        hintExpired: resumed.explanation.hintExpired,
      },
    };
  }
  return selectRun(input, now, notBefore);
}

function latest(a: Date | null, b: Date | null): Date | null {
  if (a === null) return b;
  return b !== null && b > a ? b : a;
}

/** The first slot anchor + k × stepMs (k >= 0) at or after `at`. */
function slotAtOrAfter(anchor: Date, stepMs: number, at: Date): Date {
  const steps = Math.max(0, Math.ceil((at.getTime() - anchor.getTime()) / stepMs));
  return new Date(anchor.getTime() + steps * stepMs);
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

/** Rules 2-5 with clamps, no run before `notBefore` when given. */
function selectRun(input: ScheduleInput, now: Date, notBefore: Date | null = null): NextRun {
  const oneShot = describeOneShot(input, now);
  let hintExpired = oneShot.kind === 'expired';
  if (oneShot.kind === 'applicable') {
    const clamped = clampToWindow(latest(oneShot.at, notBefore)!, input, now, notBefore);
    if (clamped.at < oneShot.expiresAt) {
      return buildRun(clamped, input.hintOneShotOrigin === 'rule' ? 'rule' : 'ai-oneshot', 'one-shot', 1, false);
    }
    hintExpired = true; // the min clamp pushes it past its expiry
  }

  const anchor = input.lastScheduledAt ?? input.createdAt;
  const multiplier = backoffMultiplier(input.failureCount);
  const { baselineCron, baselineIntervalMs } = input;

  if (baselineCron !== null) {
    let slot = nextCronSlotMissing(
      baselineCron,
      input.timezone,
      anchor,
      multiplier,
      input.lastRunAt,
      now,
      missedRunsOf(input),
    );
    if (notBefore !== null && slot < notBefore) {
      slot = nextCronTime(baselineCron, input.timezone, new Date(notBefore.getTime() - 1));
    }
    return buildRun(clampToWindow(slot, input, now, notBefore), 'baseline-cron', 'cron', multiplier, hintExpired);
  }
  if (baselineIntervalMs === null) {
    throw new AppError('VALIDATION_ERROR', 'endpoint has neither baselineCron nor baselineIntervalMs', {
      field: 'baselineIntervalMs',
    });
  }

  let hintEndsAt: Date | null = null;
  if (input.hintIntervalMs !== null) {
    const expiresAt = input.hintIntervalExpiresAt;
    if (expiresAt !== null && isHintActive(expiresAt, now)) {
      let slot = nextIntervalSlot(anchor, input.hintIntervalMs, input.lastRunAt, now);
      if (notBefore !== null && slot < notBefore) slot = slotAtOrAfter(anchor, input.hintIntervalMs, notBefore);
      const clamped = clampToWindow(slot, input, now, notBefore);
      if (clamped.at < expiresAt) {
        const source = input.hintIntervalOrigin === 'rule' ? 'rule-interval' : 'ai-interval';
        return buildRun(clamped, source, 'interval-hint', 1, hintExpired);
      }
      hintEndsAt = expiresAt;
    }
    hintExpired = true;
  }

  // An interval endpoint starts executing at once (it starts executing immediately on its
  // baseline): before its first scheduled run, the creation time itself is the slot.
  if (!(baselineIntervalMs > 0)) {
    throw new AppError('VALIDATION_ERROR', 'baselineIntervalMs must be positive', { field: 'baselineIntervalMs' });
  }
  const stepMs = baselineIntervalMs * multiplier;
  let slot =
    input.lastScheduledAt === null
      ? input.createdAt
      : nextIntervalSlotMissing(anchor, stepMs, input.lastRunAt, now, missedRunsOf(input));
  if (notBefore !== null && slot < notBefore) slot = slotAtOrAfter(anchor, stepMs, notBefore);
  const candidate = hintEndsAt !== null && hintEndsAt > slot ? hintEndsAt : slot;
  return buildRun(
    clampToWindow(candidate, input, now, notBefore),
    'baseline-interval',
    'interval',
    multiplier,
    hintExpired,
  );
}

/** The endpoint's missed-runs policy; anything but skip and all is latest (today's behaviour). */
const missedRunsOf = ({ missedRuns }: ScheduleInput): MissedRuns =>
  missedRuns === 'skip' || missedRuns === 'all' ? missedRuns : 'latest';

interface ClampedTime {
  at: Date;
  clamped: ClampKind | null;
}

/** The min/max clamps; a calendar window's end (`notBefore`) wins over the max clamp. */
function clampToWindow(candidate: Date, input: ScheduleInput, now: Date, notBefore: Date | null): ClampedTime {
  const { lastRunAt, maxIntervalMs } = input;
  if (lastRunAt === null) return { at: candidate, clamped: null };
  let atMs = candidate.getTime();
  let clamped: ClampKind | null = null;
  if (maxIntervalMs !== null) {
    const ceilingMs = Math.max(lastRunAt.getTime() + maxIntervalMs, now.getTime(), notBefore?.getTime() ?? 0);
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
