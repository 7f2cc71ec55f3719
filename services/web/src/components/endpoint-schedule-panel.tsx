/**
 * The Schedule panel: when the endpoint runs next and why, in words (explainSchedule), the facts
 * behind it, and the controls that change it (pause/resume, hints set by hand).
 */
import { useEffect, useRef, useState } from 'react';
import { Link } from 'react-router';
import { formatDateTime, formatDuration, formatRelative } from '../lib/time';
import { IntervalHintForm, OneShotHintForm } from './endpoint-hint-forms';
import { EndpointPauseForm, EndpointResumeButton } from './endpoint-pause';
import type { Endpoint } from './endpoint-queries';
import { describeBaseline, explainSchedule } from './endpoint-schedule-explain';
import { RunSourceBadge } from './run-badges';

/** The current time, ticking every second so countdowns stay true between refetches. */
function useNow(stepMs = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = window.setInterval(() => setNow(Date.now()), stepMs);
    return () => window.clearInterval(timer);
  }, [stepMs]);
  return now;
}

export function TimeText({ iso, now }: { iso: string | null; now: number }) {
  if (!iso) return <>—</>;
  return (
    <time dateTime={iso} title={formatDateTime(iso)}>
      {formatRelative(iso, now)}
    </time>
  );
}

export function EndpointSchedulePanel({ endpoint }: { endpoint: Endpoint }) {
  const now = useNow();
  const sentences = explainSchedule(endpoint, now);
  const isArchived = endpoint.status === 'archived';
  return (
    <section className="panel endpoint-panel endpoint-schedule" aria-labelledby="schedule-heading">
      <h2 id="schedule-heading">Schedule</h2>
      <NextRunLine endpoint={endpoint} now={now} />
      <ul className="endpoint-explanation">
        {sentences.map((sentence, index) => (
          // Index keys: the sentences' wording changes every second (countdowns), their order does not.
          <li key={index}>{sentence}</li>
        ))}
      </ul>
      <ScheduleFacts endpoint={endpoint} now={now} />
      {isArchived ? null : <ScheduleControls endpoint={endpoint} />}
    </section>
  );
}

function NextRunLine({ endpoint, now }: { endpoint: Endpoint; now: number }) {
  if (!endpoint.nextRunAt) {
    return <p className="endpoint-next-run">Next run: none planned.</p>;
  }
  const isDue = Date.parse(endpoint.nextRunAt) <= now;
  return (
    <p className="endpoint-next-run">
      Next run:{' '}
      <strong>
        {isDue ? (
          <time dateTime={endpoint.nextRunAt} title={formatDateTime(endpoint.nextRunAt)}>
            due now
          </time>
        ) : (
          <TimeText iso={endpoint.nextRunAt} now={now} />
        )}
      </strong>{' '}
      <span className="muted">({formatDateTime(endpoint.nextRunAt)})</span>{' '}
      {endpoint.nextRunSource ? <RunSourceBadge source={endpoint.nextRunSource} /> : null}
    </p>
  );
}

function ScheduleFacts({ endpoint, now }: { endpoint: Endpoint; now: number }) {
  const { interval, oneShot } = endpoint.hints;
  return (
    <dl className="facts">
      <dt>Baseline</dt>
      <dd>{describeBaseline(endpoint)}</dd>
      <dt>Minimum interval</dt>
      <dd>{endpoint.minIntervalMs !== null ? formatDuration(endpoint.minIntervalMs) : 'not set'}</dd>
      <dt>Maximum interval</dt>
      <dd>{endpoint.maxIntervalMs !== null ? formatDuration(endpoint.maxIntervalMs) : 'not set'}</dd>
      <dt>Jitter</dt>
      <dd>{endpoint.jitterMs > 0 ? `up to ${formatDuration(endpoint.jitterMs)} after the planned time` : 'none'}</dd>
      <dt>Auto-pause</dt>
      <dd>
        {endpoint.autoPauseAfterFailures !== null
          ? `after ${endpoint.autoPauseAfterFailures} consecutive failures`
          : "the account's default (Settings > Notifications)"}
      </dd>
      <dt>Consecutive failures</dt>
      <dd>
        {endpoint.failureCount} (backoff {endpoint.backoffMultiplier}x)
      </dd>
      <dt>Last run</dt>
      <dd>
        <TimeText iso={endpoint.lastRunAt} now={now} />
        {endpoint.lastStatus ? ` (${endpoint.lastStatus})` : ''}
      </dd>
      <dt>Interval hint</dt>
      <dd>
        {interval ? (
          <>
            every {formatDuration(interval.intervalMs)}, expires <TimeText iso={interval.expiresAt} now={now} /> (
            {interval.origin})
          </>
        ) : (
          'none'
        )}
      </dd>
      <dt>One-shot hint</dt>
      <dd>
        {oneShot ? (
          <>
            at {formatDateTime(oneShot.nextRunAt)}, expires <TimeText iso={oneShot.expiresAt} now={now} /> (
            {oneShot.origin})
          </>
        ) : (
          'none'
        )}
      </dd>
      <dt>Pause</dt>
      <dd>
        {endpoint.pausedUntil ? (
          <>
            until {formatDateTime(endpoint.pausedUntil)}
            {endpoint.pauseReason ? ` — ${endpoint.pauseReason}` : ''}
            {endpoint.autoPausedAt ? ' (auto-paused: resume when the endpoint is fixed)' : ''}
          </>
        ) : endpoint.jobPaused ? (
          <>
            the job is paused (<Link to={`/jobs/${endpoint.jobId}`}>resume it on the job page</Link>)
          </>
        ) : (
          'not paused'
        )}
      </dd>
      <dt>AI rules</dt>
      <dd>
        {endpoint.aiRules ? (
          <>
            proposed by the planner: {endpoint.aiRules.rules?.map((rule) => rule.name).join(', ') || 'no rules'}
            {endpoint.aiRules.successWhen ? ' and a successWhen' : ''}, after your rules; lapse{' '}
            <TimeText iso={endpoint.aiRules.expiresAt} now={now} />
            {endpoint.aiRules.reason ? ` — ${endpoint.aiRules.reason}` : ''}
          </>
        ) : (
          'none'
        )}
      </dd>
    </dl>
  );
}

function ScheduleControls({ endpoint }: { endpoint: Endpoint }) {
  // Resume disappears once the endpoint runs again: focus moves to Pause, its counterpart.
  const pauseButton = useRef<HTMLButtonElement>(null);
  return (
    <div className="endpoint-schedule-controls">
      {endpoint.pausedUntil ? (
        <EndpointResumeButton endpoint={endpoint} onResumed={() => pauseButton.current?.focus()} />
      ) : null}
      <EndpointPauseForm endpoint={endpoint} submitRef={pauseButton} />
      <details className="endpoint-hints">
        <summary>Set a hint by hand</summary>
        <p className="muted">
          Hints are what the planner proposes; setting one here overrides the schedule until it expires.
        </p>
        {endpoint.baselineCron === null ? (
          <IntervalHintForm endpoint={endpoint} />
        ) : (
          <p className="muted">Interval hints need an interval baseline; this endpoint runs on cron.</p>
        )}
        <OneShotHintForm endpoint={endpoint} />
      </details>
    </div>
  );
}
