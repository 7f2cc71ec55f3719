/**
 * One trace per execution: the api, scheduler, executor and planner run as their own
 * processes (from source, as `pnpm start` does) against a cloned database and the machine's Redis
 * (own queue prefix), exporting to an OTLP HTTP/JSON receiver on 127.0.0.1. An endpoint created
 * through the api runs against a local target, and the request that created it, the scheduler's
 * recompute, the due job's execution with its outbound call and the planner's pass share one trace
 * id, with express, PostgreSQL and Redis spans under it; the target receives the call span's
 * traceparent, except from an endpoint with propagateTrace false. Then the same services without an
 * OTLP endpoint: the receiver hears nothing, and the target never sees a traceparent.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { createDatabase } from '@kairos/db';
import { createAccount } from '@kairos/db/system';
import { createRedisConnection, plannerPresenceKey } from '@kairos/queue';
import { createTestDatabase, type TestDatabase } from '../db.js';
import { REDIS_URL } from '../env.mjs';
import { answers200, exitOf, freePort, killAll, waitFor } from '../fault/processes.js';
import { startTestServer, type TestServer } from '../test-server.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from './otlp-receiver.js';

const ROOT = join(import.meta.dirname, '../..');
const MASTER_KEY_HEX = 'd'.repeat(64);
const SERVICES = ['api', 'scheduler', 'executor', 'planner'] as const;
const HEALTH_PORT_VARIABLE = {
  api: 'PORT',
  scheduler: 'SCHEDULER_HEALTH_PORT',
  executor: 'EXECUTOR_HEALTH_PORT',
  planner: 'PLANNER_HEALTH_PORT',
};

let database: TestDatabase;
let receiver: OtlpReceiver;
let target: TestServer;
const children: ChildProcess[] = [];
const prefixes: string[] = [];
let output = '';

beforeAll(async () => {
  database = await createTestDatabase();
  receiver = await startOtlpReceiver();
  target = await startTestServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
});

afterAll(async () => {
  killAll(children.flatMap((child) => (child.pid ? [child.pid] : [])));
  // The queues the services left under their own prefixes (never anything else in the shared Redis).
  const redis = createRedisConnection(REDIS_URL);
  for (const prefix of prefixes) {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
  }
  redis.disconnect();
  await target?.close();
  await receiver?.close();
  await database?.drop();
});

/** The four services as separate processes; resolves once each answers /readyz. */
async function startServices(otel: Record<string, string>): Promise<{ apiPort: number; stop(): Promise<void> }> {
  const ports = Object.fromEntries(await Promise.all(SERVICES.map(async (name) => [name, await freePort()])));
  const prefix = `{kairos-trace-${randomBytes(4).toString('hex')}}`;
  prefixes.push(prefix);
  const env = {
    ...process.env,
    NODE_OPTIONS: '',
    DATABASE_URL: database.url,
    REDIS_URL,
    KAIROS_QUEUE_PREFIX: prefix,
    KAIROS_MASTER_KEY: MASTER_KEY_HEX,
    KAIROS_ALLOW_PRIVATE_TARGETS: 'true',
    KAIROS_WEB_DIR: '',
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    ANTHROPIC_API_KEY: '',
    OTEL_EXPORTER_OTLP_ENDPOINT: '',
    ...Object.fromEntries(SERVICES.map((name) => [HEALTH_PORT_VARIABLE[name], String(ports[name])])),
    ...otel,
  };
  const started = SERVICES.map((name) => {
    const child = spawn(
      process.execPath,
      ['--conditions=source', '--import', 'tsx', join(ROOT, 'services', name, 'src/main.ts')],
      { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const keep = (data: Buffer) => (output = (output + `[${name}] ${data.toString()}`).slice(-20_000));
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    children.push(child);
    return child;
  });
  // Four services compiled by tsx on two shared cores: up to ~90 s beside other suites (start-survives-kill),
  // over 150 s at a load average of 42 (eight suites at once): 240 s.
  await waitFor(
    'the four services to be ready',
    async () => {
      for (const name of SERVICES) if (!(await answers200(ports[name]!, '/readyz'))) return false;
      return true;
    },
    240_000,
    500,
  ).catch((error: Error) => {
    throw new Error(`${error.message}\n--- output ---\n${output.slice(-4000)}`);
  });
  return {
    apiPort: ports.api!,
    stop: async () => {
      for (const child of started) child.kill('SIGTERM');
      await Promise.all(started.map((child) => exitOf(child, 30_000)));
    },
  };
}

/** Creates a job and a 1 s interval endpoint calling the target at `path` through the api. */
async function createEndpoint(
  apiPort: number,
  apiKey: string,
  path: string,
  fields: Record<string, unknown> = {},
): Promise<string> {
  const post = async (route: string, body: unknown) => {
    const response = await fetch(`http://127.0.0.1:${apiPort}/api${route}`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    const answer = (await response.json()) as { id: string };
    if (response.status !== 201) throw new Error(`POST ${route}: ${response.status} ${JSON.stringify(answer)}`);
    return answer.id;
  };
  const jobId = await post('/jobs', { name: 'Tracing', description: 'one trace per execution' });
  return post(`/jobs/${jobId}/endpoints`, {
    name: 'traced',
    url: `${target.origin}${path}`,
    method: 'GET',
    baselineIntervalMs: 1000,
    timeoutMs: 2000,
    ...fields,
  });
}

async function newApiKey(): Promise<string> {
  const db = createDatabase({ url: database.url, poolMax: 2 });
  try {
    const created = await createAccount(
      db,
      { email: `trace-${randomBytes(3).toString('hex')}@example.test`, tier: 'enterprise', apiKeyName: 'tracing' },
      { masterKey: Buffer.from(MASTER_KEY_HEX, 'hex') },
    );
    return created.apiKey!.raw;
  } finally {
    await db.close();
  }
}

const requestsTo = (path: string) => target.requests.filter((request) => request.url === path);

it('finds the api request, recompute, execution, outbound call and planner pass under one trace id', async () => {
  const apiKey = await newApiKey();
  const services = await startServices({
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    // Export every 200 ms instead of 5 s, so the test waits less.
    OTEL_BSP_SCHEDULE_DELAY: '200',
  });
  try {
    // Executors announce runs to the planner only while a planner with a model runs
    // (packages/queue/src/planner-presence.ts); this one has none (degraded) but still consumes, so the
    // test announces one for it.
    const presence = createRedisConnection(REDIS_URL);
    await presence.set(plannerPresenceKey(prefixes.at(-1)!), '1', 'PX', 600_000);
    presence.disconnect();
    const endpointId = await createEndpoint(services.apiPort, apiKey, '/traced');
    await createEndpoint(services.apiPort, apiKey, '/opted-out', { propagateTrace: false });
    await waitFor('a call to the target', () => requestsTo('/traced').length > 0, 60_000);

    // The api's server span for the request that created the endpoint roots the trace.
    const created = await waitFor(
      'the span of POST …/endpoints',
      () =>
        receiver.spans.find(
          (span) =>
            span.service === 'kairos-api' &&
            span.kind === 2 &&
            span.attributes['http.request.method'] === 'POST' &&
            /\/endpoints$/.test(String(span.attributes['http.route'] ?? '')),
        ),
      30_000,
    );
    const inTrace = (predicate: (span: ReceivedSpan) => boolean) =>
      receiver.spans.filter((span) => span.traceId === created.traceId && predicate(span));
    const named = (service: string, name: string) => inTrace((span) => span.service === service && span.name === name);
    const byId = (spanId: string) => inTrace((span) => span.spanId === spanId)[0];

    const call = await waitFor(
      'the executor call span in the same trace',
      () => inTrace((span) => span.service === 'kairos-executor' && span.scope === 'kairos' && span.kind === 3)[0],
      30_000,
    );
    expect(call).toMatchObject({
      name: 'GET',
      attributes: expect.objectContaining({
        'server.address': '127.0.0.1',
        'server.port': target.port,
        'http.response.status_code': 200,
        'kairos.endpoint.id': endpointId,
      }),
    });
    // Parent chain: call → process due (executor) → process schedule-changes (scheduler) → api.
    // A parent ends after its children, so it may come in a later export: wait for each.
    const due = await waitFor('the call span’s parent', () => byId(call.parentSpanId), 30_000);
    expect(due).toMatchObject({ service: 'kairos-executor', name: 'process due' });
    const recompute = await waitFor('the due span’s parent', () => byId(due.parentSpanId), 30_000);
    expect(recompute).toMatchObject({ service: 'kairos-scheduler', name: 'process schedule-changes' });
    expect(named('kairos-scheduler', 'process schedule-changes')).toContainEqual(recompute);

    // The planner's pass over the run (AI scheduling is on by default; no model key: degraded, announced
    // above) is a child of the execution.
    const planner = await waitFor(
      'the planner span in the same trace',
      () => named('kairos-planner', 'process run-completed-planner')[0],
      30_000,
    );
    expect(planner.parentSpanId).toBe(due.spanId);

    // Library spans in the trace: express (api), PostgreSQL and Redis (api and scheduler, executor).
    expect(inTrace((span) => span.scope.includes('instrumentation-express')).length).toBeGreaterThan(0);
    for (const service of ['kairos-api', 'kairos-scheduler', 'kairos-executor']) {
      expect(
        inTrace((span) => span.service === service && span.scope.includes('instrumentation-pg')).length,
      ).toBeGreaterThan(0);
      expect(
        inTrace((span) => span.service === service && span.scope.includes('instrumentation-ioredis')).length,
      ).toBeGreaterThan(0);
    }

    // The next execution was planned by the recorder with this run (its due job queued without a
    // recompute: docs/decisions/0029-one-endpoint-write-per-run.md) and starts a trace of its own.
    const nextCall = await waitFor(
      'the next call of the endpoint, in another trace',
      () =>
        receiver.spans.find(
          (span) =>
            span.kind === 3 && span.attributes['kairos.endpoint.id'] === endpointId && span.traceId !== created.traceId,
        ),
      30_000,
    );
    const nextDue = await waitFor(
      'its parent',
      () => receiver.spans.find((span) => span.spanId === nextCall.parentSpanId),
      30_000,
    );
    expect(nextDue).toMatchObject({ service: 'kairos-executor', name: 'process due', parentSpanId: '' });

    // The target received the call span's context (its own tracing would join this trace); every
    // later call too, each its own; the opted-out endpoint's calls carried none.
    expect(requestsTo('/traced')[0]!.headers.traceparent).toBe(`00-${created.traceId}-${call.spanId}-01`);
    for (const request of requestsTo('/traced')) {
      expect(request.headers.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    }
    await waitFor('a call of the opted-out endpoint', () => requestsTo('/opted-out').length > 0, 60_000);
    for (const request of requestsTo('/opted-out')) expect(request.headers.traceparent).toBeUndefined();

    // Probes open no trace.
    expect(receiver.spans.some((span) => /healthz|readyz/.test(String(span.attributes['url.path'] ?? '')))).toBe(false);
  } finally {
    await services.stop();
  }
}, 420_000);

it('exports nothing and adds no trace context without an OTLP endpoint', async () => {
  const apiKey = await newApiKey();
  const before = receiver.requestCount();
  output = '';
  // Everything but the endpoint: a protocol and a fast export interval change nothing.
  const services = await startServices({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_BSP_SCHEDULE_DELAY: '200' });
  try {
    await createEndpoint(services.apiPort, apiKey, '/untraced');
    await waitFor('two calls to the target', () => requestsTo('/untraced').length >= 2, 60_000);
    for (const request of requestsTo('/untraced')) expect(request.headers.traceparent).toBeUndefined();
  } finally {
    await services.stop();
  }
  expect(receiver.requestCount()).toBe(before);
  expect(output).not.toMatch(/"trace_id"/);
}, 420_000);
