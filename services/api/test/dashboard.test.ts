import { newId } from '@kairos/core';
import type { Prisma } from '@kairos/db';
import { createApiHarness, endpointInput, type ApiClient, type ApiHarness } from '../../../test/api.js';

// One fixed clock: "today" is 2026-03-29 (UTC), so the default range is 2026-03-23 .. 2026-03-29.
const NOW = new Date('2026-03-29T12:00:00.000Z');

let harness: ApiHarness;

beforeAll(async () => {
  harness = await createApiHarness({ now: () => NOW });
});
afterAll(() => harness.close());

interface Tenant {
  accountId: string;
  api: ApiClient;
}

async function createTenant(): Promise<Tenant> {
  const account = await harness.createAccount();
  return { accountId: account.accountId, api: harness.client(account.apiKey) };
}

async function createJob(tenant: Tenant, name: string): Promise<string> {
  return (await tenant.api.post('/api/jobs', { name })).body.id;
}

async function createEndpoint(tenant: Tenant, jobId: string, name: string, state: Prisma.EndpointUpdateInput = {}) {
  const { id } = (await tenant.api.post(`/api/jobs/${jobId}/endpoints`, endpointInput({ name }))).body;
  if (Object.keys(state).length > 0) await harness.db.prisma.endpoint.update({ where: { id }, data: state });
  return id as string;
}

async function insertRun(
  tenant: Tenant,
  endpointId: string,
  startedAt: string,
  lateMs: number,
  overrides: { status?: 'success' | 'failed'; source?: string } = {},
) {
  const started = new Date(startedAt);
  await harness.db.prisma.run.create({
    data: {
      id: newId(),
      accountId: tenant.accountId,
      endpointId,
      source: overrides.source ?? 'baseline-interval',
      status: overrides.status ?? 'success',
      scheduledAt: new Date(started.getTime() - lateMs),
      startedAt: started,
      completedAt: new Date(started.getTime() + 10),
      durationMs: 10,
    },
  });
}

async function insertSession(tenant: Tenant, endpointId: string, createdAt: string, tokenUsage: number) {
  await harness.db.prisma.analysisSession.create({
    data: {
      id: newId(),
      accountId: tenant.accountId,
      endpointId,
      status: 'completed',
      toolsCalled: [],
      tokenUsage,
      createdAt: new Date(createdAt),
    },
  });
}

