import { Queue } from 'bullmq';
import { createApiHarness, endpointInput, type ApiClient, type ApiHarness } from '../../../test/api.js';

let harness: ApiHarness;
let api: ApiClient;
let other: ApiClient;
let jobId: string;

beforeAll(async () => {
  harness = await createApiHarness();
  api = harness.client((await harness.createAccount()).apiKey);
  other = harness.client((await harness.createAccount()).apiKey);
  jobId = (await api.post('/api/jobs', { name: 'Scheduling control' })).body.id;
});
afterAll(() => harness.close());

const createEndpoint = async (overrides: Record<string, unknown> = {}) => {
  const response = await api.post(`/api/jobs/${jobId}/endpoints`, endpointInput(overrides));
  expect(response.status).toBe(201);
  return response.body as { id: string };
};
const row = (id: string) => harness.db.prisma.endpoint.findUniqueOrThrow({ where: { id } });
const inMinutes = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();

/** Asserts `iso` lies within [before + offsetMs, after + offsetMs]. */
function expectTimeBetween(iso: string, before: number, after: number, offsetMs = 0) {
  const at = new Date(iso).getTime();
  expect(at).toBeGreaterThanOrEqual(before + offsetMs);
  expect(at).toBeLessThanOrEqual(after + offsetMs);
}

describe('POST /api/endpoints/:id/pause', () => {
  it('pauses until a time with a reason, then resumes with null', async () => {
    const endpoint = await createEndpoint();
    const pausedUntil = inMinutes(90);
    const paused = await api.post(`/api/endpoints/${endpoint.id}/pause`, { pausedUntil, reason: 'maintenance' });
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({
      success: true,
      pausedUntil,
      endpoint: { id: endpoint.id, status: 'paused', pausedUntil, pauseReason: 'maintenance' },
    });
    const stored = await row(endpoint.id);
    expect(stored).toMatchObject({ pauseReason: 'maintenance', pauseOrigin: 'user' });
    expect(stored.pausedUntil?.toISOString()).toBe(pausedUntil);
    expect(stored.scheduleDirtyAt).not.toBeNull();

    const resumed = await api.post(`/api/endpoints/${endpoint.id}/pause`, { pausedUntil: null });
    expect(resumed.status).toBe(200);
    expect(resumed.body).toMatchObject({
      success: true,
      pausedUntil: null,
      endpoint: { status: 'active', pausedUntil: null, pauseReason: null },
    });
    expect(await row(endpoint.id)).toMatchObject({ pausedUntil: null, pauseReason: null, pauseOrigin: null });
  });

  it('keeps hints while paused (the pause overrides them)', async () => {
    const endpoint = await createEndpoint();
    await api.post(`/api/endpoints/${endpoint.id}/hints/interval`, { intervalMs: 5000, ttlMinutes: 30, reason: 'r' });
    const paused = await api.post(`/api/endpoints/${endpoint.id}/pause`, { pausedUntil: inMinutes(10) });
    expect(paused.body.endpoint.status).toBe('paused');
    expect(paused.body.endpoint.hints.interval).toMatchObject({ intervalMs: 5000 });
  });

  it('accepts a timestamp with an offset and answers it in UTC', async () => {
    const endpoint = await createEndpoint();
    const later = new Date(Date.now() + 3_600_000);
    const withOffset = new Date(later.getTime() + 2 * 3_600_000).toISOString().replace('Z', '+02:00');
    const response = await api.post(`/api/endpoints/${endpoint.id}/pause`, { pausedUntil: withOffset });
    expect(response.status).toBe(200);
    expect(response.body.pausedUntil).toBe(later.toISOString());
  });

  it.each([
    ['a past pausedUntil', { pausedUntil: new Date(Date.now() - 60_000).toISOString() }, 'pausedUntil', /future/],
    ['a missing pausedUntil', { reason: 'x' }, 'pausedUntil', /required/],
    ['a pausedUntil that is not a timestamp', { pausedUntil: 'tomorrow' }, 'pausedUntil', /./],
    ['a reason over 500 characters', { pausedUntil: inMinutes(5), reason: 'x'.repeat(501) }, 'reason', /500/],
    ['an unknown field', { pausedUntil: null, until: 'x' }, 'until', /unknown/],
  ])('refuses %s', async (_name, body, field, message) => {
    const endpoint = await createEndpoint();
    const response = await api.post(`/api/endpoints/${endpoint.id}/pause`, body);
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field } });
    expect(response.body.error.message).toMatch(message);
    expect((await row(endpoint.id)).pausedUntil).toBeNull();
  });
});

