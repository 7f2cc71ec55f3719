/**
 * Set a hint by hand, as the planner would: an interval hint (POST hints/interval { intervalMs,
 * ttlMinutes, reason }, interval baselines only) or a one-shot hint (POST hints/oneshot { nextRunAt,
 * ttlMinutes, reason }). Hints always expire; the reason is required and shown on the endpoint.
 */
import { useState, type FormEvent } from 'react';
import { api, ApiError, unwrap } from '../api/client';
import { formatDateTime, formatDuration } from '../lib/time';
import { defaultDateTimeLocal, fromDateTimeLocal } from './endpoint-datetime';
import { useEndpointMutation, type Endpoint } from './endpoint-queries';
import { Field, FormError } from './field';

const DEFAULT_TTL_MINUTES = '30';

function formError(error: Error | null, fields: Record<string, string>, shown: string[]): string | null {
  if (!error) return null;
  return shown.some((field) => fields[field]) ? null : error.message;
}

export function IntervalHintForm({ endpoint }: { endpoint: Endpoint }) {
  const [seconds, setSeconds] = useState(() =>
    String(Math.max(1, Math.round((endpoint.baselineIntervalMs ?? 60_000) / 2000))),
  );
  const [ttl, setTtl] = useState(DEFAULT_TTL_MINUTES);
  const [reason, setReason] = useState('');
  const hint = useEndpointMutation(endpoint, (body: { intervalMs: number; ttlMinutes: number; reason: string }) =>
    unwrap(
      api.POST('/api/endpoints/{endpointId}/hints/interval', { params: { path: { endpointId: endpoint.id } }, body }),
    ),
  );
  const errors = hint.error instanceof ApiError ? hint.error.fieldErrors() : {};
  const submit = (event: FormEvent) => {
    event.preventDefault();
    hint.mutate({ intervalMs: Math.round(Number(seconds) * 1000), ttlMinutes: Number(ttl), reason: reason.trim() });
  };
  return (
    <form className="endpoint-inline-form" onSubmit={submit} noValidate aria-label="Set an interval hint">
      <h3>Interval hint</h3>
      <Field label="Hint interval (seconds)" error={errors.intervalMs} hint="Replaces the baseline and its backoff.">
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
        error={errors.ttlMinutes}
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
      <Field label="Hint reason" error={errors.reason}>
        <input type="text" value={reason} maxLength={500} onChange={(event) => setReason(event.target.value)} />
      </Field>
      <div className="actions">
        <button type="submit" disabled={hint.isPending}>
          Set interval hint
        </button>
      </div>
      <FormOutcome error={formError(hint.error, errors, ['intervalMs', 'ttlMinutes', 'reason'])}>
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
  const [localError, setLocalError] = useState<string | null>(null);
  const hint = useEndpointMutation(endpoint, (body: { nextRunAt: string; ttlMinutes: number; reason: string }) =>
    unwrap(
      api.POST('/api/endpoints/{endpointId}/hints/oneshot', { params: { path: { endpointId: endpoint.id } }, body }),
    ),
  );
  const errors = hint.error instanceof ApiError ? hint.error.fieldErrors() : {};
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const nextRunAt = fromDateTimeLocal(runAt);
    setLocalError(nextRunAt ? null : 'Choose the date and time of the run.');
    if (nextRunAt) hint.mutate({ nextRunAt, ttlMinutes: Number(ttl), reason: reason.trim() });
  };
  return (
    <form className="endpoint-inline-form" onSubmit={submit} noValidate aria-label="Set a one-shot hint">
      <h3>One-shot hint</h3>
      <Field label="Run once at" error={localError ?? errors.nextRunAt} hint="Your local time; a past time means now.">
        <input type="datetime-local" value={runAt} onChange={(event) => setRunAt(event.target.value)} />
      </Field>
      <Field
        label="One-shot TTL (minutes)"
        error={errors.ttlMinutes}
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
      <Field label="One-shot reason" error={errors.reason}>
        <input type="text" value={reason} maxLength={500} onChange={(event) => setReason(event.target.value)} />
      </Field>
      <div className="actions">
        <button type="submit" disabled={hint.isPending}>
          Set one-shot hint
        </button>
      </div>
      <FormOutcome error={formError(hint.error, errors, ['nextRunAt', 'ttlMinutes', 'reason'])}>
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
