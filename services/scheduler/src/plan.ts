import { computeNextRun, newId } from '@kairos/core';
import type { ScheduleDecision, ScheduleRow } from '@kairos/db';

/**
 * What the endpoint's one pending execution should be, from its locked row: nothing when it is
 * archived or its job is not active; otherwise the policy's next run.
 *
 * A slot keeps one identity: when the policy gives the time of the row's planned run and that run
 * has not been recorded yet (lastScheduledAt is before it), the run id stays. A recompute racing
 * that slot's execution (a run-completed retried after a scheduler restart, a reconcile of a dirty
 * row, two replicas) then queues the same run again, never a second run of the slot: the executor
 * refuses a job whose slot is recorded (admission.ts) and a second call under the same id is
 * recorded once. Otherwise a fresh run id.
 */
export function decideNextRun(row: ScheduleRow, now: Date): ScheduleDecision {
  if (row.archivedAt !== null || row.jobStatus !== 'active') {
    return { nextRunAt: null, nextRunId: null, nextRunSource: null };
  }
  const next = computeNextRun(row, now);
  const samePlannedRun =
    row.nextRunId !== null &&
    row.nextRunAt !== null &&
    row.nextRunAt.getTime() === next.nextRunAt.getTime() &&
    (row.lastScheduledAt === null || row.lastScheduledAt < row.nextRunAt);
  return { nextRunAt: next.nextRunAt, nextRunId: samePlannedRun ? row.nextRunId : newId(), nextRunSource: next.source };
}
