/**
 * Runs asked for through the API, outside the scheduler's plan (the manual-runs queue):
 * - Run now and replay (source manual): a real run, not a test. It obeys what a scheduled run obeys
 *   (the endpoint archived, its job not active or its account disabled: no run; the month's runs quota;
 *   the running lock: while another run of the endpoint is in progress it is skipped, as an
 *   overlapping slot is) and is recorded as a scheduled run is: failureCount, backoff, lastRunAt,
 *   response rules, notifications, run-completed (the scheduler then plans the next run) and the
 *   planner. Its headers / body overrides apply to this call alone.
 * - Backfill (source backfill): one past slot of the baseline, scheduledAt the slot's time. It takes the
 *   running lock and counts against the quota, but is recorded as a run only, leaving the endpoint's
 *   scheduling state alone (a run of last week must not move the schedule or its failure count). While
 *   another run holds the lock it waits (`overlap`: the worker delays the job) rather than being dropped.
 * A run id, or a backfill slot, that is recorded already is not called again (a redelivery).
 */
import type { Database } from '@kairos/db';
import {
  backfillSlotRecorded,
  loadExecutionTarget,
  runRecorded,
  type ExecutionTarget,
  type RunOutcome,
} from '@kairos/db/system';
import { currentTraceparent, type ManualRunPayload, type RequestOverrides } from '@kairos/queue';
import { judgeCall, withRuleOutcome } from './response-rules.js';
import { executionBudgetMs } from './retry-policy.js';
import { callEndpoint, toRun, type ExecuteDeps } from './run-execution.js';
import type { RunQuota } from './run-quota.js';
import type { RunningLock } from './running-lock.js';

/** The version a manual run holds the running lock under: no planned run has it. */
export const MANUAL_RUN_VERSION = -1;

export type ManualRunResult =
  | { kind: 'recorded'; run: RunOutcome }
  | {
      kind: 'skipped';
      reason: 'missing' | 'archived' | 'job-not-active' | 'account-disabled' | 'recorded' | 'quota' | 'overlap';
    };

export interface ManualRunDeps extends ExecuteDeps {
  lock: RunningLock;
  runQuota: RunQuota;
}

/** The endpoint with this run's overrides: headers merged (case-insensitive names), body replaced. */
export function withOverrides(target: ExecutionTarget, overrides: RequestOverrides | undefined): ExecutionTarget {
  if (!overrides) return target;
  let headers = target.headers;
  if (overrides.headers) {
    const replaced = new Set(Object.keys(overrides.headers).map((name) => name.toLowerCase()));
    headers = {
      ...Object.fromEntries(Object.entries(target.headers ?? {}).filter(([name]) => !replaced.has(name.toLowerCase()))),
      ...overrides.headers,
    };
  }
  return { ...target, headers, ...(overrides.body === undefined ? {} : { body: overrides.body }) };
}

export async function executeManualRun(
  deps: ManualRunDeps,
  payload: ManualRunPayload,
  attempt: number,
): Promise<ManualRunResult> {
  const { db, lock, runQuota } = deps;
  const target = await loadExecutionTarget(db, payload.endpointId);
  if (!target || target.accountId !== payload.accountId) return { kind: 'skipped', reason: 'missing' };
  if (target.archivedAt) return { kind: 'skipped', reason: 'archived' };
  if (target.jobStatus !== 'active') return { kind: 'skipped', reason: 'job-not-active' };
  if (target.accountDisabled) return { kind: 'skipped', reason: 'account-disabled' };
  const scheduledAt = new Date(payload.scheduledAtMs);
  const backfill = payload.source === 'backfill';
  if (await alreadyRecorded(db, payload, scheduledAt)) return { kind: 'skipped', reason: 'recorded' };
  if ((await runQuota.check(target, deps.now())) === 'exhausted') return { kind: 'skipped', reason: 'quota' };
  const leaseMs = lock.leaseMs(executionBudgetMs(target));
  if (!(await lock.admit(target.id, payload.runId, MANUAL_RUN_VERSION, leaseMs))) {
    return { kind: 'skipped', reason: 'overlap' };
  }
  const called = withOverrides(target, payload.overrides);
  let run: RunOutcome;
  try {
    run = await deps.callSlots(target.maxResponseSizeKb, async (callEnded) => {
      const rules = deps.responseRules.of(target.responseRules);
      const call = async () => judgeCall(rules, await callEndpoint(deps, called, payload.runId, scheduledAt));
      const result = await deps.retries.call(called, { id: payload.runId, scheduledAt, source: payload.source }, call);
      callEnded();
      const outcome = {
        ...toRun(target, payload.runId, payload.source, scheduledAt, result.outcome, attempt, result.attempts),
        // Recorded with the run: a replay repeats its overrides.
        ...(payload.replayOf ? { replayOf: payload.replayOf } : {}),
        ...(payload.overrides ? { requestOverrides: payload.overrides } : {}),
      };
      // A backfilled slot's rules are listed, but do not act on today's schedule.
      return withRuleOutcome(rules, outcome, !backfill);
    });
  } catch (error) {
    await lock.release(target.id, payload.runId, MANUAL_RUN_VERSION);
    throw error;
  }
  if (backfill) {
    try {
      run = await deps.recorder.recordTest(run);
    } finally {
      await lock.release(target.id, payload.runId, MANUAL_RUN_VERSION);
    }
  } else {
    // The recorder frees the lock and announces the run (run-completed: the scheduler plans the next run).
    run = (
      await deps.recorder.record({
        run,
        scheduleVersion: MANUAL_RUN_VERSION,
        aiSchedulingEnabled: target.aiSchedulingEnabled,
        traceparent: currentTraceparent(),
      })
    ).run;
  }
  return { kind: 'recorded', run };
}

function alreadyRecorded(db: Database, payload: ManualRunPayload, scheduledAt: Date): Promise<boolean> {
  return payload.source === 'backfill'
    ? backfillSlotRecorded(db, payload.endpointId, scheduledAt)
    : runRecorded(db, payload.runId);
}
