/** A job's endpoints: schedule in words, next run, last status, failure streak; link to add one. */
import { useCanEdit } from '../lib/roles';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import type { Schemas } from '../api/client';
import { RelativeTime, StatusBadge } from './job-badges';
import { Pager } from './job-pager';
import { ENDPOINTS_PAGE_SIZE, fetchJobEndpoints, jobEndpointsKey, type Job } from './job-queries';
import { describeSchedule } from './job-schedule';
import { Empty, QueryView } from './states';

type Endpoint = Schemas['Endpoint'];

const SOURCE_WORDS: Record<NonNullable<Endpoint['nextRunSource']>, string> = {
  'baseline-cron': 'baseline',
  'baseline-interval': 'baseline',
  'ai-interval': 'interval hint',
  'ai-oneshot': 'one-shot hint',
  'rule-interval': 'response rule',
  rule: 'response rule',
};

function statusTitle(endpoint: Endpoint): string | undefined {
  if (endpoint.jobPaused) return 'The job is paused';
  if (endpoint.pausedUntil) return `Paused until ${new Date(endpoint.pausedUntil).toLocaleString()}`;
  return undefined;
}

function EndpointRow({ endpoint }: { endpoint: Endpoint }) {
  return (
    <tr>
      <td>
        <Link to={`/endpoints/${endpoint.id}`}>{endpoint.name}</Link>
      </td>
      <td data-label="Status">
        <StatusBadge status={endpoint.status} title={statusTitle(endpoint)} />
      </td>
      <td data-label="Schedule">{describeSchedule(endpoint)}</td>
      <td data-label="Next run">
        <RelativeTime iso={endpoint.nextRunAt} empty="not scheduled" />
        {endpoint.nextRunSource ? <span className="muted"> ({SOURCE_WORDS[endpoint.nextRunSource]})</span> : null}
      </td>
      <td data-label="Last run">
        {endpoint.lastStatus ? (
          <StatusBadge status={endpoint.lastStatus} />
        ) : (
          <span className="muted">no runs yet</span>
        )}{' '}
        {endpoint.lastRunAt ? <RelativeTime iso={endpoint.lastRunAt} /> : null}
      </td>
      <td data-label="Failure streak" className={endpoint.failureCount > 0 ? 'job-streak-bad' : undefined}>
        {endpoint.failureCount}
      </td>
    </tr>
  );
}

function EndpointTable({ endpoints }: { endpoints: Endpoint[] }) {
  return (
    <div className="table-wrap">
      <table aria-label="Endpoints" className="stack-table">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Status</th>
            <th scope="col">Schedule</th>
            <th scope="col">Next run</th>
            <th scope="col">Last run</th>
            <th scope="col">Failure streak</th>
          </tr>
        </thead>
        <tbody>
          {endpoints.map((endpoint) => (
            <EndpointRow key={endpoint.id} endpoint={endpoint} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function JobEndpoints({ job }: { job: Job }) {
  const canEdit = useCanEdit();
  const [offset, setOffset] = useState(0);
  const [showArchived, setShowArchived] = useState(false);
  const isArchived = job.status === 'archived';
  // Archiving a job archives its endpoints: an archived job shows them all.
  const includeArchived = showArchived || isArchived;
  const endpoints = useQuery({
    queryKey: [...jobEndpointsKey(job.id), { offset, includeArchived }],
    queryFn: () => fetchJobEndpoints(job.id, offset, includeArchived),
    placeholderData: keepPreviousData,
  });
  return (
    <section aria-labelledby="job-endpoints-heading">
      <div className="page-header">
        <h2 id="job-endpoints-heading">Endpoints</h2>
        {isArchived || !canEdit ? null : (
          <Link className="button primary" to={`/jobs/${job.id}/endpoints/new`}>
            Add endpoint
          </Link>
        )}
      </div>
      {isArchived ? null : (
        <label className="job-checkbox">
          <input
            type="checkbox"
            checked={showArchived}
            onChange={(e) => {
              setShowArchived(e.target.checked);
              setOffset(0);
            }}
          />{' '}
          Show archived endpoints
        </label>
      )}
      <QueryView query={endpoints} what="Loading endpoints">
        {(page) =>
          page.items.length === 0 ? (
            <Empty title={includeArchived ? 'This job has no endpoints.' : 'No endpoints yet.'}>
              <p>
                {isArchived
                  ? 'The job is archived, so no endpoint can be added.'
                  : 'An endpoint is an HTTP request Kairos sends on a baseline schedule (an interval or a cron expression).'}
              </p>
              {isArchived || !canEdit ? null : <Link to={`/jobs/${job.id}/endpoints/new`}>Add the first endpoint</Link>}
            </Empty>
          ) : (
            <>
              <EndpointTable endpoints={page.items} />
              <Pager
                offset={offset}
                limit={ENDPOINTS_PAGE_SIZE}
                total={page.total}
                what="endpoints"
                onChange={setOffset}
              />
            </>
          )
        }
      </QueryView>
    </section>
  );
}
