/**
 * Retries inside a run (opt-in per endpoint), end to end: the API stores `retry`, the
 * scheduler plans, the executor calls real targets on 127.0.0.1 and records one run per slot with
 * every attempt. Default endpoints keep one call per run.
 */
import type http from 'node:http';
import { startTestServer, type TestServer } from '../../../test/test-server.js';
import { createApiHarness, endpointInput, type ApiClient, type ApiHarness } from '../../../test/api.js';
import { startEngine, waitFor, type Engine } from '../../../test/engine.js';
import { newId } from '@kairos/core';
import { loadExecutionTarget } from '@kairos/db/system';
import { createHttpExecutor } from '../src/http/index.js';
import { Retries } from '../src/retry.js';

let harness: ApiHarness;
let api: ApiClient;
let engine: Engine;
let target: TestServer;
let jobId: string;
/** Per path: what the target answers on its n-th call (the last entry repeats). */
const scripts = new Map<string, ((res: http.ServerResponse) => void)[]>();
const callTimes = new Map<string, number[]>();

const status =
  (code: number, headers: Record<string, string> = {}) =>
  (res: http.ServerResponse) => {
    res.writeHead(code, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify({ code }));
  };
const slow = (ms: number) => (res: http.ServerResponse) => {
  setTimeout(() => status(200)(res), ms).unref();
};

beforeAll(async () => {
  harness = await createApiHarness();
  api = harness.client((await harness.createAccount()).apiKey);
  target = await startTestServer((req, res) => {
    const path = req.url!;
    const times = callTimes.get(path) ?? [];
    times.push(Date.now());
    callTimes.set(path, times);
    const script = scripts.get(path) ?? [status(200)];
    script[Math.min(times.length, script.length) - 1]!(res);
  });
  jobId = (await api.post('/api/jobs', { name: 'retries' })).body.id;
  engine = await startEngine(harness);
});
afterAll(async () => {
  await engine.close();
  await target.close();
  await harness.close();
});

/** An endpoint on `path` answering `script`, run at once after creation. */
async function createEndpoint(path: string, script: ((res: http.ServerResponse) => void)[], fields: object = {}) {
  scripts.set(path, script);
  const response = await api.post(
    `/api/jobs/${jobId}/endpoints`,
    endpointInput({ name: path, url: `${target.origin}${path}`, baselineIntervalMs: 3_600_000, ...fields }),
  );
  expect(response.status).toBe(201);
  return response.body.id as string;
}

const runsOf = (endpointId: string) =>
  harness.db.prisma.run.findMany({ where: { endpointId }, orderBy: { startedAt: 'asc' } });

async function firstRun(endpointId: string, timeoutMs = 10_000) {
  const [run] = await waitFor(
    async () => {
      const runs = await runsOf(endpointId);
      return runs.length > 0 ? runs : null;
    },
    timeoutMs,
    'the run recorded',
  );
  return (await api.get(`/api/runs/${run!.id}`)).body;
}

const endpointRow = (id: string) => harness.db.prisma.endpoint.findUniqueOrThrow({ where: { id } });
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it('503 with Retry-After: 1, then 200: one successful run, two attempts a second apart, no failure counted', async () => {
  const id = await createEndpoint('/unavailable', [status(503, { 'retry-after': '1' }), status(200)], {
    retry: { attempts: 2, backoffBaseMs: 100, backoffCapMs: 5000 },
  });
  const run = await firstRun(id);
  expect(run).toMatchObject({ status: 'success', statusCode: 200, errorMessage: null });
  expect(run.attempts).toHaveLength(2);
  expect(run.attempts[0]).toMatchObject({
    attempt: 1,
    statusCode: 503,
    errorKind: 'http_status',
    retryAfterMs: 1000,
    nextAttemptInMs: 1000,
  });
  expect(run.attempts[1]).toMatchObject({ attempt: 2, statusCode: 200, errorKind: null, nextAttemptInMs: null });
  const [first, second] = callTimes.get('/unavailable')!;
  expect(second! - first!).toBeGreaterThanOrEqual(1000); // the Retry-After, not the 100 ms backoff
  // startedAt is the run's (first attempt's) start; the rest describes the last attempt.
  expect(run.startedAt).toBe(run.attempts[0].startedAt);
  expect(run.durationMs).toBe(run.attempts[1].durationMs);
  expect(await runsOf(id)).toHaveLength(1);
  expect((await endpointRow(id)).failureCount).toBe(0);
});

