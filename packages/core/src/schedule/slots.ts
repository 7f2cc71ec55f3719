/**
 * Baseline and interval-hint slots, with missed slots collapsed into one run.
 *
 * Slots come from the anchor (the planned time of the latest run, not its start time), so runs
 * that start late do not drift: a 60 s interval averages exactly 60 s.
 *
 * Two rules keep catch-up to a single run (never a burst):
 * - A slot at or before `lastRunAt` is served: the last run started after it was due. Only slots
 *   after `lastRunAt` are candidates. (In normal operation lateness is far below the step, so this
 *   never skips a slot; it matters when the last run was itself a late catch-up or one-shot run.)
 * - If the first candidate slot is at or before `now` (downtime), all missed slots collapse into
 *   the latest slot at or before `now`, so after that run the following slot is in the future.
 */
import { AppError } from '../errors.js';
import { latestCronTimeAtOrBefore, nextCronTime } from './cron.js';

/** The slot anchor + k × stepMs (k >= 1) to run next. */
export function nextIntervalSlot(anchor: Date, stepMs: number, lastRunAt: Date | null, now: Date): Date {
  if (!(stepMs > 0)) throw new AppError('VALIDATION_ERROR', `interval must be positive, got ${stepMs} ms`);
  const anchorMs = anchor.getTime();
  const firstUnservedStep =
    lastRunAt === null ? 1 : Math.max(1, Math.floor((lastRunAt.getTime() - anchorMs) / stepMs) + 1);
  const latestStepAtOrBeforeNow = Math.floor((now.getTime() - anchorMs) / stepMs);
  return new Date(anchorMs + Math.max(firstUnservedStep, latestStepAtOrBeforeNow) * stepMs);
}

/**
 * The cron occurrence to run next. With backoff (multiplier > 1), occurrences are skipped: the run
 * is the first occurrence at or after anchor + multiplier × (next occurrence after anchor − anchor),
 * so an hourly expression with 2 failures (4x) runs every 4th hour.
 */
export function nextCronSlot(
  expression: string,
  timezone: string,
  anchor: Date,
  multiplier: number,
  lastRunAt: Date | null,
  now: Date,
): Date {
  let slot = nextCronTime(expression, timezone, anchor);
  if (multiplier > 1) {
    const backoffFromMs = anchor.getTime() + multiplier * (slot.getTime() - anchor.getTime());
    slot = nextCronTime(expression, timezone, new Date(backoffFromMs - 1));
  }
  if (lastRunAt !== null && slot <= lastRunAt) slot = nextCronTime(expression, timezone, lastRunAt);
  if (slot <= now) slot = latestCronTimeAtOrBefore(expression, timezone, now, slot) ?? slot;
  return slot;
}

/** What runs for slots missed while the scheduler was away (an endpoint's `missedRuns`). */
export const MISSED_RUNS = ['latest', 'skip', 'all'] as const;
export type MissedRuns = (typeof MISSED_RUNS)[number];

/**
 * A slot counts as missed for `skip` once it is this far behind the time the scheduler plans at: a slot
 * planned a moment late (a recompute after a run takes milliseconds) is late, not missed, and runs.
 */
export const MISSED_SLOT_GRACE_MS = 5_000;

/** With `all`, at most this many missed slots run, the most recent ones, oldest first. */
export const MAX_MISSED_RUNS = 100;

/**
 * The interval slot to run next under a missed-runs policy. `latest` is nextIntervalSlot. `skip`: when the
 * first slot not served yet is missed (older than MISSED_SLOT_GRACE_MS), the first slot after `now`.
 * `all`: every slot after the anchor runs once, oldest first (a run's start does not serve the slots
 * before it, as it does under `latest`); more than MAX_MISSED_RUNS behind, the catch-up starts at the
 * MAX_MISSED_RUNS-th most recent.
 */
