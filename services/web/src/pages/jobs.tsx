/** /jobs: the account's jobs, filtered by status and paged, and the form that creates one. */
import { useCanEdit } from '../lib/roles';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useRef } from 'react';
import { useSearchParams } from 'react-router';
import { Field } from '../components/field';
import { JobCreateForm } from '../components/job-create-form';
import { JobListTable } from '../components/job-list-table';
import { Pager } from '../components/job-pager';
import { fetchJobs, JOBS_KEY, JOBS_PAGE_SIZE, type JobStatus } from '../components/job-queries';
import { PageHeading, usePageTitle } from '../components/page-title';
import { Empty, QueryView } from '../components/states';

const FILTERS: { value: JobStatus | ''; label: string }[] = [
  { value: '', label: 'All' },
  { value: 'active', label: 'Active' },
  { value: 'paused', label: 'Paused' },
  { value: 'archived', label: 'Archived' },
];

function parseStatus(value: string | null): JobStatus | null {
  return value === 'active' || value === 'paused' || value === 'archived' ? value : null;
}

export function JobsPage() {
  const [params, setParams] = useSearchParams();
  const status = parseStatus(params.get('status'));
  const offset = Math.max(0, Number(params.get('offset')) || 0);
  const nameRef = useRef<HTMLInputElement>(null);
  const canEdit = useCanEdit();
  usePageTitle('Jobs');
  const jobs = useQuery({
    queryKey: [...JOBS_KEY, { status, offset }],
    queryFn: () => fetchJobs(status, offset),
    placeholderData: keepPreviousData,
  });
  const update = (next: { status?: JobStatus | null; offset?: number }) => {
    const query = new URLSearchParams();
    const nextStatus = next.status === undefined ? status : next.status;
    const nextOffset = next.offset ?? 0;
    if (nextStatus) query.set('status', nextStatus);
    if (nextOffset > 0) query.set('offset', String(nextOffset));
    setParams(query);
  };
  return (
    <section>
      <div className="page-header">
        <PageHeading>Jobs</PageHeading>
        {canEdit ? (
          <a
            className="button"
            href="#new-job"
            onClick={(event) => {
              event.preventDefault();
              nameRef.current?.focus();
            }}
          >
            New job
          </a>
        ) : null}
      </div>
      <div className="job-filter">
        <Field label="Status">
          <select value={status ?? ''} onChange={(e) => update({ status: parseStatus(e.target.value) })}>
            {FILTERS.map((filter) => (
              <option key={filter.value} value={filter.value}>
                {filter.label}
              </option>
            ))}
          </select>
        </Field>
      </div>
      <QueryView query={jobs} what="Loading jobs">
        {(page) =>
          page.items.length === 0 ? (
            <Empty title={status ? `No ${status} jobs.` : 'No jobs yet.'}>
              <p>
                {status
                  ? 'Choose another status to see the rest.'
                  : 'A job groups the endpoints Kairos calls on a schedule. Create one below.'}
              </p>
            </Empty>
          ) : (
            <>
              <JobListTable jobs={page.items} />
              <Pager
                offset={offset}
                limit={JOBS_PAGE_SIZE}
                total={page.total}
                what="jobs"
                onChange={(next) => update({ offset: next })}
              />
            </>
          )
        }
      </QueryView>
      {canEdit ? (
        <section id="new-job" className="panel">
          <JobCreateForm nameRef={nameRef} />
        </section>
      ) : null}
    </section>
  );
}
