import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { decryptSecret, isId, newId, verifySignature } from '@kairos/core';
import type { Prisma } from '@kairos/db';
import { QUEUES, createRedisConnection, type TestRunPayload, type TestRunResult } from '@kairos/queue';
import { Queue, Worker } from 'bullmq';
import { createApiHarness, endpointInput, type ApiClient, type ApiHarness } from '../../../test/api.js';
import { REDIS_URL } from '../../../test/env.mjs';
import { startExecutor, type Executor } from '../../../test/engine.js';

let harness: ApiHarness;
let api: ApiClient;
let other: ApiClient;
let accountId: string;
let jobId: string;

// A short grace: "no executor" answers after the endpoint's timeoutMs + 300 ms.
const GRACE_MS = 300;

beforeAll(async () => {
  harness = await createApiHarness({ testRunGraceMs: GRACE_MS });
  const account = await harness.createAccount();
  accountId = account.accountId;
  api = harness.client(account.apiKey);
  other = harness.client((await harness.createAccount()).apiKey);
  jobId = (await api.post('/api/jobs', { name: 'Runs' })).body.id;
});
afterAll(() => harness.close());

const createEndpoint = async (overrides: Record<string, unknown> = {}) =>
  (await api.post(`/api/jobs/${jobId}/endpoints`, endpointInput(overrides))).body as { id: string };

const HOUR_MS = 3_600_000;

/** Inserts a run as the executor would record it; `startedAgoMs` before now, 50 ms late, 100 ms long. */
async function insertRun(
  endpointId: string,
  overrides: Partial<Prisma.RunUncheckedCreateInput> & { startedAgoMs?: number } = {},
) {
  const { startedAgoMs = 60_000, ...data } = overrides;
  const startedAt = new Date(Date.now() - startedAgoMs);
  const durationMs = data.durationMs ?? 100;
  return harness.db.prisma.run.create({
    data: {
      id: newId(),
      accountId,
      endpointId,
      source: 'baseline-interval',
      status: 'success',
      scheduledAt: new Date(startedAt.getTime() - 50),
      startedAt,
      completedAt: new Date(startedAt.getTime() + durationMs),
      durationMs,
      statusCode: 200,
      responseBody: { ok: true },
      responseFormat: 'json',
      responseSizeBytes: 11,
      ...data,
    },
  });
}

describe('GET /api/endpoints/:id/runs', () => {
  it('lists newest first (ties by id), pages with X-Total-Count and filters by status', async () => {
    const endpoint = await createEndpoint();
    const oldest = await insertRun(endpoint.id, { startedAgoMs: 3 * HOUR_MS });
    const failed = await insertRun(endpoint.id, {
      startedAgoMs: 2 * HOUR_MS,
      status: 'failed',
      statusCode: 503,
      errorKind: 'http_status',
      errorMessage: 'HTTP 503',
    });
    const tiedAt = new Date(Date.now() - HOUR_MS);
    const [lowId, highId] = [newId(), newId()].sort();
    await insertRun(endpoint.id, { id: lowId, startedAt: tiedAt, scheduledAt: tiedAt, completedAt: tiedAt });
    await insertRun(endpoint.id, { id: highId, startedAt: tiedAt, scheduledAt: tiedAt, completedAt: tiedAt });

    const all = await api.get(`/api/endpoints/${endpoint.id}/runs`);
    expect(all.status).toBe(200);
    expect(all.body.map((run: { id: string }) => run.id)).toEqual([highId, lowId, failed.id, oldest.id]);
    expect(all.headers['x-total-count']).toBe('4');

    const page = await api.get(`/api/endpoints/${endpoint.id}/runs?limit=2&offset=1`);
    expect(page.body.map((run: { id: string }) => run.id)).toEqual([lowId, failed.id]);
    expect(page.headers['x-total-count']).toBe('4');

    const failures = await api.get(`/api/endpoints/${endpoint.id}/runs?status=failed`);
    expect(failures.body.map((run: { id: string }) => run.id)).toEqual([failed.id]);
    expect(failures.headers['x-total-count']).toBe('1');
    const successes = await api.get(`/api/endpoints/${endpoint.id}/runs?status=success`);
    expect(successes.headers['x-total-count']).toBe('3');
  });

  it('answers 20 runs by default and at most 1000', async () => {
    const endpoint = await createEndpoint();
    await harness.db.prisma.run.createMany({
      data: Array.from({ length: 25 }, (_, index) => {
        const startedAt = new Date(Date.now() - (index + 1) * 60_000);
        return {
          id: newId(),
          accountId,
          endpointId: endpoint.id,
          source: 'baseline-interval',
          status: 'success' as const,
          scheduledAt: startedAt,
          startedAt,
          completedAt: startedAt,
          durationMs: 0,
        };
      }),
    });
    const page = await api.get(`/api/endpoints/${endpoint.id}/runs`);
    expect(page.body).toHaveLength(20);
    expect(page.headers['x-total-count']).toBe('25');
    expect((await api.get(`/api/endpoints/${endpoint.id}/runs?limit=1000`)).body).toHaveLength(25);
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=1001', 'limit'],
    ['limit=abc', 'limit'],
    ['offset=-1', 'offset'],
    ['status=timeout', 'status'],
  ])('refuses %s', async (query, field) => {
    const endpoint = await createEndpoint();
    const response = await api.get(`/api/endpoints/${endpoint.id}/runs?${query}`);
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field } });
  });
});

