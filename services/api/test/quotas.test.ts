import { TIER_LIMITS, tierLimits } from '@kairos/core';
import {
  createApiHarness,
  endpointInput,
  type ApiClient,
  type ApiHarness,
  type ApiResponse,
  type TestAccount,
} from '../../../test/api.js';

let harness: ApiHarness;
let account: TestAccount;
let api: ApiClient;

beforeAll(async () => {
  harness = await createApiHarness({ limits: 'tier' });
  account = await harness.createAccount({ tier: 'free' });
  // Small count quotas (so the test stays short), and a rate limit this test never reaches.
  await harness.db.prisma.account.update({
    where: { id: account.accountId },
    data: { quotaOverrides: { maxJobs: 2, maxEndpoints: 2, requestsPerMinute: 60_000, burst: 10_000 } },
  });
  api = harness.client(account.apiKey);
});
afterAll(() => harness.close());

function expectQuota(response: ApiResponse, quota: string, limit: number, current: number) {
  expect(response.status).toBe(403);
  expect(response.body.error.code).toBe('QUOTA_EXCEEDED');
  expect(response.body.error.details).toMatchObject({ quota, limit, current });
  expect(response.body.error.message).toEqual(expect.any(String));
}

describe('tier table', () => {
  it('merges valid overrides over the tier and ignores malformed ones', () => {
    expect(tierLimits('free', null)).toEqual(TIER_LIMITS.free);
    expect(TIER_LIMITS.free).toMatchObject({ requestsPerMinute: 60, burst: 10 });
    expect(TIER_LIMITS.pro).toMatchObject({ requestsPerMinute: 300, burst: 50 });
    expect(tierLimits('pro', { maxJobs: 7, burst: '9', minIntervalMs: -1, runRetentionDays: 3 })).toEqual({
      ...TIER_LIMITS.pro,
      maxJobs: 7,
    });
    expect(tierLimits('enterprise', { aiTokensPerMonth: 0 }).aiTokensPerMonth).toBe(0);
    expect(tierLimits('free', [1, 2])).toEqual(TIER_LIMITS.free);
  });
});

describe('quotas', () => {
  it('refuses a job over maxJobs, naming the quota; archiving frees a slot', async () => {
    const first = (await api.post('/api/jobs', { name: 'one' })).body;
    expect((await api.post('/api/jobs', { name: 'two' })).status).toBe(201);
    expectQuota(await api.post('/api/jobs', { name: 'three' }), 'maxJobs', 2, 2);
    await api.post(`/api/jobs/${first.id}/archive`);
    expect((await api.post('/api/jobs', { name: 'three' })).status).toBe(201);
  });

  it("refuses schedules below the tier's minimum interval (60 s on Free)", async () => {
    const job = (await api.get('/api/jobs?status=active')).body[0];
    const create = (overrides: Record<string, unknown>) =>
      api.post(`/api/jobs/${job.id}/endpoints`, endpointInput(overrides));

    const tooFast = await create({ baselineIntervalMs: 30_000 });
    expectQuota(tooFast, 'minIntervalMs', 60_000, 30_000);
    expect(tooFast.body.error.details.field).toBe('baselineIntervalMs');
    expectQuota(await create({ minIntervalMs: 5000, baselineIntervalMs: 60_000 }), 'minIntervalMs', 60_000, 5000);
    const everyTenSeconds = await create({ baselineIntervalMs: undefined, baselineCron: '*/10 * * * * *' });
    expectQuota(everyTenSeconds, 'minIntervalMs', 60_000, 10_000);
    expect(everyTenSeconds.body.error.details.field).toBe('baselineCron');

    const ok = await create({ baselineIntervalMs: 60_000 });
    expect(ok.status).toBe(201);
    expect((await create({ baselineIntervalMs: undefined, baselineCron: '*/5 * * * *' })).status).toBe(201);
    expect(await harness.db.prisma.endpoint.count({ where: { accountId: account.accountId } })).toBe(2);

    const patched = await api.patch(`/api/jobs/${job.id}/endpoints/${ok.body.id}`, { baselineIntervalMs: 1000 });
    expectQuota(patched, 'minIntervalMs', 60_000, 1000);
    const hint = await api.post(`/api/endpoints/${ok.body.id}/hints/interval`, {
      intervalMs: 10_000,
      ttlMinutes: 30,
      reason: 'faster please',
    });
    expectQuota(hint, 'minIntervalMs', 60_000, 10_000);
    const slowerHint = await api.post(`/api/endpoints/${ok.body.id}/hints/interval`, {
      intervalMs: 120_000,
      ttlMinutes: 30,
      reason: 'slower',
    });
    expect(slowerHint.status).toBe(200);
  });

  it('refuses an endpoint over maxEndpoints', async () => {
    const job = (await api.get('/api/jobs?status=active')).body[0];
    expectQuota(await api.post(`/api/jobs/${job.id}/endpoints`, endpointInput()), 'maxEndpoints', 2, 2);
  });

  it('keeps an endpoint editable after a downgrade as long as its schedule does not change', async () => {
    const [endpoint] = await harness.db.prisma.endpoint.findMany({ where: { accountId: account.accountId } });
    await harness.db.prisma.endpoint.update({
      where: { id: endpoint!.id },
      data: { baselineIntervalMs: 5000, baselineCron: null },
    });
    const renamed = await api.patch(`/api/jobs/${endpoint!.jobId}/endpoints/${endpoint!.id}`, { name: 'Renamed' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.baselineIntervalMs).toBe(5000);
  });

  it('reports limits and usage for the account', async () => {
    const response = await api.get('/api/account');
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      id: account.accountId,
      tier: 'free',
      limits: { ...TIER_LIMITS.free, maxJobs: 2, maxEndpoints: 2, requestsPerMinute: 60_000, burst: 10_000 },
      usage: { jobs: 2, endpoints: 2, runsThisMonth: 0 },
    });
  });
});