it('429 with an HTTP-date Retry-After waits until that date', async () => {
  // An HTTP date has whole seconds: 2 s ahead is 1-2 s of wait.
  const at = () => new Date(Date.now() + 2000).toUTCString();
  const id = await createEndpoint('/throttled', [(res) => status(429, { 'retry-after': at() })(res), status(200)], {
    retry: { attempts: 1, backoffBaseMs: 100, backoffCapMs: 10_000 },
  });
  const run = await firstRun(id);
  expect(run.status).toBe('success');
  expect(run.attempts.map((attempt: { statusCode: number }) => attempt.statusCode)).toEqual([429, 200]);
  expect(run.attempts[0].retryAfterMs).toBeGreaterThan(900);
  expect(run.attempts[0].retryAfterMs).toBeLessThanOrEqual(2000);
  const [first, second] = callTimes.get('/throttled')!;
  expect(second! - first!).toBeGreaterThanOrEqual(900);
});

it('a Retry-After longer than backoffCapMs ends the retries: one call, the run failed saying so', async () => {
  const id = await createEndpoint('/later', [status(503, { 'retry-after': '120' })], {
    retry: { attempts: 3, backoffBaseMs: 100, backoffCapMs: 2000 },
  });
  const run = await firstRun(id);
  expect(run).toMatchObject({ status: 'failed', statusCode: 503 });
  expect(run.errorMessage).toContain('Retry-After asks for 120000 ms, more than retry.backoffCapMs (2000)');
  expect(run.attempts).toHaveLength(1);
  expect(callTimes.get('/later')).toHaveLength(1);
});

it('repeated 500: attempts + 1 calls, then one failed run; the failure count and the backoff move once', async () => {
  const id = await createEndpoint('/broken', [status(500)], {
    retry: { attempts: 2, backoffBaseMs: 100, backoffCapMs: 1000 },
  });
  const run = await firstRun(id);
  expect(callTimes.get('/broken')).toHaveLength(3);
  expect(run).toMatchObject({ status: 'failed', statusCode: 500, errorKind: 'http_status' });
  expect(run.errorMessage).toContain('retries exhausted: 3 attempts');
  expect(run.attempts.map((attempt: { nextAttemptInMs: number | null }) => attempt.nextAttemptInMs)).toEqual([
    100,
    200,
    null,
  ]);
  const [a, b, c] = callTimes.get('/broken')!;
  expect(b! - a!).toBeGreaterThanOrEqual(100);
  expect(c! - b!).toBeGreaterThanOrEqual(200);
  // Once per run: failure count 1, so the next slot is the baseline × 2 (not × 8 for three failures).
  const row = await waitFor(
    async () => {
      const found = await endpointRow(id);
      return found.nextRunAt && found.lastScheduledAt && found.nextRunAt > found.lastScheduledAt ? found : null;
    },
    5000,
    'the next run planned',
  );
  expect(row.failureCount).toBe(1);
  expect(row.nextRunAt!.getTime() - row.lastScheduledAt!.getTime()).toBe(2 * 3_600_000);
  expect(await runsOf(id)).toHaveLength(1);
});

it('404 is not retried', async () => {
  const id = await createEndpoint('/missing', [status(404)], { retry: { attempts: 3, backoffBaseMs: 100 } });
  const run = await firstRun(id);
  expect(run).toMatchObject({ status: 'failed', statusCode: 404 });
  expect(run.attempts).toHaveLength(1);
  expect(run.errorMessage).toBe('HTTP 404 Not Found');
  await pause(500);
  expect(callTimes.get('/missing')).toHaveLength(1);
});