describe('GET /api/runs/:id', () => {
  it('answers the full run record', async () => {
    const endpoint = await createEndpoint();
    const run = await insertRun(endpoint.id, {
      status: 'failed',
      statusCode: null,
      responseBody: undefined,
      responseFormat: null,
      responseSizeBytes: null,
      errorKind: 'timeout',
      errorMessage: 'timed out after 30000 ms',
      attempt: 2,
      source: 'ai-oneshot',
    });
    const response = await api.get(`/api/runs/${run.id}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      id: run.id,
      endpointId: endpoint.id,
      status: 'failed',
      statusCode: null,
      durationMs: 100,
      responseBody: null,
      responseFormat: null,
      responseTruncated: false,
      responseBodyAltered: false,
      responseSizeBytes: null,
      errorKind: 'timeout',
      errorMessage: 'timed out after 30000 ms',
      error: 'timed out after 30000 ms',
      scheduledAt: run.scheduledAt.toISOString(),
      startedAt: run.startedAt.toISOString(),
      completedAt: run.completedAt.toISOString(),
      lateMs: 50,
      waitedForHostMs: null,
      replayOf: null,
      source: 'ai-oneshot',
      attempt: 2,
      attempts: null,
      rulesMatched: [],
    });
  });

  it('answers JSON and text bodies as stored', async () => {
    const endpoint = await createEndpoint();
    const json = await insertRun(endpoint.id, { responseBody: { orders: [1, 2] }, responseTruncated: false });
    const text = await insertRun(endpoint.id, {
      responseBody: 'plain text, truncat',
      responseFormat: 'text',
      responseTruncated: true,
    });
    expect((await api.get(`/api/runs/${json.id}`)).body).toMatchObject({
      responseBody: { orders: [1, 2] },
      responseFormat: 'json',
      errorMessage: null,
      error: null,
    });
    expect((await api.get(`/api/runs/${text.id}`)).body).toMatchObject({
      responseBody: 'plain text, truncat',
      responseFormat: 'text',
      responseTruncated: true,
    });
  });
});

describe('GET /api/endpoints/:id/health', () => {
  it('summarises the window from known runs', async () => {
    const endpoint = await createEndpoint();
    await insertRun(endpoint.id, { durationMs: 100, startedAgoMs: 1 * HOUR_MS });
    await insertRun(endpoint.id, { durationMs: 200, startedAgoMs: 2 * HOUR_MS });
    await insertRun(endpoint.id, { durationMs: 300, startedAgoMs: 3 * HOUR_MS, source: 'test' });
    await insertRun(endpoint.id, { durationMs: 1000, startedAgoMs: 4 * HOUR_MS, status: 'failed' });
    await insertRun(endpoint.id, { durationMs: 5000, startedAgoMs: 30 * HOUR_MS, status: 'failed' });
    const lastRunAt = new Date(Date.now() - HOUR_MS);
    await harness.db.prisma.endpoint.update({
      where: { id: endpoint.id },
      data: { lastRunAt, lastStatus: 'failed', failureCount: 3 },
    });

    const day = await api.get(`/api/endpoints/${endpoint.id}/health`);
    expect(day.status).toBe(200);
    expect(day.body).toEqual({
      endpointId: endpoint.id,
      sinceHours: 24,
      totalRuns: 4,
      successCount: 3,
      failureCount: 1,
      successRate: 75,
      avgDurationMs: 400,
      // percentile_cont over [100, 200, 300, 1000]: 300 + 0.85 × 700
      p95DurationMs: 895,
      lastRunAt: lastRunAt.toISOString(),
      lastStatus: 'failed',
      failureStreak: 3,
    });

    const twoDays = (await api.get(`/api/endpoints/${endpoint.id}/health?sinceHours=48`)).body;
    expect(twoDays).toMatchObject({
      sinceHours: 48,
      totalRuns: 5,
      successCount: 3,
      failureCount: 2,
      successRate: 60,
      avgDurationMs: 1320,
      p95DurationMs: 4200,
    });
  });

  it('rounds the success rate to two decimals', async () => {
    const endpoint = await createEndpoint();
    await insertRun(endpoint.id, { startedAgoMs: 60_000 });
    await insertRun(endpoint.id, { startedAgoMs: 120_000 });
    await insertRun(endpoint.id, { startedAgoMs: 180_000, status: 'failed' });
    expect((await api.get(`/api/endpoints/${endpoint.id}/health?sinceHours=1`)).body.successRate).toBe(66.67);
  });

  it('answers zeros and nulls for an endpoint without runs', async () => {
    const endpoint = await createEndpoint();
    expect((await api.get(`/api/endpoints/${endpoint.id}/health`)).body).toEqual({
      endpointId: endpoint.id,
      sinceHours: 24,
      totalRuns: 0,
      successCount: 0,
      failureCount: 0,
      successRate: 0,
      avgDurationMs: 0,
      p95DurationMs: 0,
      lastRunAt: null,
      lastStatus: null,
      failureStreak: 0,
    });
  });

  it.each(['sinceHours=0', 'sinceHours=8761', 'sinceHours=1.5', 'sinceHours=day'])('refuses %s', async (query) => {
    const endpoint = await createEndpoint();
    const response = await api.get(`/api/endpoints/${endpoint.id}/health?${query}`);
    expect(response.status).toBe(400);
    expect(response.body.error.details.field).toBe('sinceHours');
  });
});

describe('tenancy', () => {
  it("answers 404 for another account's endpoint and run on every read route", async () => {
    const endpoint = await createEndpoint();
    const run = await insertRun(endpoint.id);
    for (const path of [
      `/api/endpoints/${endpoint.id}/runs`,
      `/api/runs/${run.id}`,
      `/api/endpoints/${endpoint.id}/health`,
    ]) {
      const response = await other.get(path);
      expect({ path, status: response.status, code: response.body.error?.code }).toEqual({
        path,
        status: 404,
        code: 'NOT_FOUND',
      });
    }
    const response = await other.post(`/api/endpoints/${endpoint.id}/test`);
    expect(response.status).toBe(404);
    expect((await api.get(`/api/runs/${newId()}`)).status).toBe(404);
    expect((await api.get('/api/runs/not-a-run')).status).toBe(404);
  });
});

describe('POST /api/endpoints/:id/test without an executor', () => {
  it('answers 503 after timeoutMs plus the grace period and withdraws the test', async () => {
    const endpoint = await createEndpoint({ timeoutMs: 100 });
    const startedAt = Date.now();
    const response = await api.post(`/api/endpoints/${endpoint.id}/test`);
    expect(response.status).toBe(503);
    expect(response.body.error).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    expect(response.body.error.message).toMatch(/no executor/);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(100 + GRACE_MS - 20);
    const queue = new Queue(QUEUES.testRuns, { connection: harness.redis, prefix: harness.queuePrefix });
    expect(await queue.getJob(response.body.error.details.runId)).toBeUndefined();
    await queue.close();
  });

  it('answers 409 CONFLICT on an archived endpoint without queueing anything', async () => {
    const endpoint = await createEndpoint();
    await api.post(`/api/jobs/${jobId}/endpoints/${endpoint.id}/archive`);
    const response = await api.post(`/api/endpoints/${endpoint.id}/test`);
    expect(response.status).toBe(409);
    expect(response.body.error.code).toBe('CONFLICT');
    const queue = new Queue(QUEUES.testRuns, { connection: harness.redis, prefix: harness.queuePrefix });
    expect(await queue.getJobCounts('waiting', 'active')).toEqual({ waiting: 0, active: 0 });
    await queue.close();
  });
});

describe('POST /api/endpoints/:id/test with a stand-in executor', () => {
  // Stands in for services/executor on the test-runs queue: the api's side of the protocol only.
  let behaviour: (payload: TestRunPayload) => TestRunResult;
  const received: TestRunPayload[] = [];
  let worker: Worker<TestRunPayload, TestRunResult>;
  let connection: ReturnType<typeof createRedisConnection>;

  beforeAll(async () => {
    connection = createRedisConnection(REDIS_URL);
    worker = new Worker<TestRunPayload, TestRunResult>(
      QUEUES.testRuns,
      async (job) => {
        received.push(job.data);
        return behaviour(job.data);
      },
      { connection, prefix: harness.queuePrefix },
    );
    await worker.waitUntilReady();
  });
  afterAll(async () => {
    await worker.close();
    connection.disconnect();
  });

  it('queues the endpoint under a fresh run id and answers the result', async () => {
    const endpoint = await createEndpoint();
    behaviour = ({ runId }) => ({
      runId,
      status: 'success',
      durationMs: 12,
      statusCode: 200,
      responseBody: { ok: true },
    });
    const response = await api.post(`/api/endpoints/${endpoint.id}/test`);
    expect(response.status).toBe(200);
    const payload = received.at(-1)!;
    expect(payload).toEqual({ runId: expect.any(String), endpointId: endpoint.id, accountId });
    expect(isId(payload.runId)).toBe(true);
    expect(response.body).toEqual({
      runId: payload.runId,
      status: 'success',
      durationMs: 12,
      statusCode: 200,
      responseBody: { ok: true },
    });
  });

  it('answers a failed call as a 200 with status failed', async () => {
    const endpoint = await createEndpoint();
    behaviour = ({ runId }) => ({
      runId,
      status: 'failed',
      durationMs: 30,
      statusCode: null,
      errorMessage: 'connection refused',
    });
    const response = await api.post(`/api/endpoints/${endpoint.id}/test`);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ status: 'failed', statusCode: null, errorMessage: 'connection refused' });
  });

  it('works on paused endpoints and in paused jobs', async () => {
    behaviour = ({ runId }) => ({ runId, status: 'success', durationMs: 1, statusCode: 204 });
    const job = (await api.post('/api/jobs', { name: 'Paused' })).body;
    const endpoint = (await api.post(`/api/jobs/${job.id}/endpoints`, endpointInput())).body;
    await api.post(`/api/endpoints/${endpoint.id}/pause`, {
      pausedUntil: new Date(Date.now() + HOUR_MS).toISOString(),
    });
    expect((await api.post(`/api/endpoints/${endpoint.id}/test`)).status).toBe(200);
    await api.post(`/api/jobs/${job.id}/pause`);
    expect((await api.post(`/api/endpoints/${endpoint.id}/test`)).status).toBe(200);
  });

  it('answers 503 when the executor fails the job', async () => {
    const endpoint = await createEndpoint();
    behaviour = () => {
      throw new Error('database unavailable');
    };
    const response = await api.post(`/api/endpoints/${endpoint.id}/test`);
    expect(response.status).toBe(503);
    expect(response.body.error.code).toBe('SERVICE_UNAVAILABLE');
    expect(JSON.stringify(response.body)).not.toContain('database unavailable');
  });
});

describe('POST /api/endpoints/:id/test with the real executor', () => {
  let executor: Executor;
  let server: http.Server;
  let origin: string;
  const received: { headers: http.IncomingHttpHeaders; body: string }[] = [];
  let respond: (res: http.ServerResponse) => void;

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      req.on('end', () => {
        received.push({ headers: req.headers, body });
        respond(res);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    executor = await startExecutor(harness, { concurrency: 2, egress: { allowPrivateTargets: true, allowCidrs: [] } });
  });
  afterAll(async () => {
    await executor.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('runs a paused endpoint, signed, records a test run and leaves its schedule state alone', async () => {
    respond = (res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"orders":3}');
    const endpoint = await createEndpoint({ url: `${origin}/hook`, method: 'POST', bodyJson: { ping: true } });
    await api.post(`/api/endpoints/${endpoint.id}/pause`, {
      pausedUntil: new Date(Date.now() + HOUR_MS).toISOString(),
    });
    const state = {
      failureCount: 2,
      lastRunAt: new Date(Date.now() - HOUR_MS),
      nextRunAt: new Date(Date.now() + HOUR_MS),
    };
    await harness.db.prisma.endpoint.update({ where: { id: endpoint.id }, data: state });

    const response = await api.post(`/api/endpoints/${endpoint.id}/test`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      runId: expect.any(String),
      status: 'success',
      durationMs: expect.any(Number),
      statusCode: 200,
      responseBody: { orders: 3 },
    });

    const run = (await api.get(`/api/runs/${response.body.runId}`)).body;
    expect(run).toMatchObject({ endpointId: endpoint.id, source: 'test', status: 'success', statusCode: 200 });
    const stored = await harness.db.prisma.endpoint.findUniqueOrThrow({ where: { id: endpoint.id } });
    expect(stored).toMatchObject(state);

    const request = received.at(-1)!;
    const rawKey = decryptSecret(
      (await harness.db.prisma.signingKey.findUniqueOrThrow({ where: { accountId } })).encryptedKey,
      harness.masterKey,
    );
    const timestamp = Number(request.headers['x-service-timestamp']);
    const signature = String(request.headers['x-service-signature']);
    expect(verifySignature(rawKey, timestamp, request.body, signature, Math.floor(Date.now() / 1000))).toBe(true);
  });

  it('answers a failing endpoint as status failed with an error message', async () => {
    respond = (res) => res.writeHead(500).end('boom');
    const endpoint = await createEndpoint({ url: `${origin}/broken` });
    const response = await api.post(`/api/endpoints/${endpoint.id}/test`);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ status: 'failed', statusCode: 500, errorMessage: expect.any(String) });
    expect(response.body).not.toHaveProperty('responseBody');
    expect((await harness.db.prisma.endpoint.findUniqueOrThrow({ where: { id: endpoint.id } })).failureCount).toBe(0);
  });

  it('signs with the new key right after a rotation', async () => {
    respond = (res) => res.writeHead(204).end();
    const endpoint = await createEndpoint({ url: `${origin}/rotated` });
    const oldRawKey = decryptSecret(
      (await harness.db.prisma.signingKey.findUniqueOrThrow({ where: { accountId } })).encryptedKey,
      harness.masterKey,
    );
    const { rawKey } = (await api.post('/api/signing-keys/rotate')).body;
    expect((await api.post(`/api/endpoints/${endpoint.id}/test`)).body.status).toBe('success');
    const request = received.at(-1)!;
    const timestamp = Number(request.headers['x-service-timestamp']);
    const signature = String(request.headers['x-service-signature']);
    const nowSec = Math.floor(Date.now() / 1000);
    expect(verifySignature(rawKey, timestamp, request.body, signature, nowSec)).toBe(true);
    expect(verifySignature(oldRawKey, timestamp, request.body, signature, nowSec)).toBe(false);
  });
});
