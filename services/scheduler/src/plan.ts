import { computeNextRun, newId } from '@kairos/core';
import type { ScheduleDecision, ScheduleRow } from '@kairos/db';

/**
 * What the endpoint's one pending execution should be, from its locked row: nothing when it is
 * archived or its job is not active; otherwise the policy's next run with a fresh run id.
 */
export function decideNextRun(row: ScheduleRow, now: Date): ScheduleDecision {
  if (row.archivedAt !== null || row.jobStatus !== 'active') {
    return { nextRunAt: null, nextRunId: null, nextRunSource: null };
  }
  const next = computeNextRun(row, now);
  return { nextRunAt: next.nextRunAt, nextRunId: newId(), nextRunSource: next.source };
}
