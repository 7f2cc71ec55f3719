/**
 * One endpoint (`/endpoints/:endpointId`): its schedule explained in words with the controls that
 * change it, its next runs, health, a timeline of recent runs, the runs table and the planner's analysis sessions.
 * Everything refetches every few seconds (main.tsx), so new runs and schedule changes appear by themselves.
 */
import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { AnalysisSessionsList } from '../components/analysis-sessions-list';
import { EndpointActions } from '../components/endpoint-actions';
import { EndpointHealthPanel } from '../components/endpoint-health';
import { endpointKey, fetchEndpoint, type Endpoint } from '../components/endpoint-queries';
import { EndpointRequestPanel } from '../components/endpoint-request';
import { EndpointRulesPanel } from '../components/endpoint-rules-panel';
import { EndpointRuns } from '../components/endpoint-runs';
import { EndpointSchedulePanel } from '../components/endpoint-schedule-panel';
import { EndpointUpcomingRuns } from '../components/endpoint-upcoming';
import { fetchJob, jobKey } from '../components/job-queries';
import { RunTimeline } from '../components/run-timeline';
import { PageHeading, usePageTitle } from '../components/page-title';
import { QueryView } from '../components/states';

export function EndpointPage() {
  const { endpointId = '' } = useParams();
  const endpoint = useQuery({ queryKey: endpointKey(endpointId), queryFn: () => fetchEndpoint(endpointId) });
  usePageTitle(endpoint.data?.name, 'Endpoint');
  return (
    <QueryView query={endpoint} what="Loading the endpoint">
      {(data) => <EndpointView endpoint={data} />}
    </QueryView>
  );
}

function EndpointView({ endpoint }: { endpoint: Endpoint }) {
  return (
    <>
      <EndpointHeader endpoint={endpoint} />
      <EndpointActions endpoint={endpoint} />
      <EndpointSchedulePanel endpoint={endpoint} />
      <EndpointUpcomingRuns endpointId={endpoint.id} />
      <EndpointRulesPanel endpoint={endpoint} />
      <EndpointHealthPanel endpointId={endpoint.id} />
      <RunTimeline endpointId={endpoint.id} />
      <EndpointRuns endpointId={endpoint.id} />
      <section aria-labelledby="ai-analysis-heading">
        <h2 id="ai-analysis-heading">AI analysis</h2>
        <p className="muted">What the planner read and decided after recent runs of this endpoint.</p>
        <AnalysisSessionsList endpointId={endpoint.id} title={null} />
      </section>
      <EndpointRequestPanel endpoint={endpoint} />
    </>
  );
}

function EndpointHeader({ endpoint }: { endpoint: Endpoint }) {
  const job = useQuery({ queryKey: jobKey(endpoint.jobId), queryFn: () => fetchJob(endpoint.jobId) });
  return (
    <>
      <p className="endpoint-breadcrumb">
        <Link to={`/jobs/${endpoint.jobId}`}>← {job.data ? `Job: ${job.data.name}` : 'Back to the job'}</Link>
      </p>
      <div className="page-header">
        <PageHeading>{endpoint.name}</PageHeading>
        <span className={`badge badge-${endpoint.status}`}>{endpoint.status}</span>
      </div>
      <p className="endpoint-url muted">
        <code>
          {endpoint.method} {endpoint.url}
        </code>
      </p>
      {endpoint.status === 'archived' ? (
        <p className="state state-empty" role="status">
          This endpoint is archived: it no longer runs and cannot be changed. Its runs and analysis sessions are kept.
        </p>
      ) : null}
    </>
  );
}
