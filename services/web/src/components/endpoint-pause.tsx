/**
 * Pause until a time (POST /api/endpoints/{id}/pause { pausedUntil, reason }) and Resume
 * (the same operation with pausedUntil null: resumes at once and clears the reason).
 * The API has no open-ended pause for an endpoint: a pause always has an end (pausing the whole job
 * is the indefinite form, on the job page).
 */
import { useState, type FormEvent, type Ref } from 'react';
import { api, ApiError, unwrap } from '../api/client';
import { ActionButton } from './action-button';
import { defaultDateTimeLocal, fromDateTimeLocal } from './endpoint-datetime';
import { useEndpointMutation, type Endpoint } from './endpoint-queries';
import { Field, FormError } from './field';
import { useErrorFocus } from './form-errors';

interface PauseInput {
  pausedUntil: string | null;
  reason: string | null;
}

const FUTURE = 'Choose a time in the future.';
const REASON_WORDS = 'Keep the reason to 500 characters.';

function usePause(endpoint: Endpoint) {
  return useEndpointMutation(endpoint, (body: PauseInput) =>
    unwrap(api.POST('/api/endpoints/{endpointId}/pause', { params: { path: { endpointId: endpoint.id } }, body })),
  );
}

export function EndpointPauseForm({ endpoint, submitRef }: { endpoint: Endpoint; submitRef?: Ref<HTMLButtonElement> }) {
  const pause = usePause(endpoint);
  const [until, setUntil] = useState(() => defaultDateTimeLocal(Date.now(), 60));
  const [reason, setReason] = useState('');
  const [localError, setLocalError] = useState<{ message: string } | null>(null);
  const errorFocus = useErrorFocus(localError ?? pause.error);
  // The api's words name its fields (pausedUntil); the form says what to do in its own.
  const apiErrors = pause.error instanceof ApiError ? pause.error.fieldErrors() : {};

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const pausedUntil = fromDateTimeLocal(until);
    const problem = !pausedUntil
      ? 'Choose the date and time the pause ends.'
      : Date.parse(pausedUntil) <= Date.now()
        ? FUTURE
        : null;
    setLocalError(problem ? { message: problem } : null);
    if (problem) pause.reset();
    else pause.mutate({ pausedUntil: pausedUntil!, reason: reason.trim() || null });
  };

  const untilError = localError?.message ?? (apiErrors.pausedUntil ? FUTURE : undefined);
  const otherError = pause.error && !apiErrors.pausedUntil && !apiErrors.reason ? pause.error.message : null;
  return (
    <form
      ref={errorFocus}
      className="endpoint-inline-form"
      onSubmit={submit}
      noValidate
      aria-label="Pause the endpoint"
    >
      <Field label="Pause until" error={untilError} hint="Your local time. No scheduled runs until then.">
        <input type="datetime-local" value={until} onChange={(event) => setUntil(event.target.value)} required />
      </Field>
      <Field label="Pause reason" error={apiErrors.reason ? REASON_WORDS : undefined} hint="Optional.">
        <input type="text" value={reason} maxLength={500} onChange={(event) => setReason(event.target.value)} />
      </Field>
      <div className="actions">
        <ActionButton type="submit" busy={pause.isPending} ref={submitRef}>
          Pause
        </ActionButton>
      </div>
      <FormError message={otherError} />
    </form>
  );
}

/** Resume: the button goes once the endpoint resumes, so `onResumed` says where focus goes next. */
export function EndpointResumeButton({ endpoint, onResumed }: { endpoint: Endpoint; onResumed?: () => void }) {
  const resume = usePause(endpoint);
  return (
    <div className="endpoint-resume">
      <ActionButton
        className="primary"
        onClick={() => resume.mutate({ pausedUntil: null, reason: null }, { onSuccess: onResumed })}
        busy={resume.isPending}
      >
        Resume
      </ActionButton>
      <FormError message={resume.error?.message} />
    </div>
  );
}
