/** The request: timeout, response size limit, headers and body (with its template tokens). */
import { CheckboxField, Field, RadioOptions } from './field';
import { DurationFieldInput, DurationInput } from './endpoint-form-duration';
import { HeadersEditor } from './endpoint-form-headers';
import type { SectionProps } from './endpoint-form-schedule';
import { METHODS_WITH_BODY, type BodyFormat } from './endpoint-form-state';

/** Replaced at each run (services/executor/src/http/template.ts). */
const TEMPLATE_TOKENS = '{{lastRunAt}}, {{scheduledAt}}, {{runId}}, {{endpointId}}, {{now}}';

const BODY_FORMATS: { value: BodyFormat; label: string }[] = [
  { value: 'json', label: 'JSON' },
  { value: 'text', label: 'Text' },
];

function BodyField({ state, set, errors }: SectionProps) {
  const allowsBody = METHODS_WITH_BODY.includes(state.method);
  if (!allowsBody && state.bodyText.trim() === '' && !errors.fields.body) {
    return <p className="muted">A request body can be sent with POST, PUT and PATCH.</p>;
  }
  const hint =
    state.bodyFormat === 'json'
      ? `A JSON object or array, sent as application/json unless you set Content-Type. Tokens replaced at each run, inside string values: ${TEMPLATE_TOKENS} (ISO 8601 UTC times; lastRunAt is empty before the first run).`
      : `Sent exactly as written (add a Content-Type header if the receiver needs one). Tokens replaced at each run: ${TEMPLATE_TOKENS} (ISO 8601 UTC times; lastRunAt is empty before the first run).`;
  return (
    <>
      <fieldset className="endpoint-form-radios endpoint-form-inline">
        <legend>Body format</legend>
        <RadioOptions
          name="body-format"
          options={BODY_FORMATS}
          value={state.bodyFormat}
          onChange={(bodyFormat) => set({ bodyFormat })}
        />
      </fieldset>
      <Field label="Body (optional)" error={errors.fields.body} hint={hint}>
        <textarea
          value={state.bodyText}
          onChange={(e) => set({ bodyText: e.target.value })}
          rows={6}
          spellCheck={false}
          placeholder={state.bodyFormat === 'json' ? '{ "since": "{{lastRunAt}}" }' : ''}
        />
      </Field>
    </>
  );
}

/** Retries inside a run (opt-in): how many, and the backoff's base and cap once there are any. */
function RetryFields({ state, set, errors }: SectionProps) {
  const hasRetries = !['', '0'].includes(state.retryAttempts.trim());
  return (
    <>
      <Field
        label="Retries (optional)"
        error={errors.fields.retry}
        hint="More calls within the same run after a connection error, timeout, 5xx or 429 (0 to 5; empty: none). Each call is recorded; the run counts as one failure. Retry-After is honoured; retries never run into the next planned run."
      >
        <input
          type="text"
          inputMode="numeric"
          value={state.retryAttempts}
          onChange={(e) => set({ retryAttempts: e.target.value })}
          placeholder="none"
        />
      </Field>
      {hasRetries && (
        <>
          <Field label="First retry after" hint="Then doubling each time (0.1 s to 1 min).">
            <DurationInput
              value={state.retryBase}
              onChange={(retryBase) => set({ retryBase })}
              unitLabel="Retry backoff unit"
            />
          </Field>
          <Field
            label="Longest wait between retries"
            hint="Also the longest Retry-After honoured: a target asking for more ends the retries (up to 5 min)."
          >
            <DurationInput
              value={state.retryCap}
              onChange={(retryCap) => set({ retryCap })}
              unitLabel="Retry cap unit"
            />
          </Field>
        </>
      )}
    </>
  );
}

export function RequestFields(form: SectionProps) {
  const { state, set, errors } = form;
  return (
    <fieldset className="endpoint-form-group">
      <legend>Request</legend>
      <DurationFieldInput
        form={form}
        name="timeout"
        label="Timeout"
        hint="The whole request including the body; 0.1 s to 5 min."
        unitLabel="Timeout unit"
      />
      <RetryFields {...form} />
      <CheckboxField
        label="Send the trace context"
        hint="When this Kairos installation has OpenTelemetry tracing on, each call carries the run's W3C traceparent (and tracestate), so your service's traces join the run's. Never sent while tracing is off."
        checked={state.propagateTrace}
        onChange={(propagateTrace) => set({ propagateTrace })}
      />
      <Field
        label="Response size limit (KiB)"
        error={errors.fields.maxResponseSizeKb}
        hint="Response bytes kept with each run, 1 to 1024; a larger body is truncated and flagged."
      >
        <input
          type="text"
          inputMode="numeric"
          value={state.maxResponseSizeKb}
          onChange={(e) => set({ maxResponseSizeKb: e.target.value })}
        />
      </Field>
      <HeadersEditor
        rows={state.headers}
        onChange={(headers) => set({ headers })}
        rowErrors={errors.headerRows}
        error={errors.fields.headers}
      />
      <BodyField {...form} />
    </fieldset>
  );
}
