/**
 * "Test now": runs the endpoint at once (POST /api/endpoints/{id}/test) and shows what came back.
 * The call answers when the run completes, so it can take up to the endpoint's timeout.
 */
import { Link } from 'react-router';
import { api, unwrap, type Schemas } from '../api/client';
import { formatDuration } from '../lib/time';
import { ActionButton } from './action-button';
import { useEndpointMutation, type Endpoint } from './endpoint-queries';
import { RunStatusBadge } from './run-badges';
import { bodyExcerpt } from './run-format';

type TestRunResult = Schemas['TestRunResult'];

export function useTestRun(endpoint: Endpoint) {
  return useEndpointMutation(endpoint, () =>
    unwrap(api.POST('/api/endpoints/{endpointId}/test', { params: { path: { endpointId: endpoint.id } } })),
  );
}

export function TestRunButton({ test }: { test: ReturnType<typeof useTestRun> }) {
  return (
    <ActionButton className="primary" onClick={() => test.mutate(undefined)} busy={test.isPending}>
      Test now
    </ActionButton>
  );
}

/** The pending note, the result, or why it could not run; nothing before the first test. */
export function TestRunOutcome({ endpoint, test }: { endpoint: Endpoint; test: ReturnType<typeof useTestRun> }) {
  if (test.isPending) {
    return (
      <p className="endpoint-test" role="status">
        Testing… waiting for the response (timeout {formatDuration(endpoint.timeoutMs)}).
      </p>
    );
  }
  if (test.error) {
    return (
      <p className="endpoint-test form-error" role="alert">
        Test not run: {test.error.message}
      </p>
    );
  }
  if (!test.data) return null;
  return <TestRunResultView result={test.data} />;
}

function TestRunResultView({ result }: { result: TestRunResult }) {
  const excerpt = bodyExcerpt(result.status === 'success' ? result.responseBody : null);
  return (
    <section className="endpoint-test panel" aria-labelledby="test-result-heading" role="status">
      <h3 id="test-result-heading">Test result</h3>
      <p>
        <RunStatusBadge status={result.status} />{' '}
        {result.statusCode !== null ? `HTTP ${result.statusCode}` : 'No response'} in{' '}
        {formatDuration(result.durationMs)}. <Link to={`/runs/${result.runId}`}>View the test run</Link>
      </p>
      {result.errorMessage ? <p className="form-error">{result.errorMessage}</p> : null}
      {excerpt ? (
        <pre aria-label="Response body excerpt" tabIndex={0}>
          {excerpt}
        </pre>
      ) : result.status === 'success' ? (
        <p className="muted">Empty response body.</p>
      ) : null}
    </section>
  );
}
