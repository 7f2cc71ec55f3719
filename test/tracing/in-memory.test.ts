/**
 * Tracing pieces in process, with the SDK's InMemorySpanExporter: the BullMQ hop (a real queue on
 * the machine's Redis: producer span → job data's traceparent → consumer span), the link that
 * starts a new trace after a run, the outbound call's span (a real got call to a local server) and
 * the trace context the target receives (or not, with the endpoint's propagateTrace false), trace ids
 * in log lines, and nothing at all while tracing is off. The library instrumentations
 * (express, pg, ioredis, http) hook Node's module loader, which jest's module system bypasses: the
 * child-process test beside this one (one-trace.test.ts) checks their spans and parents.
 */
import { randomBytes } from 'node:crypto';
import { ROOT_CONTEXT, SpanKind, context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import {
  QUEUES,
  createRedisConnection,
  createScheduleChangeNotifier,
  currentTraceparent,
  processJobSpan,
  scheduleChangePayload,
  traceContextOf,
  type ScheduleChangePayload,
} from '@kairos/queue';
import { createLogger, isTracingEnabled, startTracing } from '@kairos/runtime';
import { Queue, Worker, type Job } from 'bullmq';
import { traceOutboundCall } from '../../services/executor/src/call-span.js';
import { createHttpExecutor } from '../../services/executor/src/http/index.js';
import { REDIS_URL } from '../env.mjs';
import { startTestServer, type TestServer } from '../test-server.js';

const tracer = trace.getTracer('test');
const prefix = `{kairos-trace-${randomBytes(4).toString('hex')}}`;
const redis = createRedisConnection(REDIS_URL);
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer((_req, res) => res.writeHead(200).end('ok'));
});

afterAll(async () => {
  const queue = new Queue(QUEUES.scheduleChanges, { connection: redis, prefix });
  await queue.obliterate({ force: true });
  await queue.close();
  redis.disconnect();
  await server.close();
});

/**
 * One outbound call to the local target at `path` as the executor makes it (call span + got), inside
 * a `process due` span continuing a remote trace that has vendor state (tracestate); the endpoint's
 * own headers include a stale traceparent/tracestate pair.
 */
async function callTarget(path: string, propagateTrace: boolean) {
  const http = createHttpExecutor({ egress: { allowPrivateTargets: true, allowCidrs: [] }, userAgent: 'test' });
  const url = `${server.origin}${path}`;
  const headers = { traceparent: USER_TRACEPARENT, tracestate: 'user=1' };
  try {
    const remote = propagation.extract(ROOT_CONTEXT, { traceparent: REMOTE_TRACEPARENT, tracestate: 'vendor=abc' });
    const outcome = await tracer.startActiveSpan('process due', {}, remote, async (due) => {
      const result = await traceOutboundCall(
        { method: 'POST', url, runId: 'r1', endpointId: 'e1', propagateTrace },
        (traceHeaders) =>
          http.execute(
            { url, method: 'POST', headers, body: '{}', timeoutMs: 2000, maxResponseSizeKb: 10 },
            { runId: 'r1', endpointId: 'e1', scheduledAt: new Date(), lastRunAt: null, signingKey: null, traceHeaders },
          ),
      );
      due.end();
      return result;
    });
    expect(outcome.status).toBe('success');
    const received = server.requests.filter((request) => request.url === path);
    expect(received).toHaveLength(1);
    return received[0]!.headers;
  } finally {
    http.close();
  }
}

const USER_TRACEPARENT = `00-${'1'.repeat(32)}-${'2'.repeat(16)}-01`;
const REMOTE_TRACEPARENT = `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01`;

/** Logs one line through the service logger and returns what its transport received. */
function logLine(message: string): Record<string, unknown> {
  const logger = createLogger('test', 'info');
  const transport = logger.transports[0]!;
  const lines: Record<string, unknown>[] = [];
  transport.silent = false;
  transport.log = (info: Record<string, unknown>, next: () => void) => {
    lines.push(info);
    next();
  };
  logger.info(message);
  return lines[0]!;
}