describe('POST /api/endpoints/:id/hints/interval', () => {
  it('stores the hint with its expiry and shows it on the endpoint', async () => {
    const endpoint = await createEndpoint();
    const before = Date.now();
    const response = await api.post(`/api/endpoints/${endpoint.id}/hints/interval`, {
      intervalMs: 15000,
      ttlMinutes: 30,
      reason: 'orders are surging',
    });
    const after = Date.now();
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ success: true, intervalMs: 15000, clampedIntervalMs: 15000 });
    expectTimeBetween(response.body.expiresAt, before, after, 30 * 60_000);
    expect(response.body.endpoint.hints.interval).toEqual({
      intervalMs: 15000,
      expiresAt: response.body.expiresAt,
      reason: 'orders are surging',
      origin: 'user',
      setAt: expect.any(String),
    });
    const stored = await row(endpoint.id);
    expect(stored).toMatchObject({
      hintIntervalMs: 15000,
      hintIntervalReason: 'orders are surging',
      hintIntervalOrigin: 'user',
    });
    expect(stored.hintIntervalExpiresAt?.toISOString()).toBe(response.body.expiresAt);
    expect(stored.hintIntervalSetAt).not.toBeNull();
  });

  it('accepts fractional TTLs and replaces an earlier hint', async () => {
    const endpoint = await createEndpoint();
    await api.post(`/api/endpoints/${endpoint.id}/hints/interval`, { intervalMs: 5000, ttlMinutes: 60, reason: 'a' });
    const before = Date.now();
    const second = await api.post(`/api/endpoints/${endpoint.id}/hints/interval`, {
      intervalMs: 7000,
      ttlMinutes: 0.5,
      reason: 'b',
    });
    expect(second.status).toBe(200);
    expectTimeBetween(second.body.expiresAt, before, Date.now(), 30_000);
    expect(await row(endpoint.id)).toMatchObject({ hintIntervalMs: 7000, hintIntervalReason: 'b' });
  });

  it.each([
    [1000, 5000],
    [300_000, 120_000],
    [60_000, 60_000],
  ])('reports %i ms as %i ms after the min/max clamps', async (intervalMs, clampedIntervalMs) => {
    const endpoint = await createEndpoint({ minIntervalMs: 5000, maxIntervalMs: 120_000 });
    const response = await api.post(`/api/endpoints/${endpoint.id}/hints/interval`, {
      intervalMs,
      ttlMinutes: 15,
      reason: 'clamp',
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ intervalMs, clampedIntervalMs });
    expect((await row(endpoint.id)).hintIntervalMs).toBe(intervalMs);
  });

  it('refuses cron-scheduled endpoints (adaptive intervals need a baseline interval)', async () => {
    const endpoint = await createEndpoint({ baselineIntervalMs: undefined, baselineCron: '*/5 * * * *' });
    const response = await api.post(`/api/endpoints/${endpoint.id}/hints/interval`, {
      intervalMs: 15000,
      ttlMinutes: 30,
      reason: 'x',
    });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'intervalMs' } });
    expect(response.body.error.message).toMatch(/cron-scheduled endpoints do not support interval hints/);
    expect((await row(endpoint.id)).hintIntervalMs).toBeNull();
  });

  const valid = { intervalMs: 15000, ttlMinutes: 30, reason: 'why' };
  it.each([
    ['intervalMs below 1000', { ...valid, intervalMs: 999 }, 'intervalMs', /1000 ms/],
    // The message of zod type errors is not asserted here: http/validation.ts reads them all as "is required".
    ['a fractional intervalMs', { ...valid, intervalMs: 1500.5 }, 'intervalMs', /./],
    ['intervalMs above 2147483647', { ...valid, intervalMs: 2_147_483_648 }, 'intervalMs', /2147483647/],
    ['intervalMs as a string', { ...valid, intervalMs: '15000' }, 'intervalMs', /./],
    ['a missing intervalMs', { ttlMinutes: 30, reason: 'why' }, 'intervalMs', /required/],
    ['ttlMinutes 0', { ...valid, ttlMinutes: 0 }, 'ttlMinutes', /greater than 0/],
    ['a negative ttlMinutes', { ...valid, ttlMinutes: -5 }, 'ttlMinutes', /greater than 0/],
    ['ttlMinutes over 7 days', { ...valid, ttlMinutes: 10_081 }, 'ttlMinutes', /10080/],
    ['a missing ttlMinutes', { intervalMs: 15000, reason: 'why' }, 'ttlMinutes', /required/],
    ['a missing reason', { intervalMs: 15000, ttlMinutes: 30 }, 'reason', /required/],
    ['an empty reason', { ...valid, reason: '   ' }, 'reason', /empty/],
    ['a reason over 500 characters', { ...valid, reason: 'x'.repeat(501) }, 'reason', /500/],
  ])('refuses %s', async (_name, body, field, message) => {
    const endpoint = await createEndpoint();
    const response = await api.post(`/api/endpoints/${endpoint.id}/hints/interval`, body);
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field } });
    expect(response.body.error.message).toMatch(message);
  });

  it('accepts the edges of every range', async () => {
    const endpoint = await createEndpoint();
    for (const body of [
      { intervalMs: 1000, ttlMinutes: 10_080, reason: 'x'.repeat(500) },
      { intervalMs: 2_147_483_647, ttlMinutes: 0.01, reason: 'y' },
    ]) {
      expect((await api.post(`/api/endpoints/${endpoint.id}/hints/interval`, body)).status).toBe(200);
    }
  });
});

