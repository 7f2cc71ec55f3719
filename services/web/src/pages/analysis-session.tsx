/**
 * One analysis session (/analysis-sessions/:sessionId): why the planner looked at the endpoint,
 * what it concluded, what it proposed and what the governor did with each proposal.
 */
import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { api, unwrap, type Schemas } from '../api/client';
import { AnalysisActions, AnalysisToolsCalled } from '../components/analysis-actions';
import { describeTrigger } from '../components/analysis-format';
import { AnalysisSessionsList } from '../components/analysis-sessions-list';
import { AnalysisStatusBadge, ShadowBadge } from '../components/analysis-badges';
import { PageHeading, usePageTitle } from '../components/page-title';
import { QueryView } from '../components/states';
import { formatDateTime, formatDuration, formatRelative } from '../lib/time';

type Session = Schemas['AnalysisSession'];

function When({ iso }: { iso: string | null }) {
  if (!iso) return <>—</>;
  return (
    <time dateTime={iso} title={formatDateTime(iso)}>
      {formatRelative(iso)}
    </time>
  );
}

function EndpointLink({ endpointId }: { endpointId: string }) {
  const endpoint = useQuery({
    queryKey: ['endpoint', endpointId],
    queryFn: () => unwrap(api.GET('/api/endpoints/{endpointId}', { params: { path: { endpointId } } })),
    refetchInterval: false,
  });
  return <Link to={`/endpoints/${endpointId}`}>{endpoint.data?.name ?? 'Endpoint'}</Link>;
}

function SessionFacts({ session }: { session: Session }) {
  return (
    <dl className="facts">
      <dt>Endpoint</dt>
      <dd>
        <EndpointLink endpointId={session.endpointId} />
      </dd>
      <dt>Started</dt>
      <dd>
        <When iso={session.createdAt} /> <span className="muted">({formatDateTime(session.createdAt)})</span>
      </dd>
      <dt>Trigger</dt>
      <dd>{describeTrigger(session.trigger)}</dd>
      <dt>Model</dt>
      <dd>{session.model ?? '—'}</dd>
      <dt>Confidence</dt>
      <dd>{session.confidence ?? '—'}</dd>
      <dt>Tokens</dt>
      <dd>
        {session.tokenUsage.toLocaleString()}{' '}
        <span className="muted">
          ({session.inputTokens.toLocaleString()} input, {session.outputTokens.toLocaleString()} output)
        </span>
      </dd>
      <dt>Duration</dt>
      <dd>{formatDuration(session.durationMs)}</dd>
      <dt>Failures at analysis</dt>
      <dd>{session.endpointFailureCount} in a row</dd>
      <dt>Next analysis</dt>
      <dd>
        <When iso={session.nextAnalysisAt} />
      </dd>
    </dl>
  );
}

function SessionView({ session }: { session: Session }) {
  return (
    <>
      <p className="actions">
        <AnalysisStatusBadge status={session.status} />
        {session.shadow ? <ShadowBadge /> : null}
      </p>
      {session.shadow ? (
        <p className="analysis-shadow-note">
          The planner ran in shadow mode: the governor judged each proposal, but nothing was changed on the endpoint.
        </p>
      ) : null}
      {session.errorMessage ? (
        <div className="state state-error" role="note">
          <strong>{session.status === 'skipped' ? 'Skipped:' : 'Failed:'}</strong> {session.errorMessage}
        </div>
      ) : null}
      <SessionFacts session={session} />
      <h2>Reasoning</h2>
      <p className="analysis-reasoning">{session.reasoning ?? <span className="muted">No reasoning recorded.</span>}</p>
      <h2>Proposals and the governor&apos;s decisions</h2>
      <AnalysisActions session={session} />
      <h2>Tools called</h2>
      <AnalysisToolsCalled session={session} />
      <AnalysisSessionsList
        endpointId={session.endpointId}
        title="Analysis sessions of this endpoint"
        currentSessionId={session.id}
      />
    </>
  );
}

export function AnalysisSessionPage() {
  const { sessionId = '' } = useParams();
  const session = useQuery({
    queryKey: ['analysis-session', sessionId],
    queryFn: () => unwrap(api.GET('/api/analysis-sessions/{sessionId}', { params: { path: { sessionId } } })),
    // A recorded session does not change.
    refetchInterval: false,
  });
  usePageTitle('Analysis session');
  return (
    <>
      <PageHeading>Analysis session</PageHeading>
      <QueryView query={session} what="Loading the analysis session">
        {(data) => <SessionView session={data} />}
      </QueryView>
    </>
  );
}
