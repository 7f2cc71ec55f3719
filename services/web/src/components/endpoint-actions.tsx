/**
 * The endpoint's action bar: Test now, Run now, Edit, Clear hints, Reset failures, Archive endpoint.
 * Pause and resume live in the Schedule panel, beside the schedule they change. Each button keeps
 * focus while and after it runs (ActionButton); its outcome is announced in a status or alert line.
 */
import { useCanEdit } from '../lib/roles';
import { useState } from 'react';
import { Link } from 'react-router';
import { api, unwrap } from '../api/client';
import { ActionButton } from './action-button';
import { focusPageHeading } from './page-title';
import { useEndpointMutation, type Endpoint } from './endpoint-queries';
import { TestRunButton, TestRunOutcome, useTestRun } from './endpoint-test-run';

interface ActionMutation {
  mutate: (input: undefined, options: { onSuccess: () => void; onError: (error: Error) => void }) => void;
}

/** A viewer (or a read-scoped key) sees no actions: the API would refuse them. */
export function EndpointActions({ endpoint }: { endpoint: Endpoint }) {
  return useCanEdit() ? <EndpointActionsControls endpoint={endpoint} /> : null;
}

function EndpointActionsControls({ endpoint }: { endpoint: Endpoint }) {
  const path = { params: { path: { endpointId: endpoint.id } } };
  const test = useTestRun(endpoint);
  const runNow = useEndpointMutation(endpoint, () =>
    unwrap(api.POST('/api/endpoints/{endpointId}/run', { ...path, body: {} })),
  );
  const clearHints = useEndpointMutation(endpoint, () => unwrap(api.DELETE('/api/endpoints/{endpointId}/hints', path)));
  const resetFailures = useEndpointMutation(endpoint, () =>
    unwrap(api.POST('/api/endpoints/{endpointId}/reset-failures', path)),
  );
  const archive = useEndpointMutation(endpoint, () =>
    unwrap(
      api.POST('/api/jobs/{jobId}/endpoints/{endpointId}/archive', {
        params: { path: { jobId: endpoint.jobId, endpointId: endpoint.id } },
      }),
    ),
  );
  const [notice, setNotice] = useState<{ isError: boolean; text: string } | null>(null);
  const perform = (mutation: ActionMutation, doneText: string, onDone?: () => void) =>
    mutation.mutate(undefined, {
      onSuccess: () => {
        setNotice({ isError: false, text: doneText });
        onDone?.();
      },
      onError: (error) => setNotice({ isError: true, text: error.message }),
    });
  const confirmArchive = () => {
    const question = `Archive "${endpoint.name}"? It stops running for good; its runs are kept. This cannot be undone.`;
    // The actions disappear with the archive: focus goes to the page's heading, above the archived note.
    if (window.confirm(question)) perform(archive, 'Endpoint archived.', focusPageHeading);
  };

  if (endpoint.status === 'archived') return null;
  return (
    <div className="endpoint-actions">
      <div className="actions" role="group" aria-label="Endpoint actions">
        <TestRunButton test={test} />
        <ActionButton
          onClick={() =>
            perform(
              runNow,
              'Run queued: it runs now as a real run (source manual) and counts like a scheduled one; see it under Runs.',
            )
          }
          busy={runNow.isPending}
        >
          Run now
        </ActionButton>
        <Link className="button" to={`/endpoints/${endpoint.id}/edit`}>
          Edit
        </Link>
        <ActionButton
          onClick={() => perform(clearHints, 'Hints cleared: the baseline schedule applies.')}
          busy={clearHints.isPending}
        >
          Clear hints
        </ActionButton>
        <ActionButton
          onClick={() => perform(resetFailures, 'Failure count reset to 0: backoff removed.')}
          busy={resetFailures.isPending}
        >
          Reset failures
        </ActionButton>
        <ActionButton className="danger" onClick={confirmArchive} busy={archive.isPending}>
          Archive endpoint
        </ActionButton>
      </div>
      {notice ? (
        <p className={notice.isError ? 'form-error' : 'muted'} role={notice.isError ? 'alert' : 'status'}>
          {notice.text}
        </p>
      ) : null}
      <TestRunOutcome endpoint={endpoint} test={test} />
    </div>
  );
}
