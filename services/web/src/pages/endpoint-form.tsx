/**
 * /jobs/:jobId/endpoints/new (POST) and /endpoints/:endpointId/edit (GET, then PATCH with only
 * the changed fields). On success, the endpoint's page.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api, unwrap } from '../api/client';
import { EndpointForm } from '../components/endpoint-form-fields';
import { buildCreateBody, buildPatchBody, type EndpointValues } from '../components/endpoint-form-request';
import { emptyFormState, formStateFromEndpoint, type Endpoint } from '../components/endpoint-form-state';
import { endpointKey, fetchJob, fetchJobEndpoints, JOBS_KEY, jobEndpointsKey, jobKey } from '../components/job-queries';
import { PageHeading, usePageTitle } from '../components/page-title';
import { Empty, QueryView } from '../components/states';

function useAfterSave() {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  return (endpoint: Endpoint) => {
    void queryClient.invalidateQueries({ queryKey: jobEndpointsKey(endpoint.jobId) });
    void queryClient.invalidateQueries({ queryKey: jobKey(endpoint.jobId) });
    void queryClient.invalidateQueries({ queryKey: JOBS_KEY });
    void queryClient.invalidateQueries({ queryKey: endpointKey(endpoint.id) });
    void navigate(`/endpoints/${endpoint.id}`);
  };
}

/** The job's endpoints a response rule may run (not archived, not this one). */
function useSiblings(jobId: string, endpointId: string | null): { id: string; name: string }[] {
  const endpoints = useQuery({
    queryKey: ['endpoint-form-siblings', jobId],
    queryFn: () => fetchJobEndpoints(jobId, 0, false),
    refetchInterval: false,
    refetchOnWindowFocus: false,
  });
  return (endpoints.data?.items ?? [])
    .filter((endpoint) => endpoint.id !== endpointId)
    .map((endpoint) => ({ id: endpoint.id, name: endpoint.name }));
}

function browserTimezone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

function CreateEndpoint({ jobId }: { jobId: string }) {
  const job = useQuery({ queryKey: jobKey(jobId), queryFn: () => fetchJob(jobId), refetchInterval: false });
  const [initial] = useState(() => emptyFormState(browserTimezone()));
  const afterSave = useAfterSave();
  const siblings = useSiblings(jobId, null);
  usePageTitle('New endpoint', job.data?.name);
  const create = useMutation({
    mutationFn: (values: EndpointValues) =>
      unwrap(api.POST('/api/jobs/{jobId}/endpoints', { params: { path: { jobId } }, body: buildCreateBody(values) })),
    onSuccess: afterSave,
  });
  return (
    <QueryView query={job} what="Loading the job">
      {(data) => (
        <>
          <nav aria-label="Breadcrumb" className="job-breadcrumb">
            <Link to={`/jobs/${jobId}`}>← {data.name}</Link>
          </nav>
          <PageHeading>New endpoint</PageHeading>
          {data.status === 'archived' ? (
            <Empty title="This job is archived.">
              <p>Archived is final: an archived job takes no new endpoints.</p>
            </Empty>
          ) : (
            <EndpointForm
              initial={initial}
              submitLabel="Create endpoint"
              cancelTo={`/jobs/${jobId}`}
              isPending={create.isPending}
              saveError={create.error}
              onSave={(values) => create.mutate(values)}
              rules={{ siblings, endpointId: null }}
            />
          )}
        </>
      )}
    </QueryView>
  );
}

function EditForm({ endpoint }: { endpoint: Endpoint }) {
  const [initial] = useState(() => formStateFromEndpoint(endpoint));
  const afterSave = useAfterSave();
  const siblings = useSiblings(endpoint.jobId, endpoint.id);
  const save = useMutation({
    mutationFn: async (values: EndpointValues) => {
      const patch = buildPatchBody(values, endpoint);
      if (Object.keys(patch).length === 0) return endpoint; // nothing changed: no request
      const path = { jobId: endpoint.jobId, endpointId: endpoint.id };
      return unwrap(api.PATCH('/api/jobs/{jobId}/endpoints/{endpointId}', { params: { path }, body: patch }));
    },
    onSuccess: afterSave,
  });
  return (
    <EndpointForm
      initial={initial}
      submitLabel="Save changes"
      cancelTo={`/endpoints/${endpoint.id}`}
      isPending={save.isPending}
      saveError={save.error}
      onSave={(values) => save.mutate(values)}
      rules={{ siblings, endpointId: endpoint.id }}
    />
  );
}

function EditEndpoint({ endpointId }: { endpointId: string }) {
  // A key of its own, never cached: the form starts from the endpoint as it is now and is not
  // refreshed under the user's typing.
  const endpoint = useQuery({
    queryKey: ['endpoint-form', endpointId],
    queryFn: () => unwrap(api.GET('/api/endpoints/{endpointId}', { params: { path: { endpointId } } })),
    refetchInterval: false,
    refetchOnWindowFocus: false,
    gcTime: 0,
  });
  usePageTitle(endpoint.data ? `Edit ${endpoint.data.name}` : 'Edit', 'Endpoint');
  return (
    <QueryView query={endpoint} what="Loading the endpoint">
      {(data) => (
        <>
          <nav aria-label="Breadcrumb" className="job-breadcrumb">
            <Link to={`/endpoints/${data.id}`}>← {data.name}</Link>
          </nav>
          <PageHeading>Edit endpoint</PageHeading>
          {data.status === 'archived' ? (
            <Empty title="This endpoint is archived.">
              <p>Archived endpoints are read-only.</p>
            </Empty>
          ) : (
            <EditForm endpoint={data} />
          )}
        </>
      )}
    </QueryView>
  );
}

export function EndpointFormPage() {
  const { jobId, endpointId } = useParams();
  return (
    <section>{endpointId ? <EditEndpoint endpointId={endpointId} /> : <CreateEndpoint jobId={jobId ?? ''} />}</section>
  );
}
