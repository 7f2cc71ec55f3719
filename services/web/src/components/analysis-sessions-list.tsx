/**
 * An endpoint's analysis sessions, newest first (GET /api/endpoints/{endpointId}/analysis-sessions),
 * compact: when, status, shadow mark, trigger, tokens and the start of the reasoning, each linking
 * to the session. "Show more" pages on in steps of 10 (the API's default page size).
 */
import { useInfiniteQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, unwrap, type Schemas } from '../api/client';
import { formatDateTime, formatRelative } from '../lib/time';
import { AnalysisStatusBadge, ShadowBadge } from './analysis-badges';
import { describeTrigger } from './analysis-format';
import { Empty, QueryView } from './states';

const PAGE_SIZE = 10;

function SessionItem({ session, isCurrent }: { session: Schemas['AnalysisSessionSummary']; isCurrent: boolean }) {
  return (
    <li className={`analysis-list-item${isCurrent ? ' analysis-list-current' : ''}`}>
      <div className="analysis-list-head">
        <Link
          to={`/analysis-sessions/${session.id}`}
          title={formatDateTime(session.createdAt)}
          aria-current={isCurrent ? 'page' : undefined}
        >
          Analysis {formatRelative(session.createdAt)}
        </Link>
        {isCurrent ? <span className="muted">(this session)</span> : null}
        <AnalysisStatusBadge status={session.status} />
        {session.shadow ? <ShadowBadge short /> : null}
        <span className="muted">
          {describeTrigger(session.trigger)} · {session.tokenUsage.toLocaleString()} tokens
        </span>
      </div>
      {session.errorMessage ? (
        <p className="analysis-list-text form-error">{session.errorMessage}</p>
      ) : session.reasoning ? (
        <p className="analysis-list-text">{session.reasoning}</p>
      ) : null}
    </li>
  );
}

export function AnalysisSessionsList({
  endpointId,
  title = 'Analysis sessions',
  currentSessionId,
}: {
  endpointId: string;
  /** On a session's page: that session is marked in the list. */
  currentSessionId?: string;
  /** The list's h2; null when the embedding page gives its own heading. */
  title?: string | null;
}) {
  // Pages of PAGE_SIZE by offset: "show more" appends the next page, so an endpoint with more
  // sessions than the API's largest page (1000) is still read to the end.
  const sessions = useInfiniteQuery({
    queryKey: ['endpoint', endpointId, 'analysis-sessions', 'pages'],
    initialPageParam: 0,
    queryFn: ({ pageParam }) =>
      unwrap(
        api.GET('/api/endpoints/{endpointId}/analysis-sessions', {
          params: { path: { endpointId }, query: { limit: PAGE_SIZE, offset: pageParam } },
        }),
      ),
    getNextPageParam: (last, pages) =>
      last.hasMore ? pages.reduce((sum, page) => sum + page.sessions.length, 0) : undefined,
    select: (data) => ({
      sessions: data.pages.flatMap((page) => page.sessions),
      total: data.pages[data.pages.length - 1]!.total,
    }),
  });
  return (
    <section className="analysis-sessions" aria-label={title ?? 'Analysis sessions'}>
      {title ? <h2>{title}</h2> : null}
      <QueryView query={sessions} what="Loading analysis sessions">
        {(page) =>
          page.sessions.length === 0 ? (
            <Empty title="No analysis sessions yet">
              <p>
                The planner analyses this endpoint after its runs while AI scheduling is on (see{' '}
                <Link to="/settings">Settings</Link>).
              </p>
            </Empty>
          ) : (
            <>
              <p className="muted">
                {page.sessions.length} of {page.total} analysis sessions, newest first.
              </p>
              <ul className="analysis-list">
                {page.sessions.map((session) => (
                  <SessionItem key={session.id} session={session} isCurrent={session.id === currentSessionId} />
                ))}
              </ul>
              {sessions.hasNextPage ? (
                <button
                  type="button"
                  onClick={() => void sessions.fetchNextPage()}
                  disabled={sessions.isFetchingNextPage}
                >
                  Show more analysis sessions
                </button>
              ) : null}
            </>
          )
        }
      </QueryView>
    </section>
  );
}
