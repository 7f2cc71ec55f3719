import { createJobInput, jobRecord, listJobsQuery, updateJobInput, type JobAction } from '@kairos/core';
import { createJob, getJob, listJobs, transitionJob, updateJob } from '@kairos/db';
import { z } from 'zod';
import { audit, changeDetails } from '../audit.js';
import type { RouteRegistry } from '../http/route.js';
import { assertJobQuota } from '../quotas.js';
import { toJobRecord } from '../presenters.js';
import { errorResponses, pageHeaderDocs, pageHeaders } from './common.js';
import type { ApiDeps } from './deps.js';

const jobActionResult = z.object({ success: z.literal(true), job: jobRecord }).meta({ id: 'JobActionResult' });

const ACTION_DOCS: Record<JobAction, string> = {
  archive: 'Archives the job and all its endpoints (they stop for good). Archived is final; idempotent.',
  pause: 'Pauses the job: none of its endpoints execute until it is resumed. Idempotent.',
  resume: 'Resumes a paused job: its endpoints run again on their schedules. Idempotent.',
};

const ACTION_PAST: Record<JobAction, string> = { archive: 'archived', pause: 'paused', resume: 'resumed' };

export function registerJobRoutes(routes: RouteRegistry, deps: ApiDeps): void {
  const { db } = deps;
  const tags = ['Jobs'];

  routes.add(
    {
      method: 'post',
      path: '/api/jobs',
      operationId: 'createJob',
      summary: 'Create a job',
      tags,
      description:
        'Refused with 403 QUOTA_EXCEEDED (quota maxJobs) when the account has its maximum of jobs; 409 CONFLICT ' +
        '(details.field key) when another job of the account has the key.',
      body: createJobInput,
      responses: {
        201: { description: 'The new job (status active)', schema: jobRecord },
        ...errorResponses(400, 409),
      },
    },
    async ({ auth, body }) => {
      await assertJobQuota(db, await deps.accountLimits.get(auth.accountId), auth.accountId);
      const job = await createJob(db, auth.accountId, body);
      await audit(deps, auth, 'job.created', { type: 'job', id: job.id }, { name: job.name });
      return { status: 201, body: toJobRecord(job) };
    },
  );

  routes.add(
    {
      method: 'get',
      path: '/api/jobs',
      operationId: 'listJobs',
      summary: 'List jobs, newest first',
      tags,
      query: listJobsQuery,
      responses: {
        200: {
          description: 'A page of jobs',
          schema: z.array(jobRecord),
          headers: pageHeaderDocs('Jobs matching the filter'),
        },
        ...errorResponses(400),
      },
    },
    async ({ auth, query, req }) => {
      const { jobs, total } = await listJobs(db, auth.accountId, query);
      return {
        body: jobs.map(toJobRecord),
        headers: pageHeaders(req, { ...query, total }, deps.config.KAIROS_PUBLIC_URL),
      };
    },
  );

  routes.add(
    {
      method: 'get',
      path: '/api/jobs/:jobId',
      operationId: 'getJob',
      summary: 'Get a job',
      tags,
      responses: { 200: { description: 'The job', schema: jobRecord }, ...errorResponses(404) },
    },
    async ({ auth, params }) => ({ body: toJobRecord(await getJob(db, auth.accountId, params.jobId!)) }),
  );

  routes.add(
    {
      method: 'patch',
      path: '/api/jobs/:jobId',
      operationId: 'updateJob',
      summary: 'Update a job (name, description)',
      tags,
      body: updateJobInput,
      responses: { 200: { description: 'The updated job', schema: jobRecord }, ...errorResponses(400, 404, 409) },
    },
    async ({ auth, params, body }) => {
      const before = toJobRecord(await getJob(db, auth.accountId, params.jobId!));
      const job = toJobRecord(await updateJob(db, auth.accountId, params.jobId!, body));
      await audit(
        deps,
        auth,
        'job.updated',
        { type: 'job', id: job.id },
        changeDetails(Object.keys(body), before, job),
      );
      return { body: job };
    },
  );

  for (const action of ['archive', 'pause', 'resume'] as const) {
    routes.add(
      {
        method: 'post',
        path: `/api/jobs/:jobId/${action}`,
        operationId: `${action}Job`,
        summary: `${action[0]!.toUpperCase()}${action.slice(1)} a job`,
        description: ACTION_DOCS[action],
        tags,
        responses: {
          200: { description: 'The job after the change', schema: jobActionResult },
          ...errorResponses(404, 409),
        },
      },
      async ({ auth, params }) => {
        const { job, changed, affectedEndpointIds } = await transitionJob(
          db,
          auth.accountId,
          params.jobId!,
          action,
          deps.now(),
        );
        if (changed) {
          await deps.notifier.notify(affectedEndpointIds, `job-${action}`);
          await audit(deps, auth, `job.${ACTION_PAST[action]}`, { type: 'job', id: job.id });
        }
        return { body: { success: true, job: toJobRecord(job) } };
      },
    );
  }
}
