/**
 * The endpoint form (create and edit): cheap checks in the browser, the API's VALIDATION_ERROR
 * issues mapped back onto the fields, any error without a field shown on top.
 */
import { useEffect, useRef, useState, type FormEvent, type Ref } from 'react';
import { Link } from 'react-router';
import { Field } from './field';
import { formErrorsOf } from './endpoint-form-issues';
import { RequestFields } from './endpoint-form-request-fields';
import { buildEndpointValues, type EndpointValues } from './endpoint-form-request';
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
  const fieldCount = Object.keys(errors.fields).length + Object.keys(errors.headerRows).length;
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
}: {
  initial: EndpointFormState;
  submitLabel: 'Create endpoint' | 'Save changes';
  cancelTo: string;
  isPending: boolean;
  saveError: unknown;
  onSave: (values: EndpointValues) => void;
}) {
  const [state, setState] = useState(initial);
  const [clientErrors, setClientErrors] = useState<FormErrors | null>(null);
  const [attempt, setAttempt] = useState(0);
  const summaryRef = useRef<HTMLDivElement>(null);
  const errors = clientErrors ?? (saveError ? formErrorsOf(saveError, state) : NO_ERRORS);
  const set = (patch: Partial<EndpointFormState>) => setState((current) => ({ ...current, ...patch }));

  // After a failed save, move focus to the summary so keyboard and screen-reader users hear it.
  useEffect(() => {
    if (attempt > 0 && (clientErrors || saveError)) summaryRef.current?.focus();
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
    onSave(result.values);
  };
  const sectionProps = { state, set, errors };
  return (
    <form onSubmit={submit} noValidate className="endpoint-form">
      <ErrorSummary errors={errors} summaryRef={summaryRef} />
      <BasicFields {...sectionProps} />
      <ScheduleFields {...sectionProps} />
      <RequestFields {...sectionProps} />
      <div className="actions">
        <button type="submit" className="primary" disabled={isPending}>
          {submitLabel}
        </button>
        <Link className="button" to={cancelTo}>
          Cancel
        </Link>
      </div>
    </form>
  );
}
