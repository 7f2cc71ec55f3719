/**
 * The span of an outbound call (docs/operations/observability.md "Tracing"): one CLIENT span per execution, written here
 * rather than by the http instrumentation, which is suppressed for the call. Two reasons:
 * - the instrumentation injects `traceparent` into every request it sees; here the trace context
 *   goes only where the endpoint lets it (`propagateTrace`, default true), and only while tracing
 *   is on: with it off (the default) the request carries exactly Kairos's own
 *   headers and the endpoint's own;
 * - it records the full URL, whose path or query is often the secret (webhook URLs, tokens): this
 *   span keeps the scheme, host and port only.
 * No-op when tracing is off (the API's no-op tracer and propagator: no span, no header), and then
 * skipped altogether (`isTracingOn`): the call as it is, with no span, attributes or URL parsing.
 */
import { SpanKind, SpanStatusCode, context, propagation, trace } from '@opentelemetry/api';
import { suppressTracing } from '@opentelemetry/core';
import { asPromise, endingSpan, isTracingOn } from '@kairos/queue';
import type { HttpOutcome, TraceHeaders } from './http/index.js';

const tracer = trace.getTracer('kairos');

/** The active span's `traceparent` (and `tracestate` when there is one); empty with tracing off. */
function traceHeadersOfActiveSpan(): TraceHeaders {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return {
    ...(carrier.traceparent ? { traceparent: carrier.traceparent } : {}),
    ...(carrier.tracestate ? { tracestate: carrier.tracestate } : {}),
  };
}

/**
 * Runs `call` in the call's CLIENT span; `call` gets the trace headers to send (the span's own
 * context, so the target's spans are its children), empty when `propagateTrace` is false or tracing off.
 */
export function traceOutboundCall(
  request: { method: string; url: string; runId: string; endpointId: string; propagateTrace: boolean },
  call: (traceHeaders: TraceHeaders) => Promise<HttpOutcome>,
): Promise<HttpOutcome> {
  // Off (the default), the span, its attributes, the parsed URL and the contexts were the no-op
  // tracer's and sent nothing: about 1 % of the executor's busy time at saturation with
  // processJobSpan's (`node --cpu-prof`).
  if (!isTracingOn()) return asPromise(() => call({}));
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
        const traceHeaders = request.propagateTrace ? traceHeadersOfActiveSpan() : {};
        const outcome = await context.with(suppressTracing(context.active()), () => call(traceHeaders));
        if (outcome.statusCode !== null) span.setAttribute('http.response.status_code', outcome.statusCode);
        if (outcome.status === 'failed') {
          span.setAttribute('error.type', outcome.errorKind ?? 'failed');
          span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.errorMessage ?? undefined });
        }
        return outcome;
      }),
  );
}
