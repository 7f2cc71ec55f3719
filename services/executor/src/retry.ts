/**
 * Retries inside a run (opt-in): the attempts of one admitted execution, between the
 * admission (which took the running lock for every attempt: executionBudgetMs) and the recording
 * (which sees one run). The rules are in retry-policy.ts. An endpoint without `retry` makes exactly
 * one call here, with no extra read or write (the hot path is unchanged).
 *
 * The run records every attempt (`attempts`); its other fields describe the last one, except
 * startedAt, the first attempt's start: lateness, lastRunAt and the min/max clamps measure the run,
 * not its retries. The failure count and the failure backoff move once, when the run is recorded.
 *
 * Not overlapping the next slot: before each retry the endpoint's scheduling inputs are read (one
 * query, only then) and its next planned run computed as if this run succeeded (the earliest it can
 * be); a retry that could not end before it, or before the lock's lease, is not made and the run
 * ends failed with the reason appended to its errorMessage. A pause, an archive or a paused job seen
 * at that read ends the retries the same way.
 *
 * Crash recovery: before each wait the attempts so far are written to Redis under the run id. A
 * delivery of the same run after a crash (BullMQ's stalled-job retry, or a shutdown hand-back) reads
 * them, waits what is left of the wait, and goes on from the next attempt, so a kill adds at most
 * the call that was in flight (the at-least-once window every run has, ARCHITECTURE.md), never a
 * new series. When the next attempt may no longer start, that delivery records the run from the
 * last attempt written, without calling. The run is recorded once (its id), as always.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { computeJitteredNextRun, type RunAttemptRecord } from '@kairos/core';
import type { Database } from '@kairos/db';
import { loadRetrySchedule, type ExecutionTarget } from '@kairos/db/system';
import type { RedisConnection } from '@kairos/queue';
import type { HttpOutcome } from './http/index.js';
import {
  NEXT_SLOT_MARGIN_MS,
  executionBudgetMs,
  isRetryable,
  nextWait,
  overrunNote,
  parseRetryAfterMs,
  type RetryDeadline,
} from './retry-policy.js';

/** A crashed delivery comes back within ≈30 s (queue-workers.ts, DELIVERY_LOCK); a minute more keeps the attempts for it. */
const PROGRESS_GRACE_MS = 60_000;

export interface RetryDeps {
  db: Database;
  redis: RedisConnection;
  prefix: string;
  now: () => Date;
  /** Waits between attempts (tests replace it to stop a run mid-series, as a crash would). */
  sleep?: (ms: number) => Promise<void>;
}

/** The run's calls: the outcome it records (the last attempt, startedAt the first's) and every attempt, or null without retry. */
export interface CalledRun {
  outcome: HttpOutcome;
  attempts: RunAttemptRecord[] | null;
}

export interface RunIdentity {
  id: string;
  scheduledAt: Date;
  source: string;
}

interface Progress {
  startedAt: string;
  attempts: RunAttemptRecord[];
}

