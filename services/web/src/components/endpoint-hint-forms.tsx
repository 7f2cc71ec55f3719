/**
 * Set a hint by hand, as the planner would: an interval hint (POST hints/interval { intervalMs,
 * ttlMinutes, reason }, interval baselines only) or a one-shot hint (POST hints/oneshot { nextRunAt,
 * ttlMinutes, reason }). Hints always expire; the reason is required and shown on the endpoint.
 * The forms check the bounds in their own units (seconds, minutes) before sending; an API issue on
 * a field is shown in the same words, never the API's (intervalMs, milliseconds).
 */
import { useState, type FormEvent } from 'react';
import { api, ApiError, unwrap } from '../api/client';
import { formatDateTime, formatDuration } from '../lib/time';
import { ActionButton } from './action-button';
import { defaultDateTimeLocal, fromDateTimeLocal } from './endpoint-datetime';
import { useEndpointMutation, type Endpoint } from './endpoint-queries';
import { Field, FormError } from './field';
import { useErrorFocus } from './form-errors';
import { numberIn } from './form-numbers';

const DEFAULT_TTL_MINUTES = '30';
/** The API's bounds (LIMITS.intervalMinMs, intervalMaxMs and hintTtlMaxMinutes in @kairos/core). */
const INTERVAL_MAX_SECONDS = 2_147_483;
const TTL_MAX_MINUTES = 10_080;

const WORDS = {
  intervalMs: 'Enter a number of seconds: at least 1 second, at most 2,147,483 (about 24 days).',
  ttlMinutes: 'Enter a number of minutes above 0, at most 10,080 minutes (7 days).',
  reason: 'Say why you set the hint (shown on the endpoint), in at most 500 characters.',
  nextRunAt: 'Choose a time before the hint expires: lengthen the TTL or pick an earlier time.',
  /** A one-shot TTL within bounds that the API still refuses: the safety floor puts the run past it. */
  ttlPastFloor: "Lengthen the TTL: the endpoint's safety floor puts its next run after the hint would expire.",
};
type HintField = 'intervalMs' | 'ttlMinutes' | 'reason' | 'nextRunAt';
type Problems = Partial<Record<HintField, string>>;

/** The form's words for each field the API refused (any other refusal is shown on top, as said). */
function apiProblems(error: Error | null, fields: HintField[], ttlWords = WORDS.ttlMinutes): Problems {
  if (!(error instanceof ApiError)) return {};
  const refused = error.fieldErrors();
  const problems: Problems = {};
  for (const field of fields) if (refused[field]) problems[field] = field === 'ttlMinutes' ? ttlWords : WORDS[field];
  return problems;
}

function formError(error: Error | null, problems: Problems): string | null {
  if (!error) return null;
  return Object.keys(problems).length > 0 ? null : error.message;
}

function checkTtl(ttl: string, problems: Problems): number | null {
  const minutes = numberIn(ttl, { above: 0, max: TTL_MAX_MINUTES });
  if (minutes === null) problems.ttlMinutes = WORDS.ttlMinutes;
  return minutes;
}

function checkReason(reason: string, problems: Problems): string {
  if (reason.trim() === '') problems.reason = WORDS.reason;
  return reason.trim();
}

