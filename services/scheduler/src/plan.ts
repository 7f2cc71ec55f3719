import { computeJitteredNextRun, newId } from '@kairos/core';
import type { NextRun, ScheduleRow } from '@kairos/db';

/**
 * What the endpoint's planned run should be, from its locked row: none when it is archived or its
 * job is not active; otherwise the policy's next run.
 *
 * A slot keeps one identity: when the row's planned run has not been recorded yet (lastScheduledAt
 * is before it) and the policy, computed with that run's id, gives its time again, the run id stays.
 * A recompute racing that slot's execution (a run-completed retried after a scheduler restart, a
 * reconcile of a dirty row, two replicas) then queues the same run again, never a second run of the
 * slot: the executor refuses a due job whose slot is recorded (admission.ts) and a second call under the
 * same id is recorded once. Otherwise a fresh run id, made before the time because the endpoint's
 * jitter offset derives from it (core/schedule/jitter.ts): the stored nextRunAt is the jittered
 * time, so a retried delivery or a reconcile re-add keeps it.
 */
export function decideNextRun(row: ScheduleRow, now: Date): NextRun | null {
  if (row.archivedAt !== null || row.jobStatus !== 'active') return null;
  const planned = row.nextRunId !== null && row.nextRunAt !== null ? { id: row.nextRunId, at: row.nextRunAt } : null;
  if (planned && (row.lastScheduledAt === null || row.lastScheduledAt < planned.at)) {
    const again = computeJitteredNextRun(row, planned.id, now);
    if (again.nextRunAt.getTime() === planned.at.getTime()) {
      return { runId: planned.id, scheduledAt: again.nextRunAt, source: again.source };
    }
  }
  const runId = newId();
  const next = computeJitteredNextRun(row, runId, now);
  return { runId, scheduledAt: next.nextRunAt, source: next.source };
}