it('a timeout is retried', async () => {
  const id = await createEndpoint('/slow', [slow(1500), status(200)], {
    timeoutMs: 300,
    retry: { attempts: 1, backoffBaseMs: 100, backoffCapMs: 1000 },
  });
  const run = await firstRun(id);
  expect(run.status).toBe('success');
  expect(run.attempts.map((attempt: { errorKind: string | null }) => attempt.errorKind)).toEqual(['timeout', null]);
  expect(callTimes.get('/slow')).toHaveLength(2);
});

it('retries stop before the next planned run: no attempt can run into the next slot', async () => {
  const intervalMs = 5000;
  const timeoutMs = 1000;
  const id = await createEndpoint('/flaky', [status(502)], {
    baselineIntervalMs: intervalMs,
    timeoutMs,
    retry: { attempts: 5, backoffBaseMs: 1000, backoffCapMs: 1000 },
  });
  const run = await firstRun(id, 15_000);
  const nextSlot = new Date(run.scheduledAt).getTime() + intervalMs;
  expect(run.status).toBe('failed');
  // Six attempts a second apart cannot fit in 5 s less the 1 s margin: the series was cut.
  expect(run.attempts.length).toBeGreaterThanOrEqual(1);
  expect(run.attempts.length).toBeLessThan(6);
  expect(run.errorMessage).toContain(`before the next planned run at ${new Date(nextSlot).toISOString()}`);
  for (const attempt of run.attempts) {
    expect(new Date(attempt.startedAt).getTime() + timeoutMs).toBeLessThanOrEqual(nextSlot - 1000);
  }
  expect(new Date(run.completedAt).getTime()).toBeLessThan(nextSlot);
  await api.post(`/api/jobs/${jobId}/endpoints/${id}/archive`);
});

it('a default endpoint makes exactly one call on 500 (no retries)', async () => {
  const id = await createEndpoint('/default', [status(500)]);
  const run = await firstRun(id);
  expect(run).toMatchObject({ status: 'failed', statusCode: 500, errorMessage: 'HTTP 500 Internal Server Error' });
  expect(run.attempts).toBeNull();
  await pause(1500);
  expect(callTimes.get('/default')).toHaveLength(1);
  expect((await endpointRow(id)).failureCount).toBe(1);
});

