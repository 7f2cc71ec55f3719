/**
 * Job state machine (the job status: active, paused, archived), with these transitions:
 *  - pause/resume are idempotent (pausing a paused job is a no-op that succeeds);
 *  - archive works from active and paused, and is idempotent;
 *  - archived is terminal: pausing, resuming or editing an archived job is a CONFLICT.
 */
import { AppError } from './errors.js';
import type { JobStatus } from './schemas/job.js';

export type JobAction = 'pause' | 'resume' | 'archive';

const TRANSITIONS: Record<JobAction, Partial<Record<JobStatus, JobStatus>>> = {
  pause: { active: 'paused', paused: 'paused' },
  resume: { paused: 'active', active: 'active' },
  archive: { active: 'archived', paused: 'archived', archived: 'archived' },
};

export function nextJobStatus(current: JobStatus, action: JobAction): JobStatus {
  const next = TRANSITIONS[action][current];
  if (!next) {
    throw new AppError('CONFLICT', `cannot ${action} an ${current} job; archived jobs are read-only`, {
      status: current,
    });
  }
  return next;
}