export function nextIntervalSlotMissing(
  anchor: Date,
  stepMs: number,
  lastRunAt: Date | null,
  now: Date,
  missed: MissedRuns,
): Date {
  const slot = nextIntervalSlot(anchor, stepMs, lastRunAt, now);
  const anchorMs = anchor.getTime();
  const latestStep = Math.floor((now.getTime() - anchorMs) / stepMs);
  // Every slot after the anchor, oldest first: lastRunAt (a catch-up run's start) serves none of them.
  if (missed === 'all') {
    return latestStep < 1 ? slot : new Date(anchorMs + Math.max(1, latestStep - MAX_MISSED_RUNS + 1) * stepMs);
  }
  if (missed === 'latest' || slot > now) return slot;
  if (missed === 'skip') {
    // The first slot not served yet, before missed slots collapse into the latest (nextIntervalSlot).
    const first = nextIntervalSlot(anchor, stepMs, lastRunAt, anchor);
    return first.getTime() < now.getTime() - MISSED_SLOT_GRACE_MS
      ? new Date(anchorMs + (latestStep + 1) * stepMs)
      : slot;
  }
  return slot;
}

/** nextCronSlot under a missed-runs policy (nextIntervalSlotMissing says what each does). */
export function nextCronSlotMissing(
  expression: string,
  timezone: string,
  anchor: Date,
  multiplier: number,
  lastRunAt: Date | null,
  now: Date,
  missed: MissedRuns,
): Date {
  if (missed === 'all') {
    // Every occurrence after the anchor, oldest first: lastRunAt serves none of them.
    const first = nextCronSlot(expression, timezone, anchor, multiplier, null, new Date(0));
    if (first > now) return nextCronSlot(expression, timezone, anchor, multiplier, lastRunAt, now);
    // Walk back from the latest occurrence at or before now: at most MAX_MISSED_RUNS of them, not before the first.
    let oldest = latestCronTimeAtOrBefore(expression, timezone, now, first) ?? first;
    for (let count = 1; count < MAX_MISSED_RUNS; count += 1) {
      const earlier = latestCronTimeAtOrBefore(expression, timezone, new Date(oldest.getTime() - 1), first);
      if (earlier === null) break;
      oldest = earlier;
    }
    return oldest < first ? first : oldest;
  }
  const slot = nextCronSlot(expression, timezone, anchor, multiplier, lastRunAt, now);
  if (missed === 'skip' && slot <= now) {
    // The first slot not served yet, before missed slots collapse into the latest (nextCronSlot).
    const first = nextCronSlot(expression, timezone, anchor, multiplier, lastRunAt, new Date(0));
    if (first.getTime() < now.getTime() - MISSED_SLOT_GRACE_MS) return nextCronTime(expression, timezone, now);
  }
  return slot;
}

/**
 * The endpoint's baseline slots from `from` to `to` (both included), oldest first, at most `max`
 * (a backfill asks for one more than it allows, to refuse a longer range). A cron's are its
 * occurrences in its time zone; an interval's are its current slots extended backwards: the
 * anchor (the last scheduled run's planned time, else the creation time) plus or minus whole intervals.
 */
export function baselineSlotsBetween(
  endpoint: {
    baselineCron: string | null;
    baselineIntervalMs: number | null;
    timezone: string;
    lastScheduledAt: Date | null;
    createdAt: Date;
  },
  from: Date,
  to: Date,
  max: number,
): Date[] {
  const slots: Date[] = [];
  if (endpoint.baselineCron !== null) {
    for (
      let slot = nextCronTime(endpoint.baselineCron, endpoint.timezone, new Date(from.getTime() - 1));
      slot <= to && slots.length < max;
      slot = nextCronTime(endpoint.baselineCron, endpoint.timezone, slot)
    ) {
      slots.push(slot);
    }
    return slots;
  }
  const stepMs = endpoint.baselineIntervalMs;
  if (stepMs === null || !(stepMs > 0)) return slots;
  const anchorMs = (endpoint.lastScheduledAt ?? endpoint.createdAt).getTime();
  for (
    let slotMs = anchorMs + Math.ceil((from.getTime() - anchorMs) / stepMs) * stepMs;
    slotMs <= to.getTime() && slots.length < max;
    slotMs += stepMs
  ) {
    slots.push(new Date(slotMs));
  }
  return slots;
}
