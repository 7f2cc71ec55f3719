/**
 * Backoff after consecutive failed runs.
 *
 * The failure count passed in is the count AFTER the latest outcome, so the first failure already
 * doubles the wait. The multiplier applies to the baseline only; an active interval hint overrides
 * the baseline including its backoff (see next-run.ts).
 */

/** 2^5 = 32x is the cap, reached at 5 consecutive failures. */
const MAX_BACKOFF_EXPONENT = 5;

/** 0 -> 1, 1 -> 2, 2 -> 4, 3 -> 8, 4 -> 16, 5 or more -> 32. Non-positive or NaN counts give 1. */
export function backoffMultiplier(failureCount: number): number {
  if (!(failureCount > 0)) return 1;
  return 2 ** Math.min(MAX_BACKOFF_EXPONENT, Math.floor(failureCount));
}
