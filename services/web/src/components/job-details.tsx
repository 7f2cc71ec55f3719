/** A job's facts, and the inline form that edits its name and description (PATCH, changed fields only). */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { api, unwrap, type Schemas } from '../api/client';
import { ActionButton } from './action-button';
import { Field, FormError } from './field';
import { useErrorFocus } from './form-errors';
import { RelativeTime } from './job-badges';
import { splitJobErrors } from './job-create-form';
import { JOBS_KEY, jobKey, type Job } from './job-queries';

export function JobFacts({ job }: { job: Job }) {
  return (
    <dl className="facts">
      <dt>Endpoints</dt>
      <dd>{job.endpointCount} (not counting archived ones)</dd>
      <dt>Description</dt>
      <dd className="job-description">{job.description ?? <span className="muted">none</span>}</dd>
      <dt>Created</dt>
      <dd>
        <RelativeTime iso={job.createdAt} />
      </dd>
      <dt>Updated</dt>
      <dd>
        <RelativeTime iso={job.updatedAt} />
      </dd>
      {job.pausedAt ? (
        <>
          <dt>Paused</dt>
          <dd>
            <RelativeTime iso={job.pausedAt} />
          </dd>
        </>
      ) : null}
      {job.archivedAt ? (
        <>
          <dt>Archived</dt>
          <dd>
            <RelativeTime iso={job.archivedAt} />
          </dd>
        </>
      ) : null}
      <dt>ID</dt>
      <dd>
        <code>{job.id}</code>
      </dd>
    </dl>
  );
}

/** Only what changed; an emptied description is cleared (null). */
export function jobPatch(job: Job, name: string, description: string): Schemas['UpdateJobInput'] {
  const patch: Schemas['UpdateJobInput'] = {};
  if (name.trim() !== job.name) patch.name = name;
  const nextDescription = description.trim() === '' ? null : description;
  if (nextDescription !== job.description) patch.description = nextDescription;
  return patch;
}

export function JobEditForm({ job, onDone }: { job: Job; onDone: () => void }) {
  const [name, setName] = useState(job.name);
  const [description, setDescription] = useState(job.description ?? '');
  const nameRef = useRef<HTMLInputElement>(null);
  useEffect(() => nameRef.current?.focus(), []);
  const queryClient = useQueryClient();
  const save = useMutation({
    mutationFn: (patch: Schemas['UpdateJobInput']) =>
      unwrap(api.PATCH('/api/jobs/{jobId}', { params: { path: { jobId: job.id } }, body: patch })),
    onSuccess: (updated) => {
      queryClient.setQueryData(jobKey(job.id), updated);
      void queryClient.invalidateQueries({ queryKey: JOBS_KEY });
      onDone();
    },
  });
  const [missingName, setMissingName] = useState<{ name: string } | null>(null);
  const errorFocus = useErrorFocus(missingName ?? save.error);
  const errors = splitJobErrors(save.error);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const isMissing = name.trim() === '';
    setMissingName(isMissing ? { name } : null);
    const patch = jobPatch(job, name, description);
    if (isMissing) save.reset();
    else if (Object.keys(patch).length === 0) onDone();
    else save.mutate(patch);
  };
  return (
    <form ref={errorFocus} onSubmit={submit} noValidate className="panel" aria-label="Edit job">
      <FormError message={errors.form} />
      <Field label="Name" error={missingName ? 'Give the job a name.' : errors.fields.name}>
        <input ref={nameRef} value={name} onChange={(e) => setName(e.target.value)} required maxLength={200} />
      </Field>
      <Field
        label="Description"
        error={errors.fields.description}
        hint="What the job does and how its endpoints coordinate. The planner reads it. Empty clears it."
      >
        <textarea
          value={description}
          onChange={(e) => setDescription(e.target.value)}
          rows={4}
          maxLength={4000}
          className="job-prose"
        />
      </Field>
      <div className="actions">
        <ActionButton type="submit" className="primary" busy={save.isPending}>
          Save changes
        </ActionButton>
        <ActionButton onClick={onDone} busy={save.isPending}>
          Cancel
        </ActionButton>
      </div>
    </form>
  );
}
