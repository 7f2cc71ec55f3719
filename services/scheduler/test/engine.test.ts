/**
 * The engine as a new user sees it, through the API: an endpoint on a 1 s interval against a local
 * server runs every second, signed; failures back off; success resets; a one-shot runs once; a
 * pause stops it until its time; test runs leave scheduling state alone.
 */
import { decryptSecret, verifySignature } from '@kairos/core';
import type { Endpoint } from '@kairos/db';
import { startTestServer, type TestServer } from '../../../test/test-server.js';
import { createApiHarness, type ApiClient, type ApiHarness, type TestAccount } from '../../../test/api.js';
import { startEngine, waitFor, type Engine } from '../../../test/engine.js';

let harness: ApiHarness;
let engine: Engine;
let account: TestAccount;
let api: ApiClient;
let target: TestServer;
let failing = false;

beforeAll(async () => {
  harness = await createApiHarness();
  engine = await startEngine(harness);
  account = await harness.createAccount();
  api = harness.client(account.apiKey);
  target = await startTestServer((_req, res) => {
    res.writeHead(failing ? 500 : 200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ok: !failing }));
  });
});
afterAll(async () => {
  await engine.close();
  await target.close();
  await harness.close();
});

/** The endpoint once the scheduler has recomputed after its latest run (nextRunAt past that run). */
const settledEndpoint = (endpointId: string, what: string, predicate: (row: Endpoint) => boolean = () => true) =>
  waitFor(
    async () => {
      const row = await harness.db.prisma.endpoint.findUniqueOrThrow({ where: { id: endpointId } });
      return row.nextRunAt && row.lastScheduledAt && row.nextRunAt > row.lastScheduledAt && predicate(row) ? row : null;
    },
    6000,
    what,
  );

const runsOf = (endpointId: string) =>
  harness.db.prisma.run.findMany({ where: { endpointId }, orderBy: { scheduledAt: 'asc' } });
const requestsFor = (path: string) => target.requests.filter((request) => request.url.startsWith(path));

async function createEndpoint(path: string, overrides: Record<string, unknown> = {}) {
  const job = (await api.post('/api/jobs', { name: `job ${path}` })).body;
  const response = await api.post(`/api/jobs/${job.id}/endpoints`, {
    name: path,
    url: `${target.origin}${path}`,
    method: 'GET',
    baselineIntervalMs: 1000,
    ...overrides,
  });
  expect(response.status).toBe(201);
  return { jobId: job.id as string, endpointId: response.body.id as string };
}

