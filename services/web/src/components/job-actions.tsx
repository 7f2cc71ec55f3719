/**
 * Pause job / Resume job / Archive job. Archive asks first: it is final (the job and all its
 * endpoints stop for good and cannot be resumed or edited). Pause and Resume are one button whose
 * label changes, so focus stays on it; after an archive the buttons are gone and focus goes to the
 * page's heading.
 */
import { useCanEdit } from '../lib/roles';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { JOBS_KEY, jobEndpointsKey, jobKey, type Job } from './job-queries';
import { ActionButton } from './action-button';
import { FormError } from './field';
import { focusPageHeading } from './page-title';

type Action = 'pause' | 'resume' | 'archive';

function callAction(action: Action, jobId: string) {
  const options = { params: { path: { jobId } } };
  if (action === 'pause') return unwrap(api.POST('/api/jobs/{jobId}/pause', options));
  if (action === 'resume') return unwrap(api.POST('/api/jobs/{jobId}/resume', options));
  return unwrap(api.POST('/api/jobs/{jobId}/archive', options));
}

export function archiveQuestion(job: Pick<Job, 'name' | 'endpointCount'>): string {
  const endpoints = job.endpointCount === 1 ? '1 endpoint' : `${job.endpointCount} endpoints`;
  return (
    `Archive the job "${job.name}"?\n\n` +
    `Archiving is final: the job and its ${endpoints} stop for good. ` +
    'An archived job cannot be resumed or edited, and no endpoint can be added to it. ' +
    'To stop it for a while instead, pause it.'
  );
}

/** A viewer (or a read-scoped key) sees no actions: the API would refuse them. */
export function JobActions({ job }: { job: Job }) {
  return useCanEdit() ? <JobActionsControls job={job} /> : null;
}

function JobActionsControls({ job }: { job: Job }) {
  const queryClient = useQueryClient();
  const action = useMutation({
    mutationFn: (which: Action) => callAction(which, job.id),
    onSuccess: (result, which) => {
      queryClient.setQueryData(jobKey(job.id), result.job);
      if (which === 'archive') focusPageHeading();
      void queryClient.invalidateQueries({ queryKey: JOBS_KEY });
      void queryClient.invalidateQueries({ queryKey: jobKey(job.id) });
      void queryClient.invalidateQueries({ queryKey: jobEndpointsKey(job.id) });
      void queryClient.invalidateQueries({ queryKey: ['endpoint'] });
    },
  });
  if (job.status === 'archived') return null;
  const archive = () => {
    if (window.confirm(archiveQuestion(job))) action.mutate('archive');
  };
  return (
    <div className="job-actions">
      <div className="actions">
        <ActionButton
          className={job.status === 'paused' ? 'primary' : undefined}
          onClick={() => action.mutate(job.status === 'paused' ? 'resume' : 'pause')}
          busy={action.isPending}
        >
          {job.status === 'paused' ? 'Resume job' : 'Pause job'}
        </ActionButton>
        <ActionButton className="danger" onClick={archive} busy={action.isPending}>
          Archive job
        </ActionButton>
      </div>
      <FormError message={action.error?.message} />
    </div>
  );
}