describe('POST /api/endpoints/:id/hints/oneshot', () => {
  it('stores the one-shot with its expiry and shows it on the endpoint', async () => {
    const endpoint = await createEndpoint();
    const nextRunAt = inMinutes(10);
    const before = Date.now();
    const response = await api.post(`/api/endpoints/${endpoint.id}/hints/oneshot`, {
      nextRunAt,
      ttlMinutes: 60,
      reason: 'report is ready at 10',
    });
    const after = Date.now();
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ success: true, nextRunAt });
    expectTimeBetween(response.body.expiresAt, before, after, 60 * 60_000);
    expect(response.body.endpoint.hints.oneShot).toEqual({
      nextRunAt,
      expiresAt: response.body.expiresAt,
      reason: 'report is ready at 10',
      origin: 'user',
      setAt: expect.any(String),
    });
    const stored = await row(endpoint.id);
    expect(stored.hintOneShotAt?.toISOString()).toBe(nextRunAt);
    expect(stored.hintOneShotExpiresAt?.toISOString()).toBe(response.body.expiresAt);
    expect(stored).toMatchObject({ hintOneShotReason: 'report is ready at 10', hintOneShotOrigin: 'user' });
  });

  it('treats a past nextRunAt as "as soon as possible" (stored as now)', async () => {
    const endpoint = await createEndpoint();
    const before = Date.now();
    const response = await api.post(`/api/endpoints/${endpoint.id}/hints/oneshot`, {
      nextRunAt: '2020-01-01T00:00:00.000Z',
      ttlMinutes: 15,
      reason: 'now please',
    });
    expect(response.status).toBe(200);
    expectTimeBetween(response.body.nextRunAt, before, Date.now());
    expect((await row(endpoint.id)).hintOneShotAt?.toISOString()).toBe(response.body.nextRunAt);
  });

  it('works on cron endpoints', async () => {
    const endpoint = await createEndpoint({ baselineIntervalMs: undefined, baselineCron: '0 3 * * *' });
    const response = await api.post(`/api/endpoints/${endpoint.id}/hints/oneshot`, {
      nextRunAt: inMinutes(5),
      ttlMinutes: 15,
      reason: 'run early today',
    });
    expect(response.status).toBe(200);
  });

  it.each([
    ['a nextRunAt after the TTL', { nextRunAt: 120, ttlMinutes: 60 }, 'nextRunAt', /never run/],
    ['a nextRunAt just after the expiry', { nextRunAt: 60.5, ttlMinutes: 60 }, 'nextRunAt', /not before/],
    ['a missing nextRunAt', { ttlMinutes: 60 }, 'nextRunAt', /required/],
    ['a nextRunAt that is not a timestamp', { nextRunAt: 'in 5 minutes', ttlMinutes: 60 }, 'nextRunAt', /./],
    ['ttlMinutes 0', { nextRunAt: 5, ttlMinutes: 0 }, 'ttlMinutes', /greater than 0/],
    ['ttlMinutes over 7 days', { nextRunAt: 5, ttlMinutes: 20_000 }, 'ttlMinutes', /10080/],
  ])('refuses %s', async (_name, input, field, message) => {
    const endpoint = await createEndpoint();
    const { nextRunAt, ...rest } = input as { nextRunAt?: number | string; ttlMinutes: number };
    const body = {
      ...rest,
      reason: 'r',
      ...(nextRunAt === undefined
        ? {}
        : { nextRunAt: typeof nextRunAt === 'number' ? inMinutes(nextRunAt) : nextRunAt }),
    };
    const response = await api.post(`/api/endpoints/${endpoint.id}/hints/oneshot`, body);
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field } });
    expect(response.body.error.message).toMatch(message);
    expect((await row(endpoint.id)).hintOneShotAt).toBeNull();
  });

  it('refuses a one-shot the minIntervalMs floor would push past its expiry', async () => {
    const endpoint = await createEndpoint({ minIntervalMs: 3_600_000, baselineIntervalMs: 3_600_000 });
    await harness.db.prisma.endpoint.update({ where: { id: endpoint.id }, data: { lastRunAt: new Date() } });
    const refused = await api.post(`/api/endpoints/${endpoint.id}/hints/oneshot`, {
      nextRunAt: inMinutes(1),
      ttlMinutes: 30,
      reason: 'too soon',
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details.field).toBe('ttlMinutes');
    const accepted = await api.post(`/api/endpoints/${endpoint.id}/hints/oneshot`, {
      nextRunAt: inMinutes(1),
      ttlMinutes: 90,
      reason: 'long enough',
    });
    expect(accepted.status).toBe(200);
  });
});