describe('engine, black box', () => {
  it('runs a 1 s interval endpoint every second, on the planned grid, signed', async () => {
    const { endpointId } = await createEndpoint('/every-second');
    const runs = await waitFor(
      async () => {
        const found = await runsOf(endpointId);
        return found.length >= 4 ? found : null;
      },
      8000,
      'four runs',
    );
    const planned = runs.map((run) => run.scheduledAt.getTime());
    // Anchored to the planned time: consecutive planned times are exactly 1 s apart (no drift).
    for (let i = 1; i < planned.length; i += 1) expect(planned[i]! - planned[i - 1]!).toBe(1000);
    for (const run of runs) {
      expect(run).toMatchObject({ status: 'success', statusCode: 200, source: 'baseline-interval' });
      expect(run.startedAt.getTime() - run.scheduledAt.getTime()).toBeLessThan(500);
    }

    const { signingKey } = await harness.db.prisma.account.findUniqueOrThrow({
      where: { id: account.accountId },
      include: { signingKey: true },
    });
    expect(signingKey).not.toBeNull();
    const [request] = requestsFor('/every-second');
    const timestamp = Number(request!.headers['x-service-timestamp']);
    const signature = String(request!.headers['x-service-signature']);
    expect(signature).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(request!.headers['x-service-run-id']).toBe(runs[0]!.id);
    const rawKey = decryptSecret(signingKey!.encryptedKey, harness.masterKey);
    expect(verifySignature(rawKey, timestamp, '', signature, Math.floor(Date.now() / 1000))).toBe(true);
  });

  it('backs off per failure (2x, 4x … capped at 32x) and one success resets at once', async () => {
    failing = true;
    try {
      const { endpointId } = await createEndpoint('/flaky');
      const gapAfterFailures = async (count: number) => {
        const endpoint = await settledEndpoint(endpointId, `${count} failures`, (row) => row.failureCount === count);
        return endpoint.nextRunAt!.getTime() - endpoint.lastScheduledAt!.getTime();
      };
      expect(await gapAfterFailures(1)).toBe(2000);
      expect(await gapAfterFailures(2)).toBe(4000);

      // Jump to the cap without waiting 30 s: four failures so far, one more gives 32x, and stays 32x.
      await harness.db.prisma.endpoint.update({ where: { id: endpointId }, data: { failureCount: 4 } });
      await api.post(`/api/endpoints/${endpointId}/hints/oneshot`, {
        nextRunAt: new Date().toISOString(),
        ttlMinutes: 5,
        reason: 'run now to observe the cap',
      });
      expect(await gapAfterFailures(5)).toBe(32_000);
      await api.post(`/api/endpoints/${endpointId}/hints/oneshot`, {
        nextRunAt: new Date().toISOString(),
        ttlMinutes: 5,
        reason: 'once more',
      });
      expect(await gapAfterFailures(6)).toBe(32_000);

      failing = false;
      await api.post(`/api/endpoints/${endpointId}/hints/oneshot`, {
        nextRunAt: new Date().toISOString(),
        ttlMinutes: 5,
        reason: 'recovery',
      });
      const recovered = await settledEndpoint(
        endpointId,
        'a success',
        (row) => row.failureCount === 0 && row.lastStatus === 'success',
      );
      expect(recovered.nextRunAt!.getTime() - recovered.lastScheduledAt!.getTime()).toBe(1000);
    } finally {
      failing = false;
    }
  });

  it('runs a one-shot hint once at its time, then returns to the baseline', async () => {
    const { endpointId } = await createEndpoint('/oneshot', { baselineIntervalMs: 60_000 });
    await waitFor(async () => (await runsOf(endpointId)).length >= 1, 3000, 'the first run at creation');
    const at = new Date(Date.now() + 1500);
    const hint = await api.post(`/api/endpoints/${endpointId}/hints/oneshot`, {
      nextRunAt: at.toISOString(),
      ttlMinutes: 10,
      reason: 'check after the deploy',
    });
    expect(hint.status).toBe(200);
    const runs = await waitFor(
      async () => {
        const found = await runsOf(endpointId);
        return found.length >= 2 ? found : null;
      },
      5000,
      'the one-shot run',
    );
    const oneShot = runs[1]!;
    expect(oneShot.source).toBe('ai-oneshot');
    expect(oneShot.scheduledAt.getTime()).toBe(at.getTime());
    expect(oneShot.startedAt.getTime()).toBeGreaterThanOrEqual(at.getTime());
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await runsOf(endpointId)).toHaveLength(2);
    const endpoint = (await api.get(`/api/endpoints/${endpointId}`)).body;
    expect(endpoint.hints.oneShot).toBeNull();
    // Interval rule: last run + baseline interval; the one-shot was the last run.
    expect(new Date(endpoint.nextRunAt).getTime()).toBe(at.getTime() + 60_000);
  });

  it('a pause stops runs until its time, then they resume', async () => {
    const { endpointId } = await createEndpoint('/paused');
    await waitFor(async () => (await runsOf(endpointId)).length >= 1, 3000, 'a first run');
    const pausedUntil = new Date(Date.now() + 2500);
    const paused = await api.post(`/api/endpoints/${endpointId}/pause`, {
      pausedUntil: pausedUntil.toISOString(),
      reason: 'maintenance',
    });
    expect(paused.status).toBe(200);
    const countAtPause = (await runsOf(endpointId)).length;
    await new Promise((resolve) => setTimeout(resolve, 2000));
    // At most one run that had already started when the pause arrived.
    expect((await runsOf(endpointId)).length).toBeLessThanOrEqual(countAtPause + 1);
    const resumed = await waitFor(
      async () => {
        const found = await runsOf(endpointId);
        return found.some((run) => run.startedAt >= pausedUntil) ? found : null;
      },
      4000,
      'a run after the pause',
    );
    expect(
      resumed.filter((run) => run.startedAt > new Date(pausedUntil.getTime() - 2000) && run.startedAt < pausedUntil),
    ).toHaveLength(0);
  });

  it('a paused job runs nothing until resumed', async () => {
    const { jobId, endpointId } = await createEndpoint('/job-paused');
    await waitFor(async () => (await runsOf(endpointId)).length >= 1, 3000, 'a first run');
    await api.post(`/api/jobs/${jobId}/pause`);
    const settled = (await runsOf(endpointId)).length;
    await new Promise((resolve) => setTimeout(resolve, 2200));
    expect((await runsOf(endpointId)).length).toBeLessThanOrEqual(settled + 1);
    expect((await api.get(`/api/endpoints/${endpointId}`)).body.nextRunAt).toBeNull();
    await api.post(`/api/jobs/${jobId}/resume`);
    await waitFor(async () => (await runsOf(endpointId)).length >= settled + 2, 4000, 'runs after resume');
  });

  it('test runs leave nextRunAt, lastRunAt and failureCount alone', async () => {
    const { endpointId } = await createEndpoint('/tested', { baselineIntervalMs: 3_600_000 });
    const before = await settledEndpoint(endpointId, 'the first run');
    failing = true;
    try {
      const result = await api.post(`/api/endpoints/${endpointId}/test`);
      expect(result.status).toBe(200);
      expect(result.body).toMatchObject({ status: 'failed', statusCode: 500 });
    } finally {
      failing = false;
    }
    const after = await harness.db.prisma.endpoint.findUniqueOrThrow({ where: { id: endpointId } });
    expect({ nextRunAt: after.nextRunAt, lastRunAt: after.lastRunAt, failureCount: after.failureCount }).toEqual({
      nextRunAt: before.nextRunAt,
      lastRunAt: before.lastRunAt,
      failureCount: before.failureCount,
    });
    expect((await runsOf(endpointId)).map((run) => run.source).sort()).toEqual(['baseline-interval', 'test']);
  });
});