export function IntervalHintForm({ endpoint }: { endpoint: Endpoint }) {
  const [seconds, setSeconds] = useState(() =>
    String(Math.max(1, Math.round((endpoint.baselineIntervalMs ?? 60_000) / 2000))),
  );
  const [ttl, setTtl] = useState(DEFAULT_TTL_MINUTES);
  const [reason, setReason] = useState('');
  const [checked, setChecked] = useState<{ problems: Problems } | null>(null);
  const hint = useEndpointMutation(endpoint, (body: { intervalMs: number; ttlMinutes: number; reason: string }) =>
    unwrap(
      api.POST('/api/endpoints/{endpointId}/hints/interval', { params: { path: { endpointId: endpoint.id } }, body }),
    ),
  );
  const errorFocus = useErrorFocus(checked ?? hint.error);
  const problems = checked?.problems ?? apiProblems(hint.error, ['intervalMs', 'ttlMinutes', 'reason']);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const found: Problems = {};
    const intervalSeconds = numberIn(seconds, { min: 1, max: INTERVAL_MAX_SECONDS });
    if (intervalSeconds === null) found.intervalMs = WORDS.intervalMs;
    const ttlMinutes = checkTtl(ttl, found);
    const why = checkReason(reason, found);
    if (intervalSeconds === null || ttlMinutes === null || Object.keys(found).length > 0) {
      setChecked({ problems: found });
      hint.reset();
      return;
    }
    setChecked(null);
    hint.mutate({ intervalMs: Math.round(intervalSeconds * 1000), ttlMinutes, reason: why });
  };
  return (
    <form
      ref={errorFocus}
      className="endpoint-inline-form"
      onSubmit={submit}
      noValidate
      aria-label="Set an interval hint"
    >
      <h3>Interval hint</h3>
      <Field label="Hint interval (seconds)" error={problems.intervalMs} hint="Replaces the baseline and its backoff.">
        <input
          type="number"
          inputMode="decimal"
          min={1}
          step="any"
          value={seconds}
          onChange={(event) => setSeconds(event.target.value)}
        />
      </Field>
      <Field
        label="Hint TTL (minutes)"
        error={problems.ttlMinutes}
        hint="Minutes until the hint expires; then the baseline applies again."
      >
        <input
          type="number"
          inputMode="decimal"
          min={1}
          step="any"
          value={ttl}
          onChange={(event) => setTtl(event.target.value)}
        />
      </Field>
      <Field label="Hint reason" error={problems.reason}>
        <input type="text" value={reason} maxLength={500} onChange={(event) => setReason(event.target.value)} />
      </Field>
      <div className="actions">
        <ActionButton type="submit" busy={hint.isPending}>
          Set interval hint
        </ActionButton>
      </div>
      <FormOutcome error={formError(hint.error, problems)}>
        {hint.data
          ? `Every ${formatDuration(hint.data.clampedIntervalMs)} until ${formatDateTime(hint.data.expiresAt)}` +
            (hint.data.clampedIntervalMs !== hint.data.intervalMs ? ' (clamped by the governor).' : '.')
          : null}
      </FormOutcome>
    </form>
  );
}

export function OneShotHintForm({ endpoint }: { endpoint: Endpoint }) {
  const [runAt, setRunAt] = useState(() => defaultDateTimeLocal(Date.now(), 5));
  const [ttl, setTtl] = useState(DEFAULT_TTL_MINUTES);
  const [reason, setReason] = useState('');
  const [checked, setChecked] = useState<{ problems: Problems } | null>(null);
  const hint = useEndpointMutation(endpoint, (body: { nextRunAt: string; ttlMinutes: number; reason: string }) =>
    unwrap(
      api.POST('/api/endpoints/{endpointId}/hints/oneshot', { params: { path: { endpointId: endpoint.id } }, body }),
    ),
  );
  const errorFocus = useErrorFocus(checked ?? hint.error);
  const problems =
    checked?.problems ?? apiProblems(hint.error, ['nextRunAt', 'ttlMinutes', 'reason'], WORDS.ttlPastFloor);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const found: Problems = {};
    const nextRunAt = fromDateTimeLocal(runAt);
    if (!nextRunAt) found.nextRunAt = 'Choose the date and time of the run.';
    const ttlMinutes = checkTtl(ttl, found);
    const why = checkReason(reason, found);
    if (!nextRunAt || ttlMinutes === null || Object.keys(found).length > 0) {
      setChecked({ problems: found });
      hint.reset();
      return;
    }
    setChecked(null);
    hint.mutate({ nextRunAt, ttlMinutes, reason: why });
  };
  return (
    <form
      ref={errorFocus}
      className="endpoint-inline-form"
      onSubmit={submit}
      noValidate
      aria-label="Set a one-shot hint"
    >
      <h3>One-shot hint</h3>
      <Field label="Run once at" error={problems.nextRunAt} hint="Your local time; a past time means now.">
        <input type="datetime-local" value={runAt} onChange={(event) => setRunAt(event.target.value)} />
      </Field>
      <Field
        label="One-shot TTL (minutes)"
        error={problems.ttlMinutes}
        hint="Minutes until the hint expires; the run must fall before that."
      >
        <input
          type="number"
          inputMode="decimal"
          min={1}
          step="any"
          value={ttl}
          onChange={(event) => setTtl(event.target.value)}
        />
      </Field>
      <Field label="One-shot reason" error={problems.reason}>
        <input type="text" value={reason} maxLength={500} onChange={(event) => setReason(event.target.value)} />
      </Field>
      <div className="actions">
        <ActionButton type="submit" busy={hint.isPending}>
          Set one-shot hint
        </ActionButton>
      </div>
      <FormOutcome error={formError(hint.error, problems)}>
        {hint.data ? `One run at ${formatDateTime(hint.data.nextRunAt)}.` : null}
      </FormOutcome>
    </form>
  );
}

function FormOutcome({ error, children }: { error: string | null; children: string | null }) {
  if (error) return <FormError message={error} />;
  return children ? (
    <p className="muted" role="status">
      {children}
    </p>
  ) : null;
}
