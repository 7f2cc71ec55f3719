/**
 * A run's response body: pretty-printed JSON when it is JSON, the text otherwise, truncation and
 * replaced characters (responseBodyAltered) flagged.
 */
import type { Run } from './run-format';
import { formatResponseBody } from './run-format';

export function RunResponse({ run }: { run: Run }) {
  const body = formatResponseBody(run);
  return (
    <section aria-labelledby="response-heading">
      <h2 id="response-heading">Response body</h2>
      <p className="muted">
        {body.kind === 'json' ? 'JSON' : body.kind === 'text' ? 'Text' : 'No body'}
        {run.responseSizeBytes !== null ? ` · ${formatBytes(run.responseSizeBytes)} received` : ''}
      </p>
      {run.responseTruncated ? (
        <p className="run-truncated" role="note">
          <span className="badge badge-paused">truncated</span> The response was larger than the endpoint’s response
          size limit; only its beginning is kept below.
        </p>
      ) : null}
      {run.responseBodyAltered ? (
        <p className="run-truncated" role="note">
          <span className="badge badge-paused">altered</span> The response held characters that cannot be stored
          (U+0000, unpaired surrogates or invalid UTF-8); each was replaced by � (U+FFFD).
        </p>
      ) : null}
      {body.kind === 'empty' ? (
        <p className="state state-empty">The response had no body.</p>
      ) : (
        <pre tabIndex={0} aria-label="Response body" className="run-body">
          {body.text}
        </pre>
      )}
    </section>
  );
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  return `${(bytes / 1024).toFixed(bytes < 10_240 ? 1 : 0)} KB`;
}
