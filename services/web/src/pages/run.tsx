/**
 * One run (`/runs/:runId`): outcome, why it ran (source), planned versus actual start, timings,
 * the response rules it matched, the error when it failed, every attempt when the endpoint retries, and the response body.
 */
import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { api, unwrap } from '../api/client';
import { endpointKey, fetchEndpoint } from '../components/endpoint-queries';
import { RunSourceBadge, RunStatusBadge } from '../components/run-badges';
import { RunAttempts } from '../components/run-attempts';
import { describeLateness, type Run } from '../components/run-format';
import { RunReplay } from '../components/run-replay';
import { RunResponse } from '../components/run-response';
import { PageHeading, usePageTitle } from '../components/page-title';
import { QueryView } from '../components/states';
import { formatDateTime, formatDuration, formatRelative } from '../lib/time';

export function RunPage() {
  const { runId = '' } = useParams();
  const run = useQuery({
    queryKey: ['run', runId],
    queryFn: () => unwrap(api.GET('/api/runs/{runId}', { params: { path: { runId } } })),
    // A run never changes once recorded.
    refetchInterval: false,
    staleTime: Infinity,
  });
  usePageTitle(run.data ? `Run ${formatDateTime(run.data.startedAt)}` : 'Run');
  return (
    <QueryView query={run} what="Loading the run">
      {(data) => <RunView run={data} />}
    </QueryView>
  );
}

function RunView({ run }: { run: Run }) {
  const endpoint = useQuery({ queryKey: endpointKey(run.endpointId), queryFn: () => fetchEndpoint(run.endpointId) });
  const failure = run.errorMessage ?? run.error;
  return (
    <>
      <p className="run-breadcrumb">
        <Link to={`/endpoints/${run.endpointId}`}>
          ← {endpoint.data ? `Endpoint: ${endpoint.data.name}` : 'Back to the endpoint'}
        </Link>
      </p>
      <div className="page-header">
        <PageHeading>Run {formatDateTime(run.startedAt)}</PageHeading>
        <span>
          <RunStatusBadge status={run.status} /> <RunSourceBadge source={run.source} />
        </span>
      </div>
      {run.source === 'test' ? null : <RunReplay run={run} />}
      {failure ? (
        <p className="form-error run-error" role="alert">
          <strong>Failed{run.errorKind ? ` (${run.errorKind})` : ''}:</strong> {failure}
        </p>
      ) : null}
      <section className="panel endpoint-panel" aria-labelledby="facts-heading">
        <h2 id="facts-heading">Facts</h2>
        <dl className="facts">
          <dt>Status</dt>
          <dd>{run.status}</dd>
          <dt>HTTP status</dt>
          <dd>{run.statusCode ?? 'no response'}</dd>
          <dt>Source</dt>
          <dd>
            <code>{run.source}</code>
          </dd>
          {run.replayOf ? (
            <>
              <dt>Replay of</dt>
              <dd>
                <Link to={`/runs/${run.replayOf}`}>the run it repeats</Link>
              </dd>
            </>
          ) : null}
          <dt>Planned</dt>
          <dd>
            <TimeFact iso={run.scheduledAt} />
          </dd>
          <dt>Started</dt>
          <dd>
            <TimeFact iso={run.startedAt} /> — {describeLateness(run.lateMs)}
          </dd>
          {run.waitedForHostMs !== null && (
            <>
              <dt>Host budget</dt>
              <dd>
                waited {formatDuration(run.waitedForHostMs)} for the host&apos;s budget (Settings &gt; Host budgets)
              </dd>
            </>
          )}
          <dt>Completed</dt>
          <dd>
            <TimeFact iso={run.completedAt} />
          </dd>
          <dt>Duration</dt>
          <dd>{formatDuration(run.durationMs)}</dd>
          <dt>Rules matched</dt>
          <dd>
            {run.rulesMatched.length > 0
              ? run.rulesMatched.join(', ')
              : 'none (no response rule of the endpoint matched this run, or it has none)'}
          </dd>
          {run.attempt > 1 ? (
            <>
              <dt>Attempt</dt>
              <dd>{run.attempt} (delivered again after an executor stopped)</dd>
            </>
          ) : null}
          <dt>Run id</dt>
          <dd>
            <code>{run.id}</code>
          </dd>
        </dl>
      </section>
      <RunAttempts run={run} />
      <RunResponse run={run} />
    </>
  );
}

function TimeFact({ iso }: { iso: string }) {
  return (
    <>
      <time dateTime={iso}>{formatDateTime(iso)}</time> <span className="muted">({formatRelative(iso)})</span>
    </>
  );
}
