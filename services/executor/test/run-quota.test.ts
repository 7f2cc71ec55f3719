/**
 * Runs per month (tier quota, overridable per account): once an account has used its runs, its
 * scheduled slots are skipped (nothing is called, nothing recorded) and the endpoint moves on to its
 * next slot; raising the quota resumes runs at once.
 */
import { startTestServer, type TestServer } from '../../../test/test-server.js';
import { createApiHarness, type ApiHarness } from '../../../test/api.js';
import { startEngine, waitFor, type Engine } from '../../../test/engine.js';

let harness: ApiHarness;
let engine: Engine;
let target: TestServer;

beforeAll(async () => {
  harness = await createApiHarness();
  engine = await startEngine(harness);
  target = await startTestServer((_req, res) => res.end('ok'));
});
afterAll(async () => {
  await engine.close();
  await target.close();
  await harness.close();
});

describe('runs per month quota', () => {
  it('skips scheduled slots past the quota without calling the endpoint, and resumes when raised', async () => {
    const account = await harness.createAccount({ tier: 'enterprise' });
    await harness.db.prisma.account.update({
      where: { id: account.accountId },
      data: { quotaOverrides: { runsPerMonth: 2 } },
    });
    const api = harness.client(account.apiKey);
    const job = (await api.post('/api/jobs', { name: 'quota' })).body;
    const endpoint = (
      await api.post(`/api/jobs/${job.id}/endpoints`, {
        name: 'q',
        url: `${target.origin}/quota`,
        method: 'GET',
        baselineIntervalMs: 1000,
      })
    ).body;
    const runs = () => harness.db.prisma.run.count({ where: { endpointId: endpoint.id } });
    await waitFor(async () => (await runs()) === 2, 5000, 'two runs');
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(await runs()).toBe(2);
    expect(target.requests.filter((request) => request.url === '/quota')).toHaveLength(2);
    const row = await harness.db.prisma.endpoint.findUniqueOrThrow({ where: { id: endpoint.id } });
    const lastRun = await harness.db.prisma.run.findFirstOrThrow({
      where: { endpointId: endpoint.id },
      orderBy: { scheduledAt: 'desc' },
    });
    // Skipped slots move the endpoint along its grid; it keeps a pending slot (it is not stuck).
    expect(row.lastScheduledAt!.getTime()).toBeGreaterThan(lastRun.scheduledAt.getTime());
    expect(row.nextRunAt!.getTime()).toBeGreaterThan(row.lastScheduledAt!.getTime());

    await harness.db.prisma.account.update({
      where: { id: account.accountId },
      data: { quotaOverrides: { runsPerMonth: 10 } },
    });
    await waitFor(async () => (await runs()) >= 4, 5000, 'runs after raising the quota');
  });

  it('rebuilds a lost counter from PostgreSQL', async () => {
    const account = await harness.createAccount({ tier: 'enterprise' });
    await harness.db.prisma.account.update({
      where: { id: account.accountId },
      data: { quotaOverrides: { runsPerMonth: 1 } },
    });
    const api = harness.client(account.apiKey);
    const job = (await api.post('/api/jobs', { name: 'quota 2' })).body;
    const endpoint = (
      await api.post(`/api/jobs/${job.id}/endpoints`, {
        name: 'q',
        url: `${target.origin}/quota2`,
        method: 'GET',
        baselineIntervalMs: 1000,
      })
    ).body;
    const runs = () => harness.db.prisma.run.count({ where: { endpointId: endpoint.id } });
    await waitFor(async () => (await runs()) === 1, 5000, 'one run');
    const keys = await harness.redis.keys(`${harness.queuePrefix}:usage:runs:${account.accountId}:*`);
    expect(keys).toHaveLength(1);
    await harness.redis.del(...keys);
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(await runs()).toBe(1);
    expect(await harness.redis.get(keys[0]!)).toBe('1');
  });
});
