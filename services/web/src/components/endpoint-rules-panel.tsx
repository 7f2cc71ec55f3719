/**
 * The endpoint's response rules on its page: the rule whose interval is in force (ruleState), when
 * a run succeeds, and each rule in words. Shown only when the endpoint has any.
 */
import { useQuery } from '@tanstack/react-query';
import { formatDateTime, formatDuration } from '../lib/time';
import type { Endpoint } from './endpoint-queries';
import { fetchJobEndpoints } from './job-queries';
import { describeRule, describeSuccessWhen } from './rules-format';

export function EndpointRulesPanel({ endpoint }: { endpoint: Endpoint }) {
  const { successWhen, rules, ruleState } = endpoint;
  const runsOthers = (rules ?? []).some((rule) => rule.then.runEndpoint !== undefined);
  const siblings = useQuery({
    queryKey: ['endpoint-form-siblings', endpoint.jobId],
    queryFn: () => fetchJobEndpoints(endpoint.jobId, 0, false),
    enabled: runsOthers,
  });
  if (!successWhen && !rules && !ruleState) return null;
  const nameOf = (id: string) => siblings.data?.items.find((item) => item.id === id)?.name ?? `endpoint ${id}`;
  return (
    <section className="panel endpoint-panel" aria-labelledby="rules-heading">
      <h2 id="rules-heading">Response rules</h2>
      <p className="endpoint-rule-state">
        {ruleState ? (
          <>
            <strong>Rule in force: {ruleState.rule}</strong> — runs every {formatDuration(ruleState.intervalMs)} because
            rule '{ruleState.rule}' matched at <time dateTime={ruleState.since}>{formatDateTime(ruleState.since)}</time>
            ; it lasts while runs keep matching (at the latest until{' '}
            <time dateTime={ruleState.expiresAt}>{formatDateTime(ruleState.expiresAt)}</time>).
          </>
        ) : (
          'No rule interval is in force: the schedule below the rules decides.'
        )}
      </p>
      <dl className="facts">
        <dt>Success</dt>
        <dd>{successWhen ? describeSuccessWhen(successWhen) : 'HTTP 2xx and 3xx succeed (the default).'}</dd>
        <dt>Rules</dt>
        <dd>
          {rules && rules.length > 0 ? (
            <ol className="rules-read">
              {rules.map((rule) => (
                <li key={rule.name}>
                  <strong>{rule.name}</strong>: {describeRule(rule, nameOf)}
                </li>
              ))}
            </ol>
          ) : (
            'none'
          )}
        </dd>
      </dl>
    </section>
  );
}
