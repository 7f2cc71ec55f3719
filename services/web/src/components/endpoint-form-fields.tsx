/**
 * The endpoint form (create and edit): cheap checks in the browser, the API's VALIDATION_ERROR
 * issues mapped back onto the fields, any error without a field shown on top. A failed save
 * focuses the first invalid field (the summary when no field is); leaving the form with unsaved
 * changes asks first (useUnsavedWarning).
 */
import { useEffect, useRef, useState, type FormEvent, type Ref } from 'react';
import { Link } from 'react-router';
import { ActionButton } from './action-button';
import { Field, QuietFieldErrors } from './field';
import { focusFirstInvalid } from './form-errors';
import { useUnsavedWarning } from './unsaved-warning';
import { formErrorsOf } from './endpoint-form-issues';
import { RequestFields } from './endpoint-form-request-fields';
import { buildEndpointValues, type EndpointValues } from './endpoint-form-request';
import { RulesBacktest } from './endpoint-form-backtest';
import { CalendarFields } from './endpoint-form-calendar';
import { SchedulePreview } from './endpoint-form-preview';
import { RulesFields } from './endpoint-form-rules';
import { ScheduleFields, type SectionProps } from './endpoint-form-schedule';
import { HTTP_METHODS, NO_ERRORS, hasErrors, type EndpointFormState, type FormErrors } from './endpoint-form-state';

function BasicFields({ state, set, errors }: SectionProps) {
  return (
    <>
      <Field label="Name" error={errors.fields.name} hint="What the endpoint does, e.g. Export orders.">
        <input value={state.name} onChange={(e) => set({ name: e.target.value })} maxLength={200} />
      </Field>
      <Field
        label="Description"
        error={errors.fields.description}
        hint="Plain-language instructions for the planner, which reads them after each run: what the endpoint does, when to run it sooner or later, what its responses mean."
      >
        <textarea
          value={state.description}
          onChange={(e) => set({ description: e.target.value })}
          rows={4}
          maxLength={4000}
          className="endpoint-form-prose"
        />
      </Field>
      <Field
        label="URL"
        error={errors.fields.url}
        hint="http:// or https://. The query string may hold tokens, e.g. ?since={{lastRunAt}}."
      >
        <input
          type="url"
          value={state.url}
          onChange={(e) => set({ url: e.target.value })}
          placeholder="https://example.com/hooks/export"
          autoComplete="off"
          spellCheck={false}
        />
      </Field>
      <Field label="Method" error={errors.fields.method}>
        <select value={state.method} onChange={(e) => set({ method: e.target.value as EndpointFormState['method'] })}>
          {HTTP_METHODS.map((method) => (
            <option key={method}>{method}</option>
          ))}
        </select>
      </Field>
    </>
  );
}

function ErrorSummary({ errors, summaryRef }: { errors: FormErrors; summaryRef: Ref<HTMLDivElement> }) {
  const fieldCount =
    Object.keys(errors.fields).length +
    Object.keys(errors.headerRows).length +
    Object.keys(errors.ruleFields ?? {}).length;
  if (!hasErrors(errors)) return null;
  return (
    <div className="form-error endpoint-form-summary" role="alert" tabIndex={-1} ref={summaryRef}>
      <p>
        <strong>The endpoint was not saved.</strong>
        {fieldCount > 0 ? ` Check the ${fieldCount === 1 ? 'field' : `${fieldCount} fields`} marked below.` : null}
      </p>
      {errors.form.length > 0 ? (
        <ul>
          {errors.form.map((message) => (
            <li key={message}>{message}</li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

export function EndpointForm({
  initial,
  submitLabel,
  cancelTo,
  isPending,
  saveError,
  onSave,
  rules,
}: {
  initial: EndpointFormState;
  submitLabel: 'Create endpoint' | 'Save changes';
  cancelTo: string;
  isPending: boolean;
  saveError: unknown;
  onSave: (values: EndpointValues) => void;
  /** The job's other endpoints (rules may run them) and, once saved, this endpoint's id (for the backtest). */
  rules?: { siblings: { id: string; name: string }[]; endpointId: string | null };
}) {
  const [state, setState] = useState(initial);
  const [clientErrors, setClientErrors] = useState<FormErrors | null>(null);
  const [attempt, setAttempt] = useState(0);
  const summaryRef = useRef<HTMLDivElement>(null);
  const errors = clientErrors ?? (saveError ? formErrorsOf(saveError, state) : NO_ERRORS);
  const set = (patch: Partial<EndpointFormState>) => setState((current) => ({ ...current, ...patch }));

  // Leaving asks first once anything differs from the endpoint as loaded, unless a save is under way.
  const unsaved = useUnsavedWarning(JSON.stringify(state) !== JSON.stringify(initial));
  const { warnAgain } = unsaved;
  useEffect(() => {
    if (saveError) warnAgain();
  }, [saveError, warnAgain]);

  // After a failed save, focus the first invalid field (its message is tied to it) while the summary,
  // an alert, says how many there are; with no field to blame, the summary itself.
  const formRef = useRef<HTMLFormElement>(null);
  useEffect(() => {
    if (attempt > 0 && (clientErrors || saveError) && !focusFirstInvalid(formRef.current)) {
      summaryRef.current?.focus();
    }
  }, [attempt, clientErrors, saveError]);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const result = buildEndpointValues(state);
    setAttempt((count) => count + 1);
    if (!result.ok) {
      setClientErrors(result.errors);
      return;
    }
    setClientErrors(null);
    unsaved.allowLeaving();
    onSave(result.values);
  };
  const sectionProps = { state, set, errors };
  return (
    <form ref={formRef} onSubmit={submit} noValidate className="endpoint-form">
      <ErrorSummary errors={errors} summaryRef={summaryRef} />
      {/* The summary (an alert) says what failed; each field's message is read with the field. */}
      <QuietFieldErrors>
        <BasicFields {...sectionProps} />
        <ScheduleFields {...sectionProps} />
        <CalendarFields {...sectionProps} />
        {rules?.endpointId ? <SchedulePreview endpointId={rules.endpointId} state={state} /> : null}
        <RequestFields {...sectionProps} />
        <RulesFields
          {...sectionProps}
          context={{
            siblings: rules?.siblings ?? [],
            after: rules?.endpointId ? (
              <RulesBacktest endpointId={rules.endpointId} draft={state.responseRules} />
            ) : null,
          }}
        />
      </QuietFieldErrors>
      <div className="actions">
        <ActionButton type="submit" className="primary" busy={isPending}>
          {submitLabel}
        </ActionButton>
        <Link className="button" to={cancelTo}>
          Cancel
        </Link>
      </div>
    </form>
  );
}
