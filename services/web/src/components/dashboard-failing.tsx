/** Endpoints failing right now (most consecutive failures first): the first thing on the dashboard. */
import { Link } from 'react-router';
import type { Schemas } from '../api/client';
import { formatDateTime, formatRelative } from '../lib/time';
import { plural } from './dashboard-stats';

export function FailingEndpoints({ endpoints }: { endpoints: Schemas['Dashboard']['failingEndpoints'] }) {
  if (endpoints.length === 0) return null;
  return (
    <section className="panel dashboard-failing" aria-labelledby="dashboard-failing-title">
      <h2 id="dashboard-failing-title">
        Failing endpoints <span className="badge badge-failed">{endpoints.length}</span>
      </h2>
      <ul className="dashboard-failing-list">
        {endpoints.map((endpoint) => (
          <li key={endpoint.endpointId}>
            <Link to={`/endpoints/${endpoint.endpointId}`} className="dashboard-failing-name">
              {endpoint.name}
            </Link>
            <span className="muted">
              in job <Link to={`/jobs/${endpoint.jobId}`}>{endpoint.jobName}</Link>
            </span>
            <span className="badge badge-failed">{plural(endpoint.failureCount, 'failure')} in a row</span>
            <span className="muted">
              last run{' '}
              {endpoint.lastRunAt ? (
                <time dateTime={endpoint.lastRunAt} title={formatDateTime(endpoint.lastRunAt)}>
                  {formatRelative(endpoint.lastRunAt)}
                </time>
              ) : (
                'never'
              )}
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}
