/** Settings > Usage: the tier, this month's period, and each quota as a meter with its numbers. */
import { useAccount, type Account } from './settings-account';
import { formatCount, formatIntervalLimit, formatPeriod, tierName } from './settings-format';
import { QuotaMeter } from './settings-meter';
import { When } from './settings-section';
import { QueryView } from './states';

export function UsageSettings() {
  const account = useAccount();
  return (
    <QueryView query={account} what="Loading usage">
      {(data) => <Usage account={data} />}
    </QueryView>
  );
}

function Usage({ account }: { account: Account }) {
  const { limits, usage } = account;
  return (
    <>
      <dl className="facts">
        <dt>Account</dt>
        <dd>{account.name}</dd>
        <dt>Tier</dt>
        <dd>
          <span className="badge badge-active">{tierName(account.tier)}</span>
        </dd>
        <dt>Period</dt>
        <dd>
          {formatPeriod(usage.periodStart, usage.periodEnd)}, ends <When iso={usage.periodEnd} />
        </dd>
      </dl>
      <div className="settings-meters">
        <QuotaMeter label="Jobs" used={usage.jobs} limit={limits.maxJobs} unit="jobs" />
        <QuotaMeter label="Endpoints" used={usage.endpoints} limit={limits.maxEndpoints} unit="endpoints" />
        <QuotaMeter label="Runs this month" used={usage.runsThisMonth} limit={limits.runsPerMonth} unit="runs" />
        <QuotaMeter
          label="AI tokens this month"
          used={usage.aiTokensThisMonth}
          limit={limits.aiTokensPerMonth}
          unit="tokens"
        />
      </div>
      <p className="muted">
        Archived jobs and endpoints do not count. Past the monthly runs, scheduled runs are skipped until the month
        turns. API rate limit: {formatCount(limits.requestsPerMinute)} requests a minute (bursts of{' '}
        {formatCount(limits.burst)}); shortest endpoint interval: {formatIntervalLimit(limits.minIntervalMs)}.
      </p>
    </>
  );
}
