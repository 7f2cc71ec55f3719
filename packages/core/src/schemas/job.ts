import { z } from 'zod';
import { descriptionText, pagingQuery, resourceKey, trimmedName } from './common.js';
import { LIMITS } from './limits.js';

export const JOB_STATUSES = ['active', 'paused', 'archived'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export const createJobInput = z
  .strictObject({
    name: trimmedName.meta({ description: 'What the job is', example: 'Nightly exports' }),
    description: descriptionText.optional().meta({ description: 'Explains the job and how its endpoints coordinate' }),
    key: resourceKey.optional().meta({ description: 'Stable name for configuration files, unique per account' }),
  })
  .meta({ id: 'CreateJobInput' });

export const updateJobInput = z
  .strictObject({
    name: trimmedName.optional(),
    description: descriptionText.nullable().optional().meta({ description: 'null clears it' }),
    key: resourceKey.nullable().optional().meta({ description: 'Stable name, unique per account; null clears it' }),
  })
  .meta({ id: 'UpdateJobInput' });

export const listJobsQuery = pagingQuery(LIMITS.listDefaultLimit).extend({
  status: z.enum(JOB_STATUSES).optional().meta({ description: 'Only jobs in this status' }),
  key: resourceKey.optional().meta({ description: 'Only the job with this key' }),
});

export type CreateJobInput = z.infer<typeof createJobInput>;
export type UpdateJobInput = z.infer<typeof updateJobInput>;
export type ListJobsQuery = z.infer<typeof listJobsQuery>;
