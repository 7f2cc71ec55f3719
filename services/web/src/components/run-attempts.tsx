/** Every HTTP call of a run whose endpoint retries: when, how long, what came back, and the wait after it. */
import { formatDateTime, formatDuration } from '../lib/time';
import { describeAttempt, type Run } from './run-format';

export function RunAttempts({ run }: { run: Run }) {
  if (!run.attempts || run.attempts.length === 0) return null;
  return (
    <section className="panel endpoint-panel" aria-labelledby="attempts-heading">
      <h2 id="attempts-heading">Attempts ({run.attempts.length})</h2>
      <p className="muted">
        The endpoint retries within a run; the run&apos;s status, HTTP status and response are the last attempt&apos;s.
      </p>
      <div className="table-wrap">
        <table className="stack-table" aria-labelledby="attempts-heading">
          <thead>
            <tr>
              <th scope="col">#</th>
              <th scope="col">Started</th>
              <th scope="col">Duration</th>
              <th scope="col">Outcome</th>
              <th scope="col">Then</th>
            </tr>
          </thead>
          <tbody>
            {run.attempts.map((attempt) => {
              const { outcome, next } = describeAttempt(attempt);
              return (
                <tr key={attempt.attempt}>
                  <td data-label="#">{attempt.attempt}</td>
                  <td data-label="Started">
                    <time dateTime={attempt.startedAt}>{formatDateTime(attempt.startedAt)}</time>
                  </td>
                  <td data-label="Duration">{formatDuration(attempt.durationMs)}</td>
                  <td data-label="Outcome">{outcome}</td>
                  <td data-label="Then">{next}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </section>
  );
}
