/**
 * The span of an outbound call (README "Tracing"): one CLIENT span per execution, written here
 * rather than by the http instrumentation, which is suppressed for the call. Two reasons:
 * - the instrumentation injects `traceparent` into every request it sees, and the request a user
 *   defined reaches the target as the spec describes it (SPEC "Outbound": the signature headers and
 *   the endpoint's own), with no header of ours added;
 * - it records the full URL, whose path or query is often the secret (webhook URLs, tokens): this
 *   span keeps the scheme, host and port only.
 * No-op when tracing is off (the API's no-op tracer).
 */
import { SpanKind, SpanStatusCode, context, trace } from '@opentelemetry/api';
import { suppressTracing } from '@opentelemetry/core';
import { endingSpan } from '@kairos/queue';
import type { HttpOutcome } from './http/index.js';

const tracer = trace.getTracer('kairos');

export function traceOutboundCall(
  request: { method: string; url: string; runId: string; endpointId: string },
  call: () => Promise<HttpOutcome>,
): Promise<HttpOutcome> {
  // An unusable URL is the call's own failure (invalid_request); the span just has no address.
  const target = URL.canParse(request.url) ? new URL(request.url) : null;
  return tracer.startActiveSpan(
    request.method,
    {
      kind: SpanKind.CLIENT,
      attributes: {
        'http.request.method': request.method,
        'kairos.run.id': request.runId,
        'kairos.endpoint.id': request.endpointId,
        ...(target
          ? {
              'url.scheme': target.protocol.replace(/:$/, ''),
              'server.address': target.hostname,
              'server.port': Number(target.port) || (target.protocol === 'https:' ? 443 : 80),
            }
          : {}),
      },
    },
    (span) =>
      endingSpan(span, async () => {
        const outcome = await context.with(suppressTracing(context.active()), call);
        if (outcome.statusCode !== null) span.setAttribute('http.response.status_code', outcome.statusCode);
        if (outcome.status === 'failed') {
          span.setAttribute('error.type', outcome.errorKind ?? 'failed');
          span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.errorMessage ?? undefined });
        }
        return outcome;
      }),
  );
}
