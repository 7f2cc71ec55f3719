/**
 * The outbound call's span with tracing off (the call as it is, no trace headers) and on, with the
 * provider registered after this module was imported. The real got call: test/tracing/in-memory.test.ts.
 */
import { SpanKind, context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { traceOutboundCall } from './call-span.js';
import type { HttpOutcome, TraceHeaders } from './http/index.js';

const request = {
  method: 'POST',
  url: 'https://hooks.example.com:8443/secret?token=x',
  runId: 'r1',
  endpointId: 'e1',
  propagateTrace: true,
};

const outcome = (statusCode: number): HttpOutcome => ({
  status: 'success',
  statusCode,
  durationMs: 1,
  startedAt: new Date(0),
  completedAt: new Date(1),
  responseBody: null,
  responseFormat: 'empty',
  responseTruncated: false,
  responseBodyAltered: false,
  responseSizeBytes: 0,
  errorKind: null,
  errorMessage: null,
  finalUrl: request.url,
});

afterAll(() => {
  trace.disable();
  propagation.disable();
  context.disable();
});

describe('tracing off (nothing registered)', () => {
  it('makes the call with no trace headers and returns its outcome', async () => {
    const sent: TraceHeaders[] = [];
    const result = await traceOutboundCall({ ...request, url: 'not a url' }, async (traceHeaders) => {
      sent.push(traceHeaders);
      return outcome(200);
    });
    expect(result.statusCode).toBe(200);
    expect(sent).toEqual([{}]);
  });

  it('turns a synchronous throw of the call into a rejection, as with a span', async () => {
    let result: Promise<HttpOutcome> | undefined;
    expect(
      () =>
        (result = traceOutboundCall(request, () => {
          throw new Error('boom');
        })),
    ).not.toThrow();
    await expect(result).rejects.toThrow('boom');
  });
});

describe('tracing on, registered after import', () => {
  it('records the client span and sends its trace context', async () => {
    const exporter = new InMemorySpanExporter();
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    trace.setGlobalTracerProvider(new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] }));
    const sent: TraceHeaders[] = [];
    await traceOutboundCall(request, async (traceHeaders) => {
      sent.push(traceHeaders);
      return outcome(204);
    });
    const [span] = exporter.getFinishedSpans();
    expect(span?.kind).toBe(SpanKind.CLIENT);
    expect(span?.attributes).toEqual({
      'http.request.method': 'POST',
      'kairos.run.id': 'r1',
      'kairos.endpoint.id': 'e1',
      'url.scheme': 'https',
      'server.address': 'hooks.example.com',
      'server.port': 8443,
      'http.response.status_code': 204,
    });
    const { traceId, spanId } = span!.spanContext();
    expect(sent).toEqual([{ traceparent: `00-${traceId}-${spanId}-01` }]);
  });
});
