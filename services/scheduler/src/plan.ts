import { computeJitteredNextRun, newId } from '@kairos/core';
import type { ScheduleDecision, ScheduleRow } from '@kairos/db';

/**
 * What the endpoint's one pending execution should be, from its locked row: nothing when it is
 * archived or its job is not active; otherwise the policy's next run with a fresh run id. The id is
 * made first because the endpoint's jitter offset derives from it (core/schedule/jitter.ts): the
 * stored nextRunAt is the jittered time, so a retried delivery or a reconcile re-add keeps it.
 */
export function decideNextRun(row: ScheduleRow, now: Date): ScheduleDecision {
  if (row.archivedAt !== null || row.jobStatus !== 'active') {
    return { nextRunAt: null, nextRunId: null, nextRunSource: null };
  }
  const nextRunId = newId();
  const next = computeJitteredNextRun(row, nextRunId, now);
  return { nextRunAt: next.nextRunAt, nextRunId, nextRunSource: next.source };
}
