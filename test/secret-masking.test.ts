/**
 * A shared secret's value and a sensitive header's value never show outside the request itself:
 * the real target receives both, and neither appears in the api's or the executor's log lines
 * (every winston call captured, at debug level), in the recorded runs (the rows as stored, error
 * messages, final URL, response bodies echoing them) or the API's answers about them, nor in the
 * attributes and events of the spans the executor records (an in-memory span exporter).
 */
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { createRedisConnection } from '@kairos/queue';
import { createLogger, type Logger } from '@kairos/runtime';
import { Executor } from '../services/executor/src/queue-workers.js';
import { createApiHarness, type ApiHarness } from './api.js';
import { REDIS_URL } from './env.mjs';
import { startTestServer, type TestServer } from './test-server.js';

const SECRET = 'shared-Secret-Value-41d7c9';
const HEADER = 'header-Secret-Value-93be25';
const leaks = (text: string) => text.includes(SECRET) || text.includes(HEADER);

const exporter = new InMemorySpanExporter();
let harness: ApiHarness;
let executor: Executor;
let target: TestServer;
const logged: unknown[] = [];

/** Every call of the logger, whatever its level (winston's level methods all end in write). */
function capture(logger: Logger): void {
  logger.level = 'debug';
  const write = logger.write.bind(logger);
  logger.write = ((info: unknown, ...rest: never[]) => {
    logged.push(info);
    return write(info as never, ...rest);
  }) as Logger['write'];
}

beforeAll(async () => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] }));
  harness = await createApiHarness();
  capture(harness.logger);
  const executorLogger = createLogger('executor-test', 'debug');
  executorLogger.silent = true;
  capture(executorLogger);
  executor = new Executor({
    db: harness.db,
    connect: () => createRedisConnection(REDIS_URL),
    prefix: harness.queuePrefix,
    logger: executorLogger,
    concurrency: 4,
    egress: { allowPrivateTargets: false, allowCidrs: ['127.0.0.0/8'] },
    masterKey: harness.masterKey,
  });
  await executor.start();
  // Echoes what it received (URL and headers), and fails: the run records an error and the body.
  target = await startTestServer((req, res) =>
    res
      .writeHead(500, { 'content-type': 'application/json' })
      .end(JSON.stringify({ url: req.url, authorization: req.headers.authorization, key: req.headers['x-api-key'] })),
  );
}, 30_000);
afterAll(async () => {
  await executor.close();
  await target.close();
  await harness.close();
  trace.disable();
  context.disable();
  propagation.disable();
});

it('never logs, records or traces a secret or a sensitive header value', async () => {
  const owner = await harness.createAccount({ tier: 'enterprise' });
  const api = harness.client(owner.apiKey);
  expect((await api.post('/api/secrets', { name: 'TOKEN', value: SECRET })).status).toBe(201);
  const job = (await api.post('/api/jobs', { name: 'Masked' })).body;
  const endpoint = await api.post(`/api/jobs/${job.id}/endpoints`, {
    name: 'Echo',
    url: `${target.origin}/hook?k={{secrets.TOKEN}}`,
    method: 'GET',
    headers: { Authorization: 'Bearer {{secrets.TOKEN}}', 'X-Api-Key': HEADER },
    baselineIntervalMs: 3_600_000,
  });
  expect(endpoint.status).toBe(201);
  // A second endpoint whose call fails before any answer (nothing listens): the error path.
  const closed = await api.post(`/api/jobs/${job.id}/endpoints`, {
    name: 'Nobody there',
    url: `http://127.0.0.1:9/hook?k={{secrets.TOKEN}}`,
    method: 'GET',
    headers: { 'X-Api-Key': HEADER },
    baselineIntervalMs: 3_600_000,
  });

  exporter.reset();
  const tested = await api.post(`/api/endpoints/${endpoint.body.id}/test`);
  expect(tested.body).toMatchObject({ status: 'failed' });
  const failed = await api.post(`/api/endpoints/${closed.body.id}/test`);
  expect(failed.body).toMatchObject({ status: 'failed' });
  // The request itself carried both.
  const received = target.requests.at(-1)!;
  expect(received.url).toBe(`/hook?k=${SECRET}`);
  expect(received.headers.authorization).toBe(`Bearer ${SECRET}`);
  expect(received.headers['x-api-key']).toBe(HEADER);

  // Runs: the rows as stored and as the API answers them.
  const rows = await harness.db.pool.query(`SELECT * FROM runs WHERE "accountId" = $1`, [owner.accountId]);
  expect(rows.rows.length).toBe(2);
  expect(leaks(JSON.stringify(rows.rows))).toBe(false);
  expect(JSON.stringify(rows.rows)).toContain('{{secrets.TOKEN}}');
  for (const answer of [
    tested.body,
    failed.body,
    (await api.get(`/api/runs/${tested.body.runId}`)).body,
    (await api.get(`/api/runs/${failed.body.runId}`)).body,
    (await api.get(`/api/endpoints/${endpoint.body.id}/runs`)).body,
    (await api.get(`/api/endpoints/${endpoint.body.id}`)).body,
  ]) {
    expect(leaks(JSON.stringify(answer))).toBe(false);
  }

  // Log lines, whatever their level.
  expect(logged.length).toBeGreaterThan(0);
  expect(leaks(JSON.stringify(logged))).toBe(false);

  // Spans: every attribute and event of every span recorded meanwhile.
  const spans = exporter.getFinishedSpans();
  expect(spans.length).toBeGreaterThan(0);
  const traced = spans.map((span) => ({ name: span.name, attributes: span.attributes, events: span.events }));
  expect(leaks(JSON.stringify(traced))).toBe(false);
  // The outbound calls were traced (the span a leak would be in), with their run ids.
  expect(traced.filter((span) => span.attributes['kairos.run.id'] !== undefined)).toHaveLength(2);
}, 60_000);
