/**
 * Pause until a time (POST /api/endpoints/{id}/pause { pausedUntil, reason }) and Resume
 * (the same operation with pausedUntil null: resumes at once and clears the reason).
 * The API has no open-ended pause for an endpoint: a pause always has an end (pausing the whole job
 * is the indefinite form, on the job page).
 */
import { useState, type FormEvent } from 'react';
import { api, ApiError, unwrap } from '../api/client';
import { defaultDateTimeLocal, fromDateTimeLocal } from './endpoint-datetime';
import { useEndpointMutation, type Endpoint } from './endpoint-queries';
import { Field, FormError } from './field';

interface PauseInput {
  pausedUntil: string | null;
  reason: string | null;
}

function usePause(endpoint: Endpoint) {
  return useEndpointMutation(endpoint, (body: PauseInput) =>
    unwrap(api.POST('/api/endpoints/{endpointId}/pause', { params: { path: { endpointId: endpoint.id } }, body })),
  );
}

export function EndpointPauseForm({ endpoint }: { endpoint: Endpoint }) {
  const pause = usePause(endpoint);
  const [until, setUntil] = useState(() => defaultDateTimeLocal(Date.now(), 60));
  const [reason, setReason] = useState('');
  const [localError, setLocalError] = useState<string | null>(null);
  const apiErrors = pause.error instanceof ApiError ? pause.error.fieldErrors() : {};

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const pausedUntil = fromDateTimeLocal(until);
    const problem = !pausedUntil
      ? 'Choose the date and time the pause ends.'
      : Date.parse(pausedUntil) <= Date.now()
        ? 'Choose a time in the future.'
        : null;
    setLocalError(problem);
    if (problem) pause.reset();
    else pause.mutate({ pausedUntil: pausedUntil!, reason: reason.trim() || null });
  };

  const untilError = localError ?? apiErrors.pausedUntil;
  const otherError = pause.error && !apiErrors.pausedUntil && !apiErrors.reason ? pause.error.message : null;
  return (
    <form className="endpoint-inline-form" onSubmit={submit} noValidate aria-label="Pause the endpoint">
      <Field label="Pause until" error={untilError} hint="Your local time. No scheduled runs until then.">
        <input type="datetime-local" value={until} onChange={(event) => setUntil(event.target.value)} required />
      </Field>
      <Field label="Pause reason" error={apiErrors.reason} hint="Optional.">
        <input type="text" value={reason} maxLength={500} onChange={(event) => setReason(event.target.value)} />
      </Field>
      <div className="actions">
        <button type="submit" disabled={pause.isPending}>
          Pause
        </button>
      </div>
      <FormError message={otherError} />
    </form>
  );
}

export function EndpointResumeButton({ endpoint }: { endpoint: Endpoint }) {
  const resume = usePause(endpoint);
  return (
    <div className="endpoint-resume">
      <button
        type="button"
        className="primary"
        onClick={() => resume.mutate({ pausedUntil: null, reason: null })}
        disabled={resume.isPending}
      >
        Resume
      </button>
      <FormError message={resume.error?.message} />
    </div>
  );
}
