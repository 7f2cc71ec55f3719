/**
 * AI activity on the dashboard: analysis sessions and tokens in the range (GET /api/dashboard),
 * and this month's planner token budget and AI settings (GET /api/account).
 */
import { useId } from 'react';
import { Link } from 'react-router';
import type { Schemas } from '../api/client';
import { formatDateTime, formatRelative } from '../lib/time';
import { percent } from './dashboard-stats';

export function AiActivity({
  ai,
  account,
}: {
  ai: Schemas['Dashboard']['ai'];
  account: Schemas['Account'] | undefined;
}) {
  return (
    <section className="panel chart-panel" aria-labelledby="dashboard-ai-title">
      <h2 id="dashboard-ai-title">AI activity</h2>
      <dl className="cards">
        <div className="card">
          <dt>Analysis sessions</dt>
          <dd className="value">{ai.sessions.toLocaleString()}</dd>
          <dd className="muted">in this range</dd>
        </div>
        <div className="card">
          <dt>Tokens used</dt>
          <dd className="value">{ai.tokens.toLocaleString()}</dd>
          <dd className="muted">by the planner in this range</dd>
        </div>
      </dl>
      {account ? <AiBudget account={account} /> : null}
    </section>
  );
}

function AiBudget({ account }: { account: Schemas['Account'] }) {
  const id = useId();
  const { aiBudget, settings } = account;
  const limit = Math.max(aiBudget.tokensLimit, 0);
  const used = Math.min(aiBudget.tokensUsed, limit);
  return (
    <div className="ai-budget">
      <label htmlFor={id}>Token budget this month</label>
      <meter
        id={id}
        min={0}
        max={limit || 1}
        value={used}
        low={limit * 0.75}
        high={limit * 0.9}
        optimum={0}
        aria-valuetext={`${aiBudget.tokensUsed.toLocaleString()} of ${limit.toLocaleString()} tokens`}
        aria-describedby={`${id}-text`}
      >
        {percent(aiBudget.tokensUsed, limit)}
      </meter>
      <p id={`${id}-text`} className="muted">
        {aiBudget.tokensUsed.toLocaleString()} of {limit.toLocaleString()} tokens ({percent(aiBudget.tokensUsed, limit)}
        ); resets{' '}
        <time dateTime={aiBudget.periodEndsAt} title={formatDateTime(aiBudget.periodEndsAt)}>
          {formatRelative(aiBudget.periodEndsAt)}
        </time>
        .
      </p>
      {aiBudget.exhausted ? (
        <p className="form-error">The budget is used up: the planner is paused and endpoints run on their baselines.</p>
      ) : null}
      <p>
        {!settings.aiSchedulingEnabled ? (
          <>AI scheduling is off: endpoints run on their baselines. </>
        ) : settings.aiShadowMode ? (
          <>
            <span className="badge badge-shadow">Shadow mode</span> the planner proposes changes without applying
            them.{' '}
          </>
        ) : (
          <>AI scheduling is on. </>
        )}
        <Link to="/settings">AI settings</Link>
      </p>
    </div>
  );
}