export class Retries {
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly deps: RetryDeps) {
    this.sleep = deps.sleep ?? ((ms) => delay(ms));
  }

  key(runId: string): string {
    return `${this.deps.prefix}:attempts:${runId}`;
  }

  /** Calls the endpoint once, or with `retry` set as often as the rules allow (see above). */
  async call(target: ExecutionTarget, run: RunIdentity, callOnce: () => Promise<HttpOutcome>): Promise<CalledRun> {
    const settings = target.retry;
    if (settings === null) return { outcome: await callOnce(), attempts: null };
    const { now } = this.deps;
    // The lock was taken (or taken over) for the budget just before: its end, less nothing (the
    // lock's own 30 s margin covers the record).
    const leaseEnd = new Date(now().getTime() + executionBudgetMs(target));
    const progress = await this.loadProgress(run.id);
    const attempts = progress?.attempts ?? [];
    let startedAt = progress ? new Date(progress.startedAt) : null;

    if (progress && attempts.length > 0) {
      const last = attempts.at(-1)!;
      const dueMs = Date.parse(last.startedAt) + last.durationMs + (last.nextAttemptInMs ?? 0);
      const waitMs = Math.max(0, dueMs - now().getTime());
      // (The setting may have changed since: fewer attempts end the series here.)
      const stop =
        attempts.length > settings.attempts
          ? `retries exhausted: ${attempts.length} attempts`
          : await this.checkNext(target, run, attempts.length + 1, waitMs, startedAt!, leaseEnd);
      if (stop !== null) return finish(outcomeOf(last), attempts, startedAt!, stop);
      await this.sleep(waitMs);
    }

    for (;;) {
      const outcome = await callOnce();
      startedAt ??= outcome.startedAt;
      const retryAfterMs = parseRetryAfterMs(outcome.retryAfter, outcome.completedAt);
      const attempt = toAttempt(outcome, attempts.length + 1, retryAfterMs);
      attempts.push(attempt);
      if (!isRetryable(outcome)) return finish(outcome, attempts, startedAt, null);
      const wait = nextWait(settings, attempts.length, retryAfterMs);
      const stop =
        wait.kind === 'stop'
          ? wait.note
          : await this.checkNext(target, run, attempts.length + 1, wait.waitMs, startedAt, leaseEnd);
      if (wait.kind === 'stop' || stop !== null) return finish(outcome, attempts, startedAt, stop);
      attempt.nextAttemptInMs = wait.waitMs;
      await this.saveProgress(run.id, { startedAt: startedAt.toISOString(), attempts }, target);
      await this.sleep(wait.waitMs);
    }
  }

  /** Why attempt `attempt` (after `waitMs`) may not be made, or null when it may. */
  private async checkNext(
    target: ExecutionTarget,
    run: RunIdentity,
    attempt: number,
    waitMs: number,
    runStartedAt: Date,
    leaseEnd: Date,
  ): Promise<string | null> {
    const now = this.deps.now();
    const schedule = await loadRetrySchedule(this.deps.db, target.id);
    if (schedule === null) return 'not retried: the endpoint is gone';
    if (schedule.archivedAt !== null) return 'not retried: the endpoint was archived';
    if (schedule.jobStatus !== 'active') return `not retried: the job is ${schedule.jobStatus}`;
    if (schedule.pausedUntil !== null && schedule.pausedUntil > now) return 'not retried: the endpoint was paused';
    // The next run as the scheduler would plan it if this run succeeded now (failure backoff only
    // moves it later), before its jitter offset (which only moves it later too).
    const next = computeJitteredNextRun(
      {
        ...schedule,
        failureCount: 0,
        lastScheduledAt: run.scheduledAt,
        lastRunAt: runStartedAt,
        lastScheduledRunId: run.id,
        lastScheduledRunSource: run.source,
      },
      run.id,
      runStartedAt,
    )?.plannedAt;
    // No next run (the endpoint's active period ends first): the lease is the only bound.
    const beforeNext = next === undefined ? Number.POSITIVE_INFINITY : next.getTime() - NEXT_SLOT_MARGIN_MS;
    const deadline: RetryDeadline =
      next !== undefined && beforeNext <= leaseEnd.getTime()
        ? {
            at: new Date(beforeNext),
            label: `the next planned run at ${next.toISOString()} (less ${NEXT_SLOT_MARGIN_MS} ms)`,
          }
        : { at: leaseEnd, label: `the end of the running lock's lease at ${leaseEnd.toISOString()}` };
    return overrunNote(attempt, now, waitMs, target.timeoutMs, deadline);
  }

  private async loadProgress(runId: string): Promise<Progress | null> {
    const stored = await this.deps.redis.get(this.key(runId));
    return stored ? (JSON.parse(stored) as Progress) : null;
  }

  private async saveProgress(runId: string, progress: Progress, target: ExecutionTarget): Promise<void> {
    const ttlMs = executionBudgetMs(target) + PROGRESS_GRACE_MS;
    await this.deps.redis.set(this.key(runId), JSON.stringify(progress), 'PX', ttlMs);
  }
}

function toAttempt(outcome: HttpOutcome, attempt: number, retryAfterMs: number | null): RunAttemptRecord {
  return {
    attempt,
    startedAt: outcome.startedAt.toISOString(),
    durationMs: outcome.durationMs,
    statusCode: outcome.statusCode,
    errorKind: outcome.errorKind,
    errorMessage: outcome.errorMessage,
    retryAfterMs,
    nextAttemptInMs: null,
  };
}

/** A recorded failed attempt as an outcome (a resumed delivery that may not call again; its body was not kept). */
function outcomeOf(attempt: RunAttemptRecord): HttpOutcome {
  const startedAt = new Date(attempt.startedAt);
  return {
    status: 'failed',
    statusCode: attempt.statusCode,
    durationMs: attempt.durationMs,
    startedAt,
    completedAt: new Date(startedAt.getTime() + attempt.durationMs),
    responseBody: null,
    responseFormat: null,
    responseTruncated: false,
    responseBodyAltered: false,
    responseSizeBytes: null,
    errorKind: attempt.errorKind as HttpOutcome['errorKind'],
    errorMessage: attempt.errorMessage,
    finalUrl: null,
  };
}

function finish(outcome: HttpOutcome, attempts: RunAttemptRecord[], startedAt: Date, note: string | null): CalledRun {
  const errorMessage =
    note !== null && outcome.errorMessage !== null ? `${outcome.errorMessage} (${note})` : outcome.errorMessage;
  return { outcome: { ...outcome, startedAt, errorMessage }, attempts };
}
