import { createJobInput, jobRecord, listJobsQuery, updateJobInput, type JobRecord } from '@kairos/core';
import { z } from 'zod';
import { fetchPage, unwrap } from '@kairos/client';
import type { JobAction } from '@kairos/core';
import { CHANGE, IDEMPOTENT_CHANGE, READ_ONLY, asOutput, defineListTool, defineTool, idArg } from '../tool.js';

const jobId = idArg('job');
const job = asOutput(jobRecord);
const describeJob = (record: JobRecord) => `Job "${record.name}" (${record.id}) is ${record.status}`;

const jobActionResult = z.object({ success: z.literal(true), job: jobRecord });

const ACTIONS: Record<JobAction, { name: string; title: string; description: string; destructive: boolean }> = {
  pause: {
    name: 'pauseJob',
    title: 'Pause a job',
    description: 'Pauses a job: none of its endpoints execute until resumeJob. Idempotent.',
    destructive: false,
  },
  resume: {
    name: 'resumeJob',
    title: 'Resume a job',
    description: 'Resumes a paused job: its endpoints run again on their schedules. Idempotent.',
    destructive: false,
  },
  archive: {
    name: 'archiveJob',
    title: 'Archive a job',
    description:
      'Archives a job and all its endpoints: they stop for good (archived is final and read-only). Idempotent.',
    destructive: true,
  },
};

export const jobTools = [
  defineTool({
    name: 'createJob',
    title: 'Create a job',
    description:
      'Creates a job: a named container of endpoints (HTTP requests on schedules). Status starts active. ' +
      'Add endpoints with addEndpoint. The description explains the job and how its endpoints coordinate ' +
      '(the AI planner reads it).',
    // createJob takes name and description, as its documented arguments say; updateJob sets a key.
    input: createJobInput.omit({ key: true }),
    output: job,
    annotations: CHANGE,
    run: (api, body) => unwrap(api.POST('/api/jobs', { body })),
    summarize: (record) => `Created job "${record.name}" (${record.id}), status ${record.status}.`,
  }),
  defineListTool({
    name: 'listJobs',
    title: 'List jobs',
    description: 'Lists the jobs of the account, newest first, optionally only those in one status.',
    input: z.strictObject(listJobsQuery.shape),
    key: 'jobs',
    item: jobRecord,
    list: (api, { offset, limit, ...filter }) =>
      fetchPage((page) => api.GET('/api/jobs', { params: { query: { ...filter, ...page } } }), { offset, limit }),
  }),
  defineTool({
    name: 'getJob',
    title: 'Get a job',
    description: 'One job: name, description, status, endpoint count and timestamps.',
    input: z.strictObject({ id: jobId }),
    output: job,
    annotations: READ_ONLY,
    run: (api, args) => unwrap(api.GET('/api/jobs/{jobId}', { params: { path: { jobId: args.id } } })),
    summarize: (record) => `${describeJob(record)}, with ${record.endpointCount} endpoints.`,
  }),
  defineTool({
    name: 'updateJob',
    title: 'Update a job',
    description: 'Changes the name and/or description of a job (description null clears it).',
    input: z.strictObject({ id: jobId, ...updateJobInput.shape }),
    output: job,
    annotations: IDEMPOTENT_CHANGE,
    run: (api, { id, ...body }) => unwrap(api.PATCH('/api/jobs/{jobId}', { params: { path: { jobId: id } }, body })),
    summarize: (record) => `Updated job "${record.name}" (${record.id}).`,
  }),
  ...(Object.entries(ACTIONS) as [JobAction, (typeof ACTIONS)[JobAction]][]).map(([action, doc]) =>
    defineTool({
      name: doc.name,
      title: doc.title,
      description: doc.description,
      input: z.strictObject({ id: jobId }),
      output: jobActionResult,
      annotations: { ...IDEMPOTENT_CHANGE, destructiveHint: doc.destructive },
      run: (api, args) => unwrap(api.POST(`/api/jobs/{jobId}/${action}`, { params: { path: { jobId: args.id } } })),
      summarize: (result) => `${describeJob(result.job)}.`,
    }),
  ),
];
