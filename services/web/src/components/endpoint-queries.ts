/**
 * Query keys, fetchers and the mutation hook of the endpoint page. Every key starts with
 * endpointKey(id) (shared with the edit form), so invalidating it refreshes the record, its runs,
 * its health and its analysis sessions at once.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '../api/client';
import { endpointKey, jobEndpointsKey, jobKey, JOBS_KEY } from './job-queries';
import { unwrapPage } from './job-pager';

export type Endpoint = Schemas['Endpoint'];
export type EndpointHealth = Schemas['EndpointHealth'];
export type RunStatusFilter = 'success' | 'failed' | null;

export { endpointKey };
export const endpointRunsKey = (endpointId: string) => [...endpointKey(endpointId), 'runs'] as const;
export const endpointHealthKey = (endpointId: string) => [...endpointKey(endpointId), 'health'] as const;
export const endpointUpcomingKey = (endpointId: string) => [...endpointKey(endpointId), 'upcoming'] as const;

export const RUNS_PAGE_SIZE = 20;
/** The timeline plots this many of the latest runs. */
export const TIMELINE_RUNS = 100;
/** The health window (the API's default). */
export const HEALTH_HOURS = 24;

export function fetchEndpoint(endpointId: string) {
  return unwrap(api.GET('/api/endpoints/{endpointId}', { params: { path: { endpointId } } }));
}

/** The endpoint page lists this many next runs. */
export const UPCOMING_RUNS = 5;

export function fetchUpcomingRuns(endpointId: string) {
  return unwrap(
    api.GET('/api/endpoints/{endpointId}/upcoming', {
      params: { path: { endpointId }, query: { count: UPCOMING_RUNS } },
    }),
  );
}

export function fetchEndpointHealth(endpointId: string) {
  return unwrap(
    api.GET('/api/endpoints/{endpointId}/health', {
      params: { path: { endpointId }, query: { sinceHours: HEALTH_HOURS } },
    }),
  );
}

export function fetchEndpointRuns(endpointId: string, limit: number, offset: number, status: RunStatusFilter) {
  return unwrapPage(
    api.GET('/api/endpoints/{endpointId}/runs', {
      params: { path: { endpointId }, query: { limit, offset, ...(status ? { status } : {}) } },
    }),
  );
}

/**
 * A scheduling action on the endpoint (pause, hints, reset, archive, test): on success the
 * endpoint's queries and the job's lists refresh.
 */
export function useEndpointMutation<TInput, TResult>(
  endpoint: Pick<Endpoint, 'id' | 'jobId'>,
  mutationFn: (input: TInput) => Promise<TResult>,
) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn,
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: endpointKey(endpoint.id) });
      void queryClient.invalidateQueries({ queryKey: jobEndpointsKey(endpoint.jobId) });
      void queryClient.invalidateQueries({ queryKey: jobKey(endpoint.jobId) });
      void queryClient.invalidateQueries({ queryKey: JOBS_KEY });
    },
  });
}
