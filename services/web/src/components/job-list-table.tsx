/** The job list: name (link), status, endpoint count, created. */
import { Link } from 'react-router';
import { RelativeTime, StatusBadge } from './job-badges';
import type { Job } from './job-queries';

export function JobListTable({ jobs }: { jobs: Job[] }) {
  return (
    <div className="table-wrap">
      <table aria-label="Jobs" className="stack-table">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Status</th>
            <th scope="col">Endpoints</th>
            <th scope="col">Created</th>
          </tr>
        </thead>
        <tbody>
          {jobs.map((job) => (
            <tr key={job.id}>
              <td className="job-name-cell">
                <Link to={`/jobs/${job.id}`}>{job.name}</Link>
                {job.description ? <div className="muted job-description-line">{job.description}</div> : null}
              </td>
              <td data-label="Status">
                <StatusBadge status={job.status} />
              </td>
              <td data-label="Endpoints">{job.endpointCount}</td>
              <td data-label="Created">
                <RelativeTime iso={job.createdAt} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
