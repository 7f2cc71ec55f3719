/**
 * processJobSpan with tracing off (nothing registered: the work runs directly with the no-op span)
 * and on, registered after this module was imported, as tests and a late SDK do: a propagator alone
 * (the job's trace context still reaches the work, as through the no-op tracer) or a tracer provider
 * (the consumer span is recorded). The full path with Redis and the outbound call: test/tracing/.
 */
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { currentTraceparent, isTracingOn, processJobSpan } from './trace-context.js';

const TRACE_ID = 'a'.repeat(32);
const TRACEPARENT = `00-${TRACE_ID}-${'b'.repeat(16)}-01`;
const job = { id: 'j1', data: { traceparent: TRACEPARENT } };

// Not between tests: trace.disable() would also cut the module's tracer off any later provider.
afterAll(() => {
  trace.disable();
  propagation.disable();
  context.disable();
});

describe('tracing off (nothing registered)', () => {
  it('runs the work directly with a non-recording span and no trace context', async () => {
    expect(isTracingOn()).toBe(false);
    const seen = await processJobSpan('due', job, async (span) => {
      span.setAttribute('kairos.run.outcome', 'success');
      span.end();
      return {
        recording: span.isRecording(),
        valid: trace.isSpanContextValid(span.spanContext()),
        traceparent: currentTraceparent(),
      };
    });
    expect(seen).toEqual({ recording: false, valid: false, traceparent: undefined });
  });

  it('turns a synchronous throw of the work into a rejection, as with a span', async () => {
    const failing = () => {
      throw new Error('boom');
    };
    let result: Promise<unknown> | undefined;
    expect(() => (result = processJobSpan('due', job, failing))).not.toThrow();
    await expect(result).rejects.toThrow('boom');
  });
});

describe('tracing on, registered after import', () => {
  it('with a propagator alone, passes the job’s trace context to the work as before', async () => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    expect(isTracingOn()).toBe(true);
    const seen = await processJobSpan('due', job, async (span) => ({
      traceId: span.spanContext().traceId,
      traceparent: currentTraceparent(),
    }));
    expect(seen).toEqual({ traceId: TRACE_ID, traceparent: TRACEPARENT });
  });

  it('with a tracer provider, records the consumer span under the job’s trace', async () => {
    const exporter = new InMemorySpanExporter();
    propagation.disable();
    expect(isTracingOn()).toBe(false);
    trace.setGlobalTracerProvider(new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] }));
    expect(isTracingOn()).toBe(true);
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    const recording = await processJobSpan('due', job, async (span) => span.isRecording());
    expect(recording).toBe(true);
    const [span] = exporter.getFinishedSpans();
    expect(span?.name).toBe('process due');
    expect(span?.spanContext().traceId).toBe(TRACE_ID);
    expect(span?.attributes['messaging.message.id']).toBe('j1');
  });
});