describe('a delivery after a crash in the middle of the retries', () => {
  // A yearly cron: the engine leaves this endpoint alone, and its next planned run is far away.
  const setUp = async (path: string) => {
    const id = await createEndpoint(path, [status(500)], {
      baselineIntervalMs: undefined,
      baselineCron: '0 0 1 1 *',
      retry: { attempts: 3, backoffBaseMs: 100, backoffCapMs: 1000 },
    });
    const endpoint = (await loadExecutionTarget(harness.db, id))!;
    const client = createHttpExecutor({
      egress: { allowPrivateTargets: false, allowCidrs: ['127.0.0.0/8'] },
      userAgent: 'test',
    });
    const run = { id: newId(), scheduledAt: new Date(), source: 'baseline-cron' };
    const callOnce = () =>
      client.execute(
        {
          url: endpoint.url,
          method: 'GET',
          headers: {},
          body: null,
          timeoutMs: endpoint.timeoutMs,
          maxResponseSizeKb: 100,
        },
        { runId: run.id, endpointId: id, scheduledAt: run.scheduledAt, lastRunAt: null, signingKey: null },
      );
    const retries = (now = () => new Date(), sleep?: (ms: number) => Promise<void>) =>
      new Retries({ db: harness.db, redis: harness.redis, prefix: harness.queuePrefix, now, sleep });
    // The first delivery dies during its second wait (after two calls), as a killed executor would.
    let waits = 0;
    const dying = retries(undefined, async () => {
      waits += 1;
      if (waits === 2) throw new Error('killed');
    });
    await expect(dying.call(endpoint, run, callOnce)).rejects.toThrow('killed');
    expect(callTimes.get(path)).toHaveLength(2);
    return { endpoint, run, callOnce, retries, close: () => client.close() };
  };

  it('goes on from the attempts written: attempts + 1 calls in all, not a new series', async () => {
    const { endpoint, run, callOnce, retries, close } = await setUp('/crash');
    const called = await retries().call(endpoint, run, callOnce);
    close();
    expect(callTimes.get('/crash')).toHaveLength(4);
    expect(called.attempts!.map((attempt) => attempt.attempt)).toEqual([1, 2, 3, 4]);
    expect(called.outcome).toMatchObject({ status: 'failed', statusCode: 500 });
    expect(called.outcome.errorMessage).toContain('retries exhausted: 4 attempts');
    expect(called.outcome.startedAt.toISOString()).toBe(called.attempts![0]!.startedAt);
  });

  it('past the window, ends the run from the last attempt written, without calling', async () => {
    const { endpoint, run, callOnce, retries, close } = await setUp('/crash-late');
    const nextYear = () => new Date(Date.now() + 366 * 86_400_000);
    const called = await retries(nextYear).call(endpoint, run, callOnce);
    close();
    expect(callTimes.get('/crash-late')).toHaveLength(2);
    expect(called.attempts!.map((attempt) => attempt.statusCode)).toEqual([500, 500]);
    expect(called.outcome).toMatchObject({ status: 'failed', statusCode: 500, responseBody: null });
    expect(called.outcome.errorMessage).toContain('not retried: attempt 3');
  });
});

describe('the retry setting', () => {
  const create = (retry: unknown) =>
    api.post(`/api/jobs/${jobId}/endpoints`, endpointInput({ name: 'validation', retry }));

  it.each([
    [{ attempts: 0 }, 'retry.attempts'],
    [{ attempts: 6 }, 'retry.attempts'],
    [{ attempts: 1.5 }, 'retry.attempts'],
    [{}, 'retry.attempts'],
    [{ attempts: 2, backoffBaseMs: 50 }, 'retry.backoffBaseMs'],
    [{ attempts: 2, backoffCapMs: 300_001 }, 'retry.backoffCapMs'],
    [{ attempts: 2, backoffBaseMs: 5000, backoffCapMs: 1000 }, 'retry.backoffCapMs'],
    [{ attempts: 2, jitter: true }, 'retry.jitter'],
    ['3', 'retry'],
  ])('%j is refused naming %s', async (retry, field) => {
    const response = await create(retry);
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field } });
  });

  it('is stored with its defaults, shown, changed and cleared (null) through the API', async () => {
    const created = await create({ attempts: 2 });
    expect(created.status).toBe(201);
    expect(created.body.retry).toEqual({ attempts: 2, backoffBaseMs: 1000, backoffCapMs: 30_000 });
    const id = created.body.id as string;
    expect((await api.get(`/api/endpoints/${id}`)).body.retry).toEqual(created.body.retry);
    const patched = await api.patch(`/api/jobs/${jobId}/endpoints/${id}`, {
      retry: { attempts: 5, backoffCapMs: 60_000 },
    });
    expect(patched.body.retry).toEqual({ attempts: 5, backoffBaseMs: 1000, backoffCapMs: 60_000 });
    const refused = await api.patch(`/api/jobs/${jobId}/endpoints/${id}`, {
      retry: { attempts: 5, backoffBaseMs: 60_000, backoffCapMs: 100 },
    });
    expect(refused.status).toBe(400);
    expect((await api.patch(`/api/jobs/${jobId}/endpoints/${id}`, { retry: null })).body.retry).toBeNull();
    expect((await api.post(`/api/jobs/${jobId}/endpoints`, endpointInput({ name: 'plain' }))).body.retry).toBeNull();
    await api.post(`/api/jobs/${jobId}/endpoints/${id}/archive`);
  });
});
