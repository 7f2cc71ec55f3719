/** What the endpoint sends: method, URL, limits, headers (secrets masked by the API), body, description. */
import { formatDuration } from '../lib/time';
import type { Endpoint } from './endpoint-queries';
import { describeRetry } from './run-format';

export function EndpointRequestPanel({ endpoint }: { endpoint: Endpoint }) {
  const headers = Object.entries(endpoint.headersJson ?? {});
  const body =
    endpoint.bodyJson === null
      ? null
      : typeof endpoint.bodyJson === 'string'
        ? endpoint.bodyJson
        : JSON.stringify(endpoint.bodyJson, null, 2);
  return (
    <section className="panel endpoint-panel" aria-labelledby="request-heading">
      <h2 id="request-heading">Request</h2>
      <dl className="facts">
        <dt>Request</dt>
        <dd>
          <code>
            {endpoint.method} {endpoint.url}
          </code>
        </dd>
        <dt>Timeout</dt>
        <dd>{formatDuration(endpoint.timeoutMs)}</dd>
        <dt>Retries</dt>
        <dd>{describeRetry(endpoint.retry)}</dd>
        <dt>Response kept</dt>
        <dd>up to {endpoint.maxResponseSizeKb} KB</dd>
        <dt>Headers</dt>
        <dd>
          {headers.length === 0
            ? 'none'
            : headers.map(([name, value]) => (
                <div key={name}>
                  <code>
                    {name}: {value}
                  </code>
                </div>
              ))}
        </dd>
        <dt>Description for the planner</dt>
        <dd>{endpoint.description ?? <span className="muted">none</span>}</dd>
      </dl>
      {body !== null ? (
        <>
          <h3>Body</h3>
          <pre tabIndex={0} aria-label="Request body">
            {body}
          </pre>
        </>
      ) : null}
    </section>
  );
}
