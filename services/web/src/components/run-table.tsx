/**
 * A table of runs: when, status, source (AI sources marked), HTTP code, duration, planned vs actual
 * start, and the response rules each run matched.
 */
import { Link } from 'react-router';
import { formatDateTime, formatDuration, formatRelative } from '../lib/time';
import { RunSourceBadge, RunStatusBadge } from './run-badges';
import { describeLateness, type Run } from './run-format';

export function RunTable({ runs, caption }: { runs: Run[]; caption: string }) {
  return (
    <div className="table-wrap">
      <table className="stack-table">
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Started</th>
            <th scope="col">Status</th>
            <th scope="col">HTTP</th>
            <th scope="col">Duration</th>
            <th scope="col">Source</th>
            <th scope="col">Planned</th>
            <th scope="col">Lateness</th>
            <th scope="col">Rules matched</th>
          </tr>
        </thead>
        <tbody>
          {runs.map((run) => (
            <RunRow key={run.id} run={run} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

function RunRow({ run }: { run: Run }) {
  return (
    <tr>
      <td>
        {/* Named "Run started <time>, 3 s ago": the visible text is part of the name (WCAG 2.5.3). */}
        <Link to={`/runs/${run.id}`} title={formatDateTime(run.startedAt)}>
          <span className="visually-hidden">Run started {formatDateTime(run.startedAt)}, </span>
          {formatRelative(run.startedAt)}
        </Link>
      </td>
      <td data-label="Status">
        <RunStatusBadge status={run.status} />
      </td>
      <td data-label="HTTP">
        {run.statusCode ?? (
          <span className="muted" title={run.errorKind ?? undefined}>
            {run.errorKind ?? '—'}
          </span>
        )}
      </td>
      <td data-label="Duration">{formatDuration(run.durationMs)}</td>
      <td data-label="Source">
        <RunSourceBadge source={run.source} />
      </td>
      <td data-label="Planned">
        <time dateTime={run.scheduledAt}>{formatDateTime(run.scheduledAt)}</time>
      </td>
      <td data-label="Lateness" className={run.lateMs >= 1000 ? 'run-late' : undefined}>
        {describeLateness(run.lateMs)}
      </td>
      <td data-label="Rules matched">
        {run.rulesMatched.length > 0 ? run.rulesMatched.join(', ') : <span className="muted">none</span>}
      </td>
    </tr>
  );
}
