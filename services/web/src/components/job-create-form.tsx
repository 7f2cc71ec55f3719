/**
 * "New job": name and description; VALIDATION_ERROR issues appear at their field, and a failed
 * create focuses the first of them and announces it (form-errors.tsx).
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent, type Ref } from 'react';
import { useNavigate } from 'react-router';
import { api, ApiError, unwrap } from '../api/client';
import { ActionButton } from './action-button';
import { Field, FormError } from './field';
import { useErrorFocus } from './form-errors';
import { JOBS_KEY } from './job-queries';

/** Field errors for the fields this form shows; the rest (and errors without issues) go on top. */
export function splitJobErrors(error: unknown): { fields: Record<string, string>; form: string | null } {
  if (!(error instanceof ApiError))
    return { fields: {}, form: error ? String((error as Error).message ?? error) : null };
  const fields = error.fieldErrors();
  const shown = Object.fromEntries(
    Object.entries(fields).filter(([field]) => field === 'name' || field === 'description'),
  );
  const hasOthers = error.issues.length === 0 || Object.keys(shown).length < Object.keys(fields).length;
  return { fields: shown, form: hasOthers ? error.message : null };
}

export function JobCreateForm({ nameRef }: { nameRef?: Ref<HTMLInputElement> }) {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [missingName, setMissingName] = useState<{ name: string } | null>(null);
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const create = useMutation({
    mutationFn: () => unwrap(api.POST('/api/jobs', { body: { name, ...(description.trim() ? { description } : {}) } })),
    onSuccess: (job) => {
      void queryClient.invalidateQueries({ queryKey: JOBS_KEY });
      void navigate(`/jobs/${job.id}`);
    },
  });
  const errorFocus = useErrorFocus(missingName ?? create.error);
  const errors = splitJobErrors(create.error);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const isMissing = name.trim() === '';
    setMissingName(isMissing ? { name } : null);
    if (isMissing) create.reset();
    else create.mutate();
  };
  return (
    <form ref={errorFocus} onSubmit={submit} noValidate aria-labelledby="new-job-heading">
      <h2 id="new-job-heading">New job</h2>
      <FormError message={errors.form} />
      <Field
        label="Name"
        error={missingName ? 'Give the job a name.' : errors.fields.name}
        hint="What the job is, e.g. Nightly exports."
      >
        <input ref={nameRef} value={name} onChange={(e) => setName(e.target.value)} required maxLength={200} />
      </Field>
      <Field
        label="Description"
        error={errors.fields.description}
        hint="Optional: what the job does and how its endpoints coordinate. The planner reads it."
      >
        <textarea
          value={description}
          onChange={(e) => setDescription(e.target.value)}
          rows={3}
          maxLength={4000}
          className="job-prose"
        />
      </Field>
      <ActionButton type="submit" className="primary" busy={create.isPending}>
        Create job
      </ActionButton>
    </form>
  );
}
