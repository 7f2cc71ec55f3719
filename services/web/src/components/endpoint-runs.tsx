/** The endpoint's runs, newest first, with a status filter and pages (new runs appear by themselves). */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { endpointRunsKey, fetchEndpointRuns, RUNS_PAGE_SIZE, type RunStatusFilter } from './endpoint-queries';
import { Field } from './field';
import { Pager } from './job-pager';
import { RunTable } from './run-table';
import { Empty, QueryView } from './states';

export function EndpointRuns({ endpointId }: { endpointId: string }) {
  const [status, setStatus] = useState<RunStatusFilter>(null);
  const [offset, setOffset] = useState(0);
  const runs = useQuery({
    queryKey: [...endpointRunsKey(endpointId), { status, offset }],
    queryFn: () => fetchEndpointRuns(endpointId, RUNS_PAGE_SIZE, offset, status),
    placeholderData: keepPreviousData,
  });
  const changeStatus = (value: string) => {
    setStatus(value === 'success' || value === 'failed' ? value : null);
    setOffset(0);
  };
  return (
    <section aria-labelledby="runs-heading">
      <h2 id="runs-heading">Runs</h2>
      <div className="endpoint-runs-filter">
        <Field label="Show runs">
          <select value={status ?? 'all'} onChange={(event) => changeStatus(event.target.value)}>
            <option value="all">All</option>
            <option value="success">Successful</option>
            <option value="failed">Failed</option>
          </select>
        </Field>
      </div>
      <QueryView query={runs} what="Loading runs">
        {(page) =>
          page.items.length === 0 ? (
            <Empty title={status ? `No ${status === 'success' ? 'successful' : 'failed'} runs.` : 'No runs yet.'}>
              <p>Runs appear here as the endpoint executes.</p>
            </Empty>
          ) : (
            <>
              <RunTable runs={page.items} caption="Runs of this endpoint, newest first" />
              <Pager offset={offset} limit={RUNS_PAGE_SIZE} total={page.total} what="runs" onChange={setOffset} />
            </>
          )
        }
      </QueryView>
    </section>
  );
}
