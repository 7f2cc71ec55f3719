/**
 * The backtest in the endpoint form: the rules as drafted, replayed over the endpoint's recorded
 * runs (POST /api/endpoints/{endpointId}/backtest) before anything is saved. Shows the runs whose
 * status would change, the rules each run would have matched, and the calls a day the rules imply
 * against the calls a day recorded. Nothing changes on the endpoint.
 */
import { useMutation } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { api, unwrap, type Schemas } from '../api/client';
import { formatDateTime, formatDuration } from '../lib/time';
import { ActionButton } from './action-button';
import { FormError } from './field';
import { buildRules, type RulesFormState } from './rules-format';

type BacktestResult = Schemas['BacktestResult'];

/** Runs listed per run, newest first (the summary counts them all). */
const RUNS_SHOWN = 20;

function callsText(value: number | null): string {
  return value === null ? 'not enough runs' : value.toLocaleString('en-US', { maximumFractionDigits: 1 });
}

export function RulesBacktest({ endpointId, draft }: { endpointId: string; draft: RulesFormState }) {
  const run = useMutation({
    mutationFn: () => {
      const built = buildRules(draft);
      const problems = Object.entries(built.issues);
      if (problems.length > 0) {
        const [field, message] = problems[0]!;
        throw new Error(`Complete the rules first (${field}: ${message}).`);
      }
      return unwrap(
        api.POST('/api/endpoints/{endpointId}/backtest', {
          params: { path: { endpointId } },
          body: { successWhen: built.successWhen, rules: built.rules },
        }),
      );
    },
  });
  return (
    <section className="endpoint-form-group rules-backtest" aria-labelledby="backtest-heading">
      <h2 id="backtest-heading">Try the rules on recorded runs</h2>
      <p className="muted">
        Replays the last 500 scheduled runs through the rules as drafted above, without saving anything.
      </p>
      <ActionButton busy={run.isPending} onClick={() => run.mutate()}>
        Run the backtest
      </ActionButton>
      <FormError message={run.error ? (run.error as Error).message : null} />
      {run.data ? <BacktestReport result={run.data} /> : null}
    </section>
  );
}

export function BacktestReport({ result }: { result: BacktestResult }) {
  const changed = result.statusChanges.length;
  const summary =
    result.runsReplayed === 0
      ? 'No recorded runs to replay yet.'
      : `Replayed ${result.runsReplayed} run${result.runsReplayed === 1 ? '' : 's'}: ` +
        `${changed === 0 ? 'no run changes status' : `${changed} run${changed === 1 ? '' : 's'} would change status`}; ` +
        `calls a day ${callsText(result.replayed.callsPerDay)} with these rules against ${callsText(result.recorded.callsPerDay)} recorded.`;
  const latest = [...result.runs].reverse().slice(0, RUNS_SHOWN);
  return (
    <div className="rules-backtest-report">
      <p role="status">{summary}</p>
      {result.runsReplayed > 0 ? (
        <dl className="facts">
          <dt>Window</dt>
          <dd>
            {result.from ? formatDateTime(result.from) : '—'} to {result.to ? formatDateTime(result.to) : '—'}
          </dd>
          <dt>Calls a day</dt>
          <dd>
            {callsText(result.replayed.callsPerDay)} with these rules; {callsText(result.recorded.callsPerDay)} recorded
          </dd>
          <dt>Successes and failures</dt>
          <dd>
            {result.replayed.successCount} and {result.replayed.failureCount} with these rules;{' '}
            {result.recorded.successCount} and {result.recorded.failureCount} recorded
          </dd>
          <dt>Other endpoints run</dt>
          <dd>
            {result.endpointRuns.length === 0
              ? 'none'
              : result.endpointRuns.map((entry) => `${entry.runs} run(s) of ${entry.endpointId}`).join(', ')}
          </dd>
          <dt>Analyses asked for</dt>
          <dd>{result.analysesRequested}</dd>
        </dl>
      ) : null}
      {changed > 0 ? (
        <ScrollTable caption="Runs whose status would change">
          <thead>
            <tr>
              <th scope="col">Started</th>
              <th scope="col">Recorded</th>
              <th scope="col">With these rules</th>
              <th scope="col">Why</th>
            </tr>
          </thead>
          <tbody>
            {result.statusChanges.map((change) => (
              <tr key={change.runId}>
                <th scope="row">
                  <time dateTime={change.startedAt}>{formatDateTime(change.startedAt)}</time>
                </th>
                <td data-label="Recorded">{change.recordedStatus}</td>
                <td data-label="With these rules">{change.status ?? 'not run (paused by a rule)'}</td>
                <td data-label="Why">{change.errorMessage ?? change.errorKind ?? '—'}</td>
              </tr>
            ))}
          </tbody>
        </ScrollTable>
      ) : null}
      {latest.length > 0 ? (
        <ScrollTable caption={`Rules matched per run (latest ${latest.length} of ${result.runsReplayed})`}>
          <thead>
            <tr>
              <th scope="col">Started</th>
              <th scope="col">HTTP</th>
              <th scope="col">Status with these rules</th>
              <th scope="col">Rules matched</th>
              <th scope="col">Rules matched as recorded</th>
            </tr>
          </thead>
          <tbody>
            {latest.map((entry) => (
              <tr key={entry.runId}>
                <th scope="row">
                  <time dateTime={entry.startedAt}>{formatDateTime(entry.startedAt)}</time>
                </th>
                <td data-label="HTTP">{entry.statusCode ?? '—'}</td>
                <td data-label="Status with these rules">{entry.status ?? 'not run (paused by a rule)'}</td>
                <td data-label="Rules matched">{entry.rulesMatched.join(', ') || 'none'}</td>
                <td data-label="Rules matched as recorded">{entry.recordedRulesMatched.join(', ') || 'none'}</td>
              </tr>
            ))}
          </tbody>
        </ScrollTable>
      ) : null}
      {result.schedule.length > 0 ? (
        <ScrollTable caption="The schedule these rules would have applied">
          <thead>
            <tr>
              <th scope="col">From</th>
              <th scope="col">To</th>
              <th scope="col">Schedule</th>
            </tr>
          </thead>
          <tbody>
            {result.schedule.slice(-RUNS_SHOWN).map((part) => (
              <tr key={part.from}>
                <th scope="row">
                  <time dateTime={part.from}>{formatDateTime(part.from)}</time>
                </th>
                <td data-label="To">
                  <time dateTime={part.to}>{formatDateTime(part.to)}</time>
                </td>
                <td data-label="Schedule">{scheduleWords(part)}</td>
              </tr>
            ))}
          </tbody>
        </ScrollTable>
      ) : null}
    </div>
  );
}

/**
 * A table that may be wider than the form: its wrapper scrolls, so it is a named region a keyboard
 * can reach and scroll (on narrow screens the rows stack instead).
 */
function ScrollTable({ caption, children }: { caption: string; children: ReactNode }) {
  return (
    <div className="table-wrap" role="region" aria-label={caption} tabIndex={0}>
      <table className="stack-table">
        <caption>{caption}</caption>
        {children}
      </table>
    </div>
  );
}

function scheduleWords(part: BacktestResult['schedule'][number]): string {
  if (part.source === 'paused') return `paused${part.rule ? ` by rule '${part.rule}'` : ''}`;
  const every = part.intervalMs !== null ? `every ${formatDuration(part.intervalMs)}` : 'cron times';
  if (part.source === 'rule') return `${every}, rule '${part.rule ?? ''}'`;
  return part.backoffMultiplier > 1 ? `baseline ${every} (backoff ${part.backoffMultiplier}x)` : `baseline, ${every}`;
}
