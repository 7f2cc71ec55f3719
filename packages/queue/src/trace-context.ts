/**
 * One trace per execution across the queues (docs/operations/observability.md "Tracing"): a job carries the W3C
 * `traceparent` of the span that produced it, and its consumer opens a span from it.
 *
 * Kept small on purpose: one optional string of 55 characters, set only when tracing is on (with the
 * API's no-op propagator `currentTraceparent()` is undefined and the field is left out), because the
 * due job is the hot path's payload (one per endpoint, every run). No tracestate, no baggage.
 *
 * Propagated by hand rather than with the bullmq-otel add-on: the scheduler recomputes many
 * endpoints in one batch (a GroupCommit), so the context of the due job must be the context of the
 * change that asked for that endpoint, not of whichever job happened to start the batch.
 *
 * Parent or link: a schedule change (API request, planner hint) is the parent of its recompute, the
 * recompute of the due job's execution, the execution of its planner analysis: one trace from the
 * request to the analysis, even hours apart. A recompute after a run (`run-completed`) starts a new
 * trace linked to the run instead, or every endpoint would be one endless trace: so each execution
 * is found under the trace of the change or of the previous run's recompute that planned it.
 */
import {
  INVALID_SPAN_CONTEXT,
  ProxyTracerProvider,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  context,
  propagation,
  trace,
  type Context,
  type Span,
} from '@opentelemetry/api';
import { z } from 'zod';

const tracer = trace.getTracer('kairos');
/** The API's proxy that `tracer` delegates through (the global one, registered or not). */
const tracerProvider = trace.getTracerProvider();

/**
 * Whether tracing is on: a tracer provider or a propagator is registered (startTracing's SDK
 * registers both; with tracing off, the default, nothing is). Off, processJobSpan and the executor's
 * call span run their work directly rather than through the API's no-op tracer (span options and
 * attributes, URL parsing, contexts, `context.with`, inject, the ending wrapper): that was about 1 %
 * of the executor's busy time at saturation (`node --cpu-prof`), for nothing, since with neither
 * registered no trace context is extracted or injected and every span is the no-op one.
 * Checked on every call (a property read and the propagator's fields) rather than cached at load: a
 * provider may be registered after this module was imported (tests register theirs late). `tracer`
 * asks the proxy for a delegate on every span until there is one, and so does this; a provider that
 * is no proxy of this copy of the API (not expected) counts as on.
 */
export function isTracingOn(): boolean {
  return (
    !(tracerProvider instanceof ProxyTracerProvider) ||
    tracerProvider.getDelegateTracer('kairos') !== undefined ||
    propagation.fields().length > 0
  );
}

/** The span handed to the work when tracing is off: the no-op tracer's, shared (it holds nothing). */
const NON_RECORDING_SPAN: Span = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);

/** A job's trace context: a W3C traceparent (version 00 is 55 characters; later versions may be longer). */
export const traceparentField = z.string().max(256).optional();

/** The active span's traceparent, or undefined when tracing is off or no span is active. */
export function currentTraceparent(): string | undefined {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent;
}

/** `{ traceparent }` when there is one, else `{}`: spread into a payload so it stays absent when off. */
export const traceContextOf = (traceparent: string | undefined): { traceparent?: string } =>
  traceparent ? { traceparent } : {};

function contextFrom(traceparent: string | undefined): Context {
  return traceparent ? propagation.extract(ROOT_CONTEXT, { traceparent }) : ROOT_CONTEXT;
}

/**
 * Runs a job's work in a consumer span named `process <queue>`: a child of the job's traceparent,
 * or (`link`) the root of a new trace linked to it.
 */
export function processJobSpan<T>(
  queue: string,
  job: { id?: string; data: { traceparent?: string } },
  work: (span: Span) => Promise<T>,
  options: { link?: boolean; attributes?: Record<string, string | number> } = {},
): Promise<T> {
  if (!isTracingOn()) {
    return asPromise(() => work(NON_RECORDING_SPAN));
  }
  const remote = contextFrom(job.data.traceparent);
  const linked = options.link ? trace.getSpanContext(remote) : undefined;
  return tracer.startActiveSpan(
    `process ${queue}`,
    {
      kind: SpanKind.CONSUMER,
      root: options.link === true,
      links: linked ? [{ context: linked }] : [],
      attributes: {
        'messaging.system': 'bullmq',
        'messaging.destination.name': queue,
        'messaging.operation.type': 'process',
        ...(job.id ? { 'messaging.message.id': job.id } : {}),
        ...options.attributes,
      },
    },
    options.link ? ROOT_CONTEXT : remote,
    (span) => endingSpan(span, () => work(span)),
  );
}

/**
 * Runs `work` directly, a synchronous throw becoming the returned promise's rejection, as it does
 * through endingSpan's async wrapper: the untraced path fails the same way as the traced one.
 */
export function asPromise<T>(work: () => Promise<T>): Promise<T> {
  try {
    return work();
  } catch (error) {
    return Promise.reject(error);
  }
}

/** Runs `work`, then ends `span`, marked as an error with the exception when `work` threw. */
export async function endingSpan<T>(span: Span, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    span.recordException(error as Error);
    span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
    throw error;
  } finally {
    span.end();
  }
}
