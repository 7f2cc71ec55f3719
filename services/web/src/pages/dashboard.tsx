/**
 * The dashboard (/): failing endpoints first, then the account's totals and charts for a range
 * of UTC days (GET /api/dashboard), and the planner's activity and budget (GET /api/account).
 * The range lives in the URL (?range=30d) so a view can be shared and survives a reload.
 */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import { api, unwrap, type Schemas } from '../api/client';
import { AiActivity } from '../components/dashboard-ai';
import { LatenessChart, RunsBySourceChart, RunsOverTimeChart } from '../components/dashboard-charts';
import { FailingEndpoints } from '../components/dashboard-failing';
import {
  DASHBOARD_RANGES,
  describeRange,
  parseRange,
  rangeDates,
  type DashboardRangeId,
} from '../components/dashboard-range';
import { DashboardTotals } from '../components/dashboard-totals';
import { PageHeading, usePageTitle } from '../components/page-title';
import { Empty, QueryView } from '../components/states';

const ACCOUNT_KEY = ['account'] as const;

export function DashboardPage() {
  const [params, setParams] = useSearchParams();
  const rangeId = parseRange(params.get('range'));
  const dashboard = useQuery({
    queryKey: ['dashboard', rangeId],
    // The dates are computed at fetch time, so an open page rolls over at midnight UTC.
    queryFn: () => unwrap(api.GET('/api/dashboard', { params: { query: rangeDates(rangeId, Date.now()) } })),
    placeholderData: keepPreviousData,
  });
  const account = useQuery({ queryKey: ACCOUNT_KEY, queryFn: () => unwrap(api.GET('/api/account')) });
  const selectRange = (id: DashboardRangeId) => setParams(id === '7d' ? {} : { range: id }, { replace: true });
  usePageTitle('Dashboard');

  return (
    <>
      <div className="page-header">
        <PageHeading>Dashboard</PageHeading>
        <RangePicker value={rangeId} onChange={selectRange} />
      </div>
      <QueryView query={dashboard} what="Loading the dashboard">
        {(data) => (
          <>
            <p className="muted dashboard-range" aria-live="polite">
              {dashboard.isPlaceholderData ? 'Loading…' : `Showing ${describeRange(data.range)}.`}
            </p>
            <DashboardContent dashboard={data} account={account.data} />
          </>
        )}
      </QueryView>
    </>
  );
}

function RangePicker({ value, onChange }: { value: DashboardRangeId; onChange: (id: DashboardRangeId) => void }) {
  return (
    <div role="group" aria-label="Date range" className="range-picker">
      {DASHBOARD_RANGES.map((range) => (
        <button
          key={range.id}
          type="button"
          aria-pressed={range.id === value}
          className={range.id === value ? 'primary' : undefined}
          onClick={() => onChange(range.id)}
        >
          {range.label}
        </button>
      ))}
    </div>
  );
}

function DashboardContent({
  dashboard,
  account,
}: {
  dashboard: Schemas['Dashboard'];
  account: Schemas['Account'] | undefined;
}) {
  // A new account: nothing to chart until there is a job (runs of archived jobs still count).
  if (dashboard.totals.jobs === 0 && dashboard.totals.runs === 0) {
    return (
      <Empty title="No jobs yet">
        <p>Create a job, add an endpoint to it, and its runs will be charted here.</p>
        <Link className="button primary" to="/jobs">
          Create your first job
        </Link>
      </Empty>
    );
  }
  return (
    <>
      <FailingEndpoints endpoints={dashboard.failingEndpoints} />
      <DashboardTotals dashboard={dashboard} />
      <div className="charts dashboard-charts">
        <RunsOverTimeChart days={dashboard.runsOverTime} />
        <RunsBySourceChart runsBySource={dashboard.runsBySource} />
        <LatenessChart lateness={dashboard.lateness} />
        <AiActivity ai={dashboard.ai} account={account} />
      </div>
    </>
  );
}
