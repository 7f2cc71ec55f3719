/** The next planned runs of an endpoint (GET /api/endpoints/{id}/upcoming), as an ordered list. */
import { useQuery } from '@tanstack/react-query';
import { formatDateTime, formatRelative } from '../lib/time';
import { calendarText } from './endpoint-form-preview';
import { endpointUpcomingKey, fetchUpcomingRuns } from './endpoint-queries';
import { sourceLabel } from './run-format';
import { Empty, QueryView } from './states';

export function EndpointUpcomingRuns({ endpointId }: { endpointId: string }) {
  const upcoming = useQuery({
    queryKey: endpointUpcomingKey(endpointId),
    queryFn: () => fetchUpcomingRuns(endpointId),
  });
  return (
    <section aria-labelledby="upcoming-heading">
      <h2 id="upcoming-heading">Next runs</h2>
      <QueryView query={upcoming} what="Loading the next runs">
        {(data) =>
          data.runs.length === 0 ? (
            <Empty title="No runs planned.">
              <p>An archived endpoint, one whose job is paused, or one whose active period is over has no next runs.</p>
            </Empty>
          ) : (
            <>
              <ol className="upcoming-runs">
                {data.runs.map((run) => (
                  <li key={run.at}>
                    <time dateTime={run.at}>{formatDateTime(run.at)}</time>{' '}
                    <span className="muted">
                      ({formatRelative(run.at)}, {sourceLabel(run.source)}
                      {run.calendar ? `, ${calendarText(run.calendar)}` : ''})
                    </span>
                  </li>
                ))}
              </ol>
              {data.jitterMs > 0 ? (
                <p className="muted">Jitter: each run after the first starts up to {data.jitterMs} ms later.</p>
              ) : null}
            </>
          )
        }
      </QueryView>
    </section>
  );
}
