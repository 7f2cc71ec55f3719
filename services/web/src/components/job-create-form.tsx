/** "New job": name and description; VALIDATION_ERROR issues appear at their field. */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent, type Ref } from 'react';
import { useNavigate } from 'react-router';
import { api, ApiError, unwrap } from '../api/client';
import { Field, FormError } from './field';
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
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const create = useMutation({
    mutationFn: () => unwrap(api.POST('/api/jobs', { body: { name, ...(description.trim() ? { description } : {}) } })),
    onSuccess: (job) => {
      void queryClient.invalidateQueries({ queryKey: JOBS_KEY });
      void navigate(`/jobs/${job.id}`);
    },
  });
  const errors = splitJobErrors(create.error);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <form onSubmit={submit} noValidate aria-labelledby="new-job-heading">
      <h2 id="new-job-heading">New job</h2>
      <FormError message={errors.form} />
      <Field label="Name" error={errors.fields.name} hint="What the job is, e.g. Nightly exports.">
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
      <button type="submit" className="primary" disabled={create.isPending}>
        Create job
      </button>
    </form>
  );
}