describe('expired hints and pauses', () => {
  it('are shown as null on the endpoint', async () => {
    const endpoint = await createEndpoint();
    await api.post(`/api/endpoints/${endpoint.id}/hints/interval`, { intervalMs: 5000, ttlMinutes: 30, reason: 'a' });
    await api.post(`/api/endpoints/${endpoint.id}/hints/oneshot`, {
      nextRunAt: inMinutes(5),
      ttlMinutes: 30,
      reason: 'b',
    });
    await api.post(`/api/endpoints/${endpoint.id}/pause`, { pausedUntil: inMinutes(30), reason: 'c' });
    const active = (await api.get(`/api/endpoints/${endpoint.id}`)).body;
    expect(active.hints.interval).not.toBeNull();
    expect(active.hints.oneShot).not.toBeNull();
    expect(active.status).toBe('paused');

    const past = new Date(Date.now() - 1000);
    await harness.db.prisma.endpoint.update({
      where: { id: endpoint.id },
      data: { hintIntervalExpiresAt: past, hintOneShotExpiresAt: past, pausedUntil: past },
    });
    const expired = (await api.get(`/api/endpoints/${endpoint.id}`)).body;
    expect(expired).toMatchObject({
      status: 'active',
      pausedUntil: null,
      pauseReason: null,
      hints: { interval: null, oneShot: null },
    });
  });
});

describe('DELETE /api/endpoints/:id/hints', () => {
  it('clears both hints, keeps a pause, and is idempotent', async () => {
    const endpoint = await createEndpoint();
    await api.post(`/api/endpoints/${endpoint.id}/hints/interval`, { intervalMs: 5000, ttlMinutes: 30, reason: 'a' });
    await api.post(`/api/endpoints/${endpoint.id}/hints/oneshot`, {
      nextRunAt: inMinutes(5),
      ttlMinutes: 30,
      reason: 'b',
    });
    await api.post(`/api/endpoints/${endpoint.id}/pause`, { pausedUntil: inMinutes(30) });
    const cleared = await api.delete(`/api/endpoints/${endpoint.id}/hints`);
    expect(cleared.status).toBe(200);
    expect(cleared.body).toMatchObject({
      success: true,
      endpoint: { id: endpoint.id, status: 'paused', hints: { interval: null, oneShot: null } },
    });
    expect(await row(endpoint.id)).toMatchObject({
      hintIntervalMs: null,
      hintIntervalExpiresAt: null,
      hintIntervalReason: null,
      hintIntervalOrigin: null,
      hintIntervalSetAt: null,
      hintOneShotAt: null,
      hintOneShotExpiresAt: null,
      hintOneShotReason: null,
      hintOneShotOrigin: null,
      hintOneShotSetAt: null,
    });
    expect((await row(endpoint.id)).pausedUntil).not.toBeNull();
    expect((await api.delete(`/api/endpoints/${endpoint.id}/hints`)).status).toBe(200);
  });
});

describe('POST /api/endpoints/:id/reset-failures', () => {
  it('sets the failure count to 0 and removes backoff', async () => {
    const endpoint = await createEndpoint();
    await harness.db.prisma.endpoint.update({ where: { id: endpoint.id }, data: { failureCount: 4 } });
    expect((await api.get(`/api/endpoints/${endpoint.id}`)).body).toMatchObject({
      failureCount: 4,
      backoffMultiplier: 16,
    });
    const response = await api.post(`/api/endpoints/${endpoint.id}/reset-failures`);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      success: true,
      failureCount: 0,
      endpoint: { failureCount: 0, backoffMultiplier: 1 },
    });
    expect((await row(endpoint.id)).failureCount).toBe(0);
  });
});

