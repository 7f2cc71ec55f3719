/** /jobs/:jobId: the job's facts, inline edit, pause/resume/archive, and its endpoints. */
import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { Link, useParams } from 'react-router';
import { ApiError } from '../api/client';
import { StatusBadge } from '../components/job-badges';
import { JobActions } from '../components/job-actions';
import { JobEditForm, JobFacts } from '../components/job-details';
import { JobEndpoints } from '../components/job-endpoints';
import { fetchJob, jobKey, type Job } from '../components/job-queries';
import { PageHeading, usePageTitle } from '../components/page-title';
import { QueryView } from '../components/states';

function StatusNote({ job }: { job: Job }) {
  if (job.status === 'archived') {
    return (
      <p className="job-note" role="note">
        This job is archived. Archived is final: its endpoints no longer run, and the job cannot be resumed, edited or
        given new endpoints.
      </p>
    );
  }
  if (job.status === 'paused') {
    return (
      <p className="job-note" role="note">
        This job is paused: none of its endpoints run until it is resumed.
      </p>
    );
  }
  return null;
}

function JobView({ job }: { job: Job }) {
  const [isEditing, setEditing] = useState(false);
  // The edit form replaces "Edit job": once it is saved or cancelled, focus goes back to that button.
  const editButton = useRef<HTMLButtonElement>(null);
  const wasEditing = useRef(false);
  useEffect(() => {
    if (wasEditing.current && !isEditing) editButton.current?.focus();
    wasEditing.current = isEditing;
  }, [isEditing]);
  return (
    <>
      <nav aria-label="Breadcrumb" className="job-breadcrumb">
        <Link to="/jobs">← Jobs</Link>
      </nav>
      <div className="page-header">
        <div className="job-title">
          <PageHeading>{job.name}</PageHeading>
          <StatusBadge status={job.status} />
        </div>
        <JobActions job={job} />
      </div>
      <StatusNote job={job} />
      {isEditing ? (
        <JobEditForm job={job} onDone={() => setEditing(false)} />
      ) : (
        <>
          <JobFacts job={job} />
          {job.status === 'archived' ? null : (
            <div className="actions">
              <button type="button" ref={editButton} onClick={() => setEditing(true)}>
                Edit job
              </button>
            </div>
          )}
        </>
      )}
      <JobEndpoints job={job} />
    </>
  );
}

export function JobPage() {
  const { jobId = '' } = useParams();
  const job = useQuery({ queryKey: jobKey(jobId), queryFn: () => fetchJob(jobId) });
  usePageTitle(job.data?.name, 'Job');
  return (
    <section>
      <QueryView query={job} what="Loading the job">
        {(data) => <JobView job={data} />}
      </QueryView>
      {job.data === undefined && job.error instanceof ApiError && job.error.code === 'NOT_FOUND' ? (
        <p>
          <Link to="/jobs">Back to the jobs</Link>
        </p>
      ) : null}
    </section>
  );
}
