/** The dashboard's headline figures: jobs and endpoints now, runs and success rate in the range. */
import type { Schemas } from '../api/client';

export function DashboardTotals({ dashboard }: { dashboard: Schemas['Dashboard'] }) {
  const { totals, successRate } = dashboard;
  return (
    <section aria-labelledby="dashboard-totals-title">
      <h2 id="dashboard-totals-title">Totals</h2>
      <dl className="cards dashboard-totals">
        <div className="card">
          <dt>Jobs</dt>
          <dd className="value">{totals.jobs.toLocaleString()}</dd>
          <dd className="muted">not archived</dd>
        </div>
        <div className="card">
          <dt>Endpoints</dt>
          <dd className="value">{totals.endpoints.toLocaleString()}</dd>
          <dd className="muted">
            <span className="badge badge-active">{totals.activeEndpoints} active</span>{' '}
            <span className="badge badge-paused">{totals.pausedEndpoints} paused</span>
          </dd>
        </div>
        <div className="card">
          <dt>Runs</dt>
          <dd className="value">{totals.runs.toLocaleString()}</dd>
          <dd className="muted">
            {totals.successfulRuns.toLocaleString()} succeeded, {totals.failedRuns.toLocaleString()} failed
          </dd>
        </div>
        <div className="card">
          <dt>Success rate</dt>
          <dd className="value">{totals.runs === 0 ? '—' : `${successRate}%`}</dd>
          <dd className="muted">{totals.runs === 0 ? 'no runs in this range' : 'of runs in this range'}</dd>
        </div>
      </dl>
    </section>
  );
}