type Attempt = [string, (client: ApiClient, id: string) => Promise<{ status: number; body: any }>]; // eslint-disable-line @typescript-eslint/no-explicit-any
const CONTROL_ROUTES: Attempt[] = [
  ['pause', (client, id) => client.post(`/api/endpoints/${id}/pause`, { pausedUntil: inMinutes(30) })],
  ['resume', (client, id) => client.post(`/api/endpoints/${id}/pause`, { pausedUntil: null })],
  [
    'interval hint',
    (client, id) =>
      client.post(`/api/endpoints/${id}/hints/interval`, { intervalMs: 5000, ttlMinutes: 5, reason: 'x' }),
  ],
  [
    'one-shot hint',
    (client, id) =>
      client.post(`/api/endpoints/${id}/hints/oneshot`, { nextRunAt: inMinutes(1), ttlMinutes: 5, reason: 'x' }),
  ],
  ['clear hints', (client, id) => client.delete(`/api/endpoints/${id}/hints`)],
  ['reset failures', (client, id) => client.post(`/api/endpoints/${id}/reset-failures`)],
];

describe('tenancy and state', () => {
  it.each(CONTROL_ROUTES)("%s: 404 for another account's, an unknown or a malformed endpoint", async (_name, call) => {
    const endpoint = await createEndpoint();
    await harness.db.prisma.endpoint.update({ where: { id: endpoint.id }, data: { failureCount: 2 } });
    const before = await row(endpoint.id);
    for (const [client, id] of [
      [other, endpoint.id],
      [api, '0190a5a0-0000-7000-8000-000000000000'],
      [api, 'not-an-id'],
    ] as const) {
      const response = await call(client, id);
      expect({ id, status: response.status, code: response.body.error?.code }).toEqual({
        id,
        status: 404,
        code: 'NOT_FOUND',
      });
    }
    expect(await row(endpoint.id)).toEqual(before);
  });

  it.each(CONTROL_ROUTES)('%s: 409 CONFLICT on an archived endpoint', async (_name, call) => {
    const endpoint = await createEndpoint();
    await api.post(`/api/jobs/${jobId}/endpoints/${endpoint.id}/archive`);
    const before = await row(endpoint.id);
    const response = await call(api, endpoint.id);
    expect(response.status).toBe(409);
    expect(response.body.error.code).toBe('CONFLICT');
    expect(await row(endpoint.id)).toEqual(before);
  });

  it('works on endpoints of a paused job', async () => {
    const job = (await api.post('/api/jobs', { name: 'Paused job' })).body;
    const endpoint = (await api.post(`/api/jobs/${job.id}/endpoints`, endpointInput())).body;
    await api.post(`/api/jobs/${job.id}/pause`);
    for (const [name, call] of CONTROL_ROUTES) {
      expect({ name, status: (await call(api, endpoint.id)).status }).toEqual({ name, status: 200 });
    }
  });
});

describe('scheduler notification', () => {
  it('publishes a schedule change for every control action', async () => {
    const queue = new Queue('schedule-changes', { connection: harness.redis, prefix: harness.queuePrefix });
    try {
      const endpoint = await createEndpoint();
      for (const [, call] of CONTROL_ROUTES) expect((await call(api, endpoint.id)).status).toBe(200);
      const jobs = await queue.getJobs(['waiting'], 0, -1);
      const reasons = jobs
        .filter((job) => job.data.endpointIds.includes(endpoint.id))
        .map((job) => job.data.reason)
        .sort();
      expect(reasons).toEqual([
        'endpoint-created',
        'endpoint-paused',
        'endpoint-resumed',
        'failures-reset',
        'hints-cleared',
        'interval-hint-set',
        'one-shot-hint-set',
      ]);
    } finally {
      await queue.close();
    }
  });

  it('publishes nothing for a refused change', async () => {
    const queue = new Queue('schedule-changes', { connection: harness.redis, prefix: harness.queuePrefix });
    try {
      const endpoint = await createEndpoint({ baselineIntervalMs: undefined, baselineCron: '0 * * * *' });
      await api.post(`/api/endpoints/${endpoint.id}/hints/interval`, { intervalMs: 5000, ttlMinutes: 5, reason: 'x' });
      await api.post(`/api/endpoints/${endpoint.id}/pause`, { pausedUntil: '2020-01-01T00:00:00Z' });
      const jobs = await queue.getJobs(['waiting'], 0, -1);
      expect(jobs.filter((job) => job.data.endpointIds.includes(endpoint.id)).map((job) => job.data.reason)).toEqual([
        'endpoint-created',
      ]);
    } finally {
      await queue.close();
    }
  });
});