describe('tracing off (no OTLP endpoint)', () => {
  it('starts nothing, puts no traceparent in job data and no trace id in log lines', async () => {
    expect(isTracingEnabled({})).toBe(false);
    expect(isTracingEnabled({ OTEL_EXPORTER_OTLP_ENDPOINT: '' })).toBe(false);
    expect(isTracingEnabled({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SDK_DISABLED: 'true' })).toBe(
      false,
    );
    expect(
      isTracingEnabled({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_TRACES_EXPORTER: 'none' }),
    ).toBe(false);
    expect(isTracingEnabled({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces' })).toBe(true);
    await startTracing('test', {});
    await tracer.startActiveSpan('request', async (span) => {
      expect(span.isRecording()).toBe(false);
      expect(currentTraceparent()).toBeUndefined();
      expect(traceContextOf(currentTraceparent())).toEqual({});
      expect(logLine('off')).not.toHaveProperty('trace_id');
      span.end();
    });
  });

  it('sends no trace context of ours to the target, even with propagateTrace on', async () => {
    const headers = await callTarget('/off', true);
    // The endpoint's own headers go as written: nothing of ours added or replaced.
    expect(headers.traceparent).toBe(USER_TRACEPARENT);
    expect(headers.tracestate).toBe('user=1');
  });
});

describe('tracing on (in-memory exporter)', () => {
  const exporter = new InMemorySpanExporter();
  const finished = () => exporter.getFinishedSpans();

  beforeAll(() => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    trace.setGlobalTracerProvider(new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] }));
  });
  beforeEach(() => exporter.reset());

  it('carries one traceparent through a BullMQ job: the consumer span is a child of the producer', async () => {
    const notifier = createScheduleChangeNotifier({
      connection: redis,
      prefix,
      markDirty: async () => undefined,
      onError: (error) => {
        throw error;
      },
    });
    const received: ScheduleChangePayload[] = [];
    let inner: { traceId: string; parent: string | undefined } | undefined;
    const workerConnection = createRedisConnection(REDIS_URL);
    const processed = new Promise<void>((resolve, reject) => {
      const worker = new Worker<ScheduleChangePayload>(
        QUEUES.scheduleChanges,
        (job: Job<ScheduleChangePayload>) =>
          processJobSpan(QUEUES.scheduleChanges, job, async (span) => {
            received.push(scheduleChangePayload.parse(job.data));
            // Spans opened inside the work (the recompute's queries) are children of the consumer span.
            tracer.startActiveSpan('recompute', (child) => {
              inner = { traceId: child.spanContext().traceId, parent: span.spanContext().spanId };
              child.end();
            });
          }),
        { connection: workerConnection, prefix },
      );
      worker.on('completed', () => void worker.close().then(() => resolve(), reject));
      worker.on('failed', (_job, error) => reject(error));
    });
    const producer = await tracer.startActiveSpan('POST /api/jobs/:jobId/endpoints', async (span) => {
      await notifier.notify(['e1'], 'test');
      span.end();
      return span.spanContext();
    });
    await processed;
    await notifier.close();
    workerConnection.disconnect();

    // The job data holds one extra field, the 55-character W3C traceparent of the producer's span.
    expect(Object.keys(received[0]!).sort()).toEqual(['endpointIds', 'reason', 'traceparent']);
    expect(received[0]!.traceparent).toBe(`00-${producer.traceId}-${producer.spanId}-01`);
    const consumer = finished().find((span) => span.name === 'process schedule-changes')!;
    expect(consumer.kind).toBe(SpanKind.CONSUMER);
    expect(consumer.spanContext().traceId).toBe(producer.traceId);
    expect(consumer.parentSpanContext?.spanId).toBe(producer.spanId);
    expect(consumer.attributes).toMatchObject({
      'messaging.system': 'bullmq',
      'messaging.destination.name': 'schedule-changes',
    });
    expect(inner).toEqual({ traceId: producer.traceId, parent: consumer.spanContext().spanId });
  });

  it('starts a new trace linked to the run after an execution (no endless trace)', async () => {
    const run = tracer.startSpan('process due');
    const traceparent = `00-${run.spanContext().traceId}-${run.spanContext().spanId}-01`;
    run.end();
    await processJobSpan(QUEUES.runCompleted, { id: 'j1', data: { traceparent } }, async () => undefined, {
      link: true,
    });
    const recompute = finished().find((span) => span.name === 'process run-completed')!;
    expect(recompute.parentSpanContext).toBeUndefined();
    expect(recompute.spanContext().traceId).not.toBe(run.spanContext().traceId);
    expect(recompute.links.map((link) => link.context.spanId)).toEqual([run.spanContext().spanId]);
  });

  it('records the outbound got call as a client span under the execution, without path or query', async () => {
    const headers = await callTarget('/hook/SECRET-PATH?token=SECRET', true);
    const due = finished().find((span) => span.name === 'process due')!;
    const call = finished().find((span) => span.kind === SpanKind.CLIENT)!;
    expect(call.name).toBe('POST');
    expect(call.parentSpanContext?.spanId).toBe(due.spanContext().spanId);
    expect(call.attributes).toEqual({
      'http.request.method': 'POST',
      'kairos.run.id': 'r1',
      'kairos.endpoint.id': 'e1',
      'url.scheme': 'http',
      'server.address': '127.0.0.1',
      'server.port': server.port,
      'http.response.status_code': 200,
    });
    expect(JSON.stringify(call.attributes)).not.toContain('SECRET');
    // The target joins the execution's trace, its parent the call span; ours replaces the endpoint's
    // own traceparent and tracestate, the trace's vendor state travelling with it.
    const { traceId, spanId } = call.spanContext();
    expect(traceId).toBe(due.spanContext().traceId);
    expect(traceId).toBe('a'.repeat(32));
    expect(headers.traceparent).toBe(`00-${traceId}-${spanId}-01`);
    expect(headers.tracestate).toBe('vendor=abc');
    // Only the call span: the suppressed http instrumentation added no second client span.
    expect(finished().filter((span) => span.kind === SpanKind.CLIENT)).toHaveLength(1);
  });

  it('sends no trace context of ours when the endpoint opts out (propagateTrace false)', async () => {
    const headers = await callTarget('/opted-out', false);
    expect(headers.traceparent).toBe(USER_TRACEPARENT);
    expect(headers.tracestate).toBe('user=1');
    // The call is still traced on our side.
    expect(finished().filter((span) => span.kind === SpanKind.CLIENT)).toHaveLength(1);
  });

  it('puts the active span’s trace_id and span_id on log lines', () => {
    tracer.startActiveSpan('work', (span) => {
      expect(logLine('on')).toMatchObject({ trace_id: span.spanContext().traceId, span_id: span.spanContext().spanId });
      span.end();
    });
    expect(logLine('outside')).not.toHaveProperty('trace_id');
  });
});
