/**
 * Query keys and fetchers of the job pages. Keys are prefixes: invalidating JOBS_KEY refreshes
 * every page and filter of the job list.
 */
import { api, unwrap, type Schemas } from '../api/client';
import { unwrapPage } from './job-pager';

export type Job = Schemas['Job'];
export type JobStatus = Job['status'];

export const JOBS_KEY = ['jobs'] as const;
export const jobKey = (jobId: string) => ['job', jobId] as const;
export const jobEndpointsKey = (jobId: string) => ['job-endpoints', jobId] as const;
/** The endpoint as the edit form loads it (other pages may use their own keys; invalidate both). */
export const endpointKey = (endpointId: string) => ['endpoint', endpointId] as const;

export const JOBS_PAGE_SIZE = 50;
export const ENDPOINTS_PAGE_SIZE = 100;

export function fetchJobs(status: JobStatus | null, offset: number) {
  return unwrapPage(
    api.GET('/api/jobs', {
      params: { query: { limit: JOBS_PAGE_SIZE, offset, ...(status ? { status } : {}) } },
    }),
  );
}

export function fetchJob(jobId: string) {
  return unwrap(api.GET('/api/jobs/{jobId}', { params: { path: { jobId } } }));
}

export function fetchJobEndpoints(jobId: string, offset: number, includeArchived: boolean) {
  return unwrapPage(
    api.GET('/api/jobs/{jobId}/endpoints', {
      params: {
        path: { jobId },
        query: { limit: ENDPOINTS_PAGE_SIZE, offset, includeArchived: includeArchived ? 'true' : 'false' },
      },
    }),
  );
}
