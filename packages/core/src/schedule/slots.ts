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