describe('GET /api/dashboard', () => {
  let alice: Tenant;
  let bob: Tenant;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    alice = await createTenant();
    bob = await createTenant();

    const orders = await createJob(alice, 'Orders');
    ids.worst = await createEndpoint(alice, orders, 'Worst', {
      failureCount: 5,
      lastRunAt: new Date('2026-03-29T11:00:00Z'),
    });
    ids.recent = await createEndpoint(alice, orders, 'Recent', {
      failureCount: 2,
      lastRunAt: new Date('2026-03-29T10:00:00Z'),
    });
    ids.older = await createEndpoint(alice, orders, 'Older', {
      failureCount: 2,
      lastRunAt: new Date('2026-03-28T10:00:00Z'),
    });
    ids.paused = await createEndpoint(alice, orders, 'Paused');
    await alice.api.post(`/api/endpoints/${ids.paused}/pause`, { pausedUntil: '2026-03-29T13:00:00.000Z' });
    ids.archived = await createEndpoint(alice, orders, 'Archived', { failureCount: 9 });
    await alice.api.post(`/api/jobs/${orders}/endpoints/${ids.archived}/archive`);

    const pausedJob = await createJob(alice, 'Paused job');
    ids.inPausedJob = await createEndpoint(alice, pausedJob, 'In paused job');
    await alice.api.post(`/api/jobs/${pausedJob}/pause`);
    const archivedJob = await createJob(alice, 'Archived job');
    await createEndpoint(alice, archivedJob, 'In archived job');
    await alice.api.post(`/api/jobs/${archivedJob}/archive`);

    await insertRun(alice, ids.worst, '2026-03-29T10:00:00.000Z', 100);
    await insertRun(alice, ids.worst, '2026-03-29T11:00:00.000Z', 200, { status: 'failed' });
    await insertRun(alice, ids.worst, '2026-03-27T08:00:00.000Z', 300, { source: 'ai-interval' });
    await insertRun(alice, ids.worst, '2026-03-25T00:00:00.000Z', 400, { source: 'baseline-cron' });
    await insertRun(alice, ids.worst, '2026-03-23T00:00:00.000Z', 10_000, { source: 'test' });
    await insertRun(alice, ids.worst, '2026-03-22T23:59:59.999Z', 50);
    await insertRun(alice, ids.worst, '2026-03-30T00:00:00.000Z', 50);
    await insertSession(alice, ids.worst, '2026-03-24T09:00:00.000Z', 1000);
    await insertSession(alice, ids.worst, '2026-03-29T09:00:00.000Z', 234);
    await insertSession(alice, ids.worst, '2026-03-20T09:00:00.000Z', 5000);

    // Bob's data lands on the same days and must never show in Alice's figures.
    const bobJob = await createJob(bob, 'Bob');
    const bobEndpoint = await createEndpoint(bob, bobJob, 'Bob failing', { failureCount: 7 });
    await insertRun(bob, bobEndpoint, '2026-03-29T10:00:00.000Z', 99_000, { status: 'failed' });
    await insertRun(bob, bobEndpoint, '2026-03-24T10:00:00.000Z', 99_000, { source: 'bob-source' });
    await insertSession(bob, bobEndpoint, '2026-03-24T09:00:00.000Z', 777);
  });

  it('answers the last 7 days by default, zero-filled, with every figure', async () => {
    const response = await alice.api.get('/api/dashboard');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      range: { startDate: '2026-03-23', endDate: '2026-03-29' },
      totals: {
        jobs: 2,
        endpoints: 5,
        activeEndpoints: 3,
        pausedEndpoints: 2,
        runs: 5,
        successfulRuns: 4,
        failedRuns: 1,
      },
      successRate: 80,
      runsOverTime: [
        { date: '2026-03-23', success: 1, failed: 0 },
        { date: '2026-03-24', success: 0, failed: 0 },
        { date: '2026-03-25', success: 1, failed: 0 },
        { date: '2026-03-26', success: 0, failed: 0 },
        { date: '2026-03-27', success: 1, failed: 0 },
        { date: '2026-03-28', success: 0, failed: 0 },
        { date: '2026-03-29', success: 1, failed: 1 },
      ],
      runsBySource: { 'baseline-interval': 2, 'ai-interval': 1, 'baseline-cron': 1, test: 1 },
      // Scheduled runs only (the 10 s late test run is excluded): lateness [100, 200, 300, 400] ms.
      lateness: { runs: 4, p50Ms: 250, p95Ms: 385, p99Ms: 397, maxMs: 400 },
      failingEndpoints: [
        {
          endpointId: ids.worst,
          name: 'Worst',
          jobId: expect.any(String),
          jobName: 'Orders',
          failureCount: 5,
          lastRunAt: '2026-03-29T11:00:00.000Z',
        },
        expect.objectContaining({ endpointId: ids.recent, failureCount: 2 }),
        expect.objectContaining({ endpointId: ids.older, failureCount: 2 }),
      ],
      ai: { sessions: 2, tokens: 1234 },
    });
  });

  it('takes an explicit range, inclusive at both ends', async () => {
    const body = (await alice.api.get('/api/dashboard?startDate=2026-03-22&endDate=2026-03-22')).body;
    expect(body.range).toEqual({ startDate: '2026-03-22', endDate: '2026-03-22' });
    expect(body.runsOverTime).toEqual([{ date: '2026-03-22', success: 1, failed: 0 }]);
    expect(body.totals.runs).toBe(1);
    expect(body.ai).toEqual({ sessions: 0, tokens: 0 });
  });

  it('defaults the missing end of a range', async () => {
    const fromStart = (await alice.api.get('/api/dashboard?startDate=2026-03-27')).body;
    expect(fromStart.range).toEqual({ startDate: '2026-03-27', endDate: '2026-03-29' });
    const toEnd = (await alice.api.get('/api/dashboard?endDate=2026-03-25')).body;
    expect(toEnd.range).toEqual({ startDate: '2026-03-19', endDate: '2026-03-25' });
    expect(toEnd.runsOverTime).toHaveLength(7);
  });

  it('answers zeros for a range without runs', async () => {
    const body = (await alice.api.get('/api/dashboard?startDate=2025-01-01&endDate=2025-01-03')).body;
    expect(body).toMatchObject({
      totals: { runs: 0, successfulRuns: 0, failedRuns: 0 },
      successRate: 0,
      runsBySource: {},
      lateness: { runs: 0, p50Ms: 0, p95Ms: 0, p99Ms: 0, maxMs: 0 },
      ai: { sessions: 0, tokens: 0 },
    });
    expect(body.runsOverTime).toEqual([
      { date: '2025-01-01', success: 0, failed: 0 },
      { date: '2025-01-02', success: 0, failed: 0 },
      { date: '2025-01-03', success: 0, failed: 0 },
    ]);
  });

  it("shows only the caller's data", async () => {
    const body = (await bob.api.get('/api/dashboard')).body;
    expect(body.totals).toEqual({
      jobs: 1,
      endpoints: 1,
      activeEndpoints: 1,
      pausedEndpoints: 0,
      runs: 2,
      successfulRuns: 1,
      failedRuns: 1,
    });
    expect(body.runsBySource).toEqual({ 'baseline-interval': 1, 'bob-source': 1 });
    expect(body.failingEndpoints.map((endpoint: { name: string }) => endpoint.name)).toEqual(['Bob failing']);
    expect(body.ai).toEqual({ sessions: 1, tokens: 777 });
  });

  it('lists at most 10 failing endpoints', async () => {
    const carol = await createTenant();
    const jobId = await createJob(carol, 'Many');
    for (let index = 1; index <= 12; index += 1) {
      await createEndpoint(carol, jobId, `Failing ${index}`, { failureCount: index });
    }
    const failing = (await carol.api.get('/api/dashboard')).body.failingEndpoints;
    expect(failing.map((endpoint: { failureCount: number }) => endpoint.failureCount)).toEqual([
      12, 11, 10, 9, 8, 7, 6, 5, 4, 3,
    ]);
  });

  it.each([
    ['endDate before startDate', 'startDate=2026-03-10&endDate=2026-03-09', 'endDate', /before/],
    ['a range over 366 days', 'startDate=2025-03-28&endDate=2026-03-29', 'startDate', /367 days/],
    ['a date that is not YYYY-MM-DD', 'startDate=2026-3-1', 'startDate', /YYYY-MM-DD/],
    ['an impossible date', 'endDate=2026-02-30', 'endDate', /YYYY-MM-DD/],
  ])('refuses %s', async (_name, query, field, message) => {
    const response = await alice.api.get(`/api/dashboard?${query}`);
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field } });
    expect(response.body.error.message).toMatch(message);
  });

  it('accepts a range of exactly 366 days', async () => {
    const response = await alice.api.get('/api/dashboard?startDate=2025-03-29&endDate=2026-03-29');
    expect(response.status).toBe(200);
    expect(response.body.runsOverTime).toHaveLength(366);
  });
});
