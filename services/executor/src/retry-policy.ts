/**
 * Retries inside a run (opt-in per endpoint): the pure rules; services/executor/src/retry.ts
 * runs the attempts. With `retry` null (the default) none of this applies: one call per run.
 *
 * - Retried: connection errors, timeouts, 5xx and 429, the failures a later call may not repeat. Not
 *   other 4xx (the request itself is wrong), not a blocked target or an invalid request (the same
 *   call would be refused again), not a redirect loop.
 * - Wait before retry n: backoffBaseMs × 2^(n−1), at most backoffCapMs. A Retry-After header
 *   (delta-seconds or an HTTP date) is honoured: the wait is at least what it asks, within the cap; a
 *   longer Retry-After ends the retries (the target said it will not be ready in time) and the run
 *   is recorded failed, saying so. No random jitter on the wait: the attempts of one run are one
 *   client's, and runs of many endpoints are already spread by the endpoint's jitterMs when wanted;
 *   a deterministic wait also keeps the run's recorded waits explainable.
 * - Retries never overlap the next slot: an attempt starts only if it can end, with its full
 *   timeoutMs, NEXT_SLOT_MARGIN_MS before the endpoint's next planned run (as planned if this run
 *   succeeded: the earliest it can be) and before the running lock's lease ends. Otherwise the run
 *   ends with the last attempt's failure, its errorMessage saying why retrying stopped.
 */
import { RETRY_LIMITS, type RetrySettings } from '@kairos/core';
import type { HttpOutcome } from './http/index.js';

/**
 * Time left between the end of the last attempt and the next planned run: the record, the
 * run-completed event and the scheduler's recompute take milliseconds, batched at most tens (bench);
 * one second keeps the next slot's job from being queued while the run is still open.
 */
export const NEXT_SLOT_MARGIN_MS = 1000;

/** Whether a failed attempt may be followed by another (see above). */
export function isRetryable(outcome: HttpOutcome): boolean {
  if (outcome.status === 'success') return false;
  if (outcome.errorKind === 'timeout' || outcome.errorKind === 'network') return true;
  const code = outcome.statusCode;
  return outcome.errorKind === 'http_status' && code !== null && (code === 429 || code >= 500);
}

/** The wait before retry `retry` (1 for the first retry): base × 2^(retry−1), capped. */
export function backoffDelayMs(settings: RetrySettings, retry: number): number {
  return Math.min(settings.backoffBaseMs * 2 ** (retry - 1), settings.backoffCapMs);
}

/**
 * A Retry-After value in milliseconds from `now`: delta-seconds ("120") or an HTTP date
 * ("Wed, 21 Oct 2026 07:28:00 GMT"; a past date is 0). Null when absent or unreadable (then the
 * backoff alone decides).
 */
export function parseRetryAfterMs(value: string | null | undefined, now: Date): number | null {
  const text = value?.trim();
  if (!text) return null;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // An HTTP date is an IMF-fixdate (RFC 9110 §5.6.7), which Date.parse reads; a bare number was handled above.
  if (!/[a-z]/i.test(text)) return null;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - now.getTime());
}

/**
 * How long an admitted execution may keep its endpoint busy, before the lock's margin: its call's
 * timeout, or with retries every attempt's timeout and every wait at its cap. At most
 * 6 × 300 s + 5 × 300 s = 55 min by RETRY_LIMITS; the retry window also ends at this lease.
 */
export function executionBudgetMs(target: { timeoutMs: number; retry: RetrySettings | null }): number {
  const { timeoutMs, retry } = target;
  if (retry === null) return timeoutMs;
  const attempts = Math.min(retry.attempts, RETRY_LIMITS.attemptsMax);
  return (attempts + 1) * timeoutMs + attempts * Math.min(retry.backoffCapMs, RETRY_LIMITS.backoffCapMaxMs);
}

export type RetryWait = { kind: 'wait'; waitMs: number } | { kind: 'stop'; note: string };

/**
 * After retryable failed attempt number `attemptsMade`: the wait before the next one, or why there is
 * none (the note ends the run's errorMessage).
 */
export function nextWait(settings: RetrySettings, attemptsMade: number, retryAfterMs: number | null): RetryWait {
  if (attemptsMade > settings.attempts) return { kind: 'stop', note: `retries exhausted: ${attemptsMade} attempts` };
  if (retryAfterMs !== null && retryAfterMs > settings.backoffCapMs) {
    return {
      kind: 'stop',
      note:
        `not retried: Retry-After asks for ${retryAfterMs} ms, more than retry.backoffCapMs ` +
        `(${settings.backoffCapMs}); attempt ${attemptsMade} of ${settings.attempts + 1}`,
    };
  }
  return { kind: 'wait', waitMs: Math.max(backoffDelayMs(settings, attemptsMade), retryAfterMs ?? 0) };
}

/** The latest end of any attempt, and what it is (for the note). */
export interface RetryDeadline {
  at: Date;
  label: string;
}

/**
 * Why attempt `attempt` may not start after `waitMs` from `now` (it could run past the deadline with
 * its full timeout), or null when it may.
 */
export function overrunNote(
  attempt: number,
  now: Date,
  waitMs: number,
  timeoutMs: number,
  deadline: RetryDeadline,
): string | null {
  if (now.getTime() + waitMs + timeoutMs <= deadline.at.getTime()) return null;
  return (
    `not retried: attempt ${attempt} (after a ${waitMs} ms wait, up to timeoutMs ${timeoutMs}) could not end ` +
    `before ${deadline.label}; retries never overlap it`
  );
}
