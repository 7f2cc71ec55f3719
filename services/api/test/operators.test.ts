import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { QUEUES } from '@kairos/queue';
import { Queue } from 'bullmq';
import { createApiHarness, type ApiHarness, type TestAccount } from '../../../test/api.js';
import { signInWithLink, type SignedInSession } from '../../../test/identity.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const exec = promisify(execFile);

let harness: ApiHarness;
let operator: TestAccount;
let member: TestAccount;
let operatorSession: SignedInSession;
let memberSession: SignedInSession;

beforeAll(async () => {
  harness = await createApiHarness();
  operator = await harness.createAccount({ operator: true });
  member = await harness.createAccount();
  operatorSession = await signInWithLink(harness, operator.userId);
  memberSession = await signInWithLink(harness, member.userId);
});
afterAll(() => harness.close());

describe('Bull Board at /admin/queues', () => {
  it('is 401 without credentials and 403 FORBIDDEN for members (key or session)', async () => {
    const anonymous = await harness.http.get('/admin/queues');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error.code).toBe('UNAUTHORIZED');
    for (const response of [
      await harness.http.get('/admin/queues').set('x-api-key', member.apiKey),
      await harness.http.get('/admin/queues').set('cookie', memberSession.cookie),
      await harness.http.get('/admin/queues/api/queues').set('cookie', memberSession.cookie),
    ]) {
      expect(response.status).toBe(403);
      expect(response.body.error.code).toBe('FORBIDDEN');
    }
  });

  it('serves operators every Kairos queue under the configured prefix', async () => {
    const page = await harness.http.get('/admin/queues').set('cookie', operatorSession.cookie);
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    const queues = await harness.http.get('/admin/queues/api/queues').set('x-api-key', operator.apiKey);
    expect(queues.status).toBe(200);
    expect(queues.body.queues.map((queue: { name: string }) => queue.name).sort()).toEqual(
      Object.values(QUEUES).sort(),
    );
  });

  it("takes writes from the operator's browser only from the same origin", async () => {
    const due = new Queue(QUEUES.due, { connection: harness.redis, prefix: harness.queuePrefix });
    const crossSite = await harness.http
      .put('/admin/queues/api/queues/due/pause')
      .set('cookie', operatorSession.cookie);
    expect(crossSite.status).toBe(403);
    expect(await due.isPaused()).toBe(false);
    const sameOrigin = await harness.http
      .put('/admin/queues/api/queues/due/pause')
      .set('cookie', operatorSession.cookie)
      .set('sec-fetch-site', 'same-origin');
    expect(sameOrigin.status).toBe(200);
    expect(await due.isPaused()).toBe(true);
    await due.resume();
    await due.close();
  });
});

describe('admin API', () => {
  it('refuses members with 403 FORBIDDEN', async () => {
    const api = harness.client(member.apiKey);
    expect((await api.get('/api/admin/accounts')).status).toBe(403);
    expect((await api.get(`/api/admin/accounts/${member.accountId}`)).status).toBe(403);
    const patch = await api.patch(`/api/admin/accounts/${member.accountId}`, { tier: 'enterprise' });
    expect(patch.status).toBe(403);
    expect((await harness.db.prisma.account.findUniqueOrThrow({ where: { id: member.accountId } })).tier).toBe('free');
  });

  it('lists accounts with limits and usage, and changes tier, overrides and disabled state', async () => {
    const api = harness.client(operator.apiKey);
    const memberApi = harness.client(member.apiKey);
    await memberApi.post('/api/jobs', { name: 'counted' });

    const listed = await api.get('/api/admin/accounts');
    expect(listed.status).toBe(200);
    const row = listed.body.find((account: { id: string }) => account.id === member.accountId);
    expect(row).toMatchObject({ tier: 'free', disabledAt: null, usage: { jobs: 1, endpoints: 0 } });
    expect(row.users[0]).toMatchObject({ id: member.userId, role: 'member', emailVerified: true });

    const upgraded = await api.patch(`/api/admin/accounts/${member.accountId}`, {
      tier: 'pro',
      quotaOverrides: { maxJobs: 3, aiTokensPerMonth: 1000 },
    });
    expect(upgraded.body).toMatchObject({ tier: 'pro', quotaOverrides: { maxJobs: 3, aiTokensPerMonth: 1000 } });
    expect(upgraded.body.limits).toMatchObject({ requestsPerMinute: 300, maxJobs: 3, aiTokensPerMonth: 1000 });
    const merged = await api.patch(`/api/admin/accounts/${member.accountId}`, { quotaOverrides: { maxJobs: null } });
    expect(merged.body.quotaOverrides).toEqual({ aiTokensPerMonth: 1000 });
    expect((await api.patch(`/api/admin/accounts/${member.accountId}`, { quotaOverrides: { burst: 0 } })).status).toBe(
      400,
    );

    expect((await memberApi.get('/api/jobs')).status).toBe(200); // the key is cached now
    const disabled = await api.patch(`/api/admin/accounts/${member.accountId}`, { disabled: true });
    expect(disabled.body.disabledAt).not.toBeNull();
    const refused = await memberApi.get('/api/jobs');
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toContain('disabled');
    expect((await harness.http.get('/api/jobs').set('cookie', memberSession.cookie)).status).toBe(403);

    await api.patch(`/api/admin/accounts/${member.accountId}`, { disabled: false });
    expect((await memberApi.get('/api/jobs')).status).toBe(200);

    const events = await harness.db.prisma.auditEvent.findMany({
      where: { accountId: member.accountId, action: 'account.updated' },
    });
    expect(events).toHaveLength(4); // the refused change (400) is not recorded
    expect(events.every((event) => event.actorType === 'operator' && event.actorId === operator.userId)).toBe(true);
  });

  it('404s an unknown account', async () => {
    const response = await harness
      .client(operator.apiKey)
      .get('/api/admin/accounts/0190f5a0-0000-7000-8000-000000000000');
    expect(response.status).toBe(404);
  });
});

describe('operator CLI', () => {
  const kairos = async (...args: string[]) => {
    try {
      const { stdout } = await exec(
        'node',
        ['--conditions=source', '--import', 'tsx', join(root, 'services/api/src/cli/kairos.ts'), ...args],
        { cwd: root, env: { ...process.env, DATABASE_URL: harness.database.url }, timeout: 60_000 },
      );
      return { code: 0, json: JSON.parse(stdout) };
    } catch (error) {
      const failed = error as { code: number; stdout: string };
      return { code: failed.code, json: failed.stdout ? JSON.parse(failed.stdout) : null };
    }
  };

  it('sets roles, tiers, quotas and the disabled state, with --json output', async () => {
    const target = await harness.createAccount({ email: 'cli-target@example.test' });

    const role = await kairos(
      'users',
      'set-role',
      '--email',
      'cli-target@example.test',
      '--role',
      'operator',
      '--json',
    );
    expect(role).toEqual({
      code: 0,
      json: { userId: target.userId, email: 'cli-target@example.test', role: 'operator' },
    });
    expect((await harness.client(target.apiKey).get('/api/admin/accounts')).status).toBe(200);

    const tier = await kairos('accounts', 'set-tier', target.accountId, '--tier', 'enterprise', '--json');
    expect(tier.json).toMatchObject({ accountId: target.accountId, tier: 'enterprise', disabledAt: null });

    const quota = await kairos(
      'accounts',
      'set-quota',
      target.accountId,
      '--maxJobs',
      '5',
      '--runRetentionDays',
      '3',
      '--json',
    );
    expect(quota.json.quotaOverrides).toEqual({ maxJobs: 5, runRetentionDays: 3 });
    expect(quota.json.limits.maxJobs).toBe(5);
    const cleared = await kairos('accounts', 'set-quota', target.accountId, '--maxJobs', 'default', '--json');
    expect(cleared.json.quotaOverrides).toEqual({ runRetentionDays: 3 });

    const disabled = await kairos('accounts', 'disable', target.accountId, '--json');
    expect(disabled.json.disabledAt).not.toBeNull();
    expect(
      (await harness.db.prisma.account.findUniqueOrThrow({ where: { id: target.accountId } })).disabledAt,
    ).not.toBeNull();
    const enabled = await kairos('accounts', 'enable', target.accountId, '--json');
    expect(enabled.json.disabledAt).toBeNull();

    const audit = await harness.db.prisma.auditEvent.count({
      where: { accountId: target.accountId, actorType: 'operator' },
    });
    expect(audit).toBe(6);
  }, 120_000);

  it('refuses bad usage (64) and unknown accounts (1, JSON error)', async () => {
    expect(
      (await kairos('accounts', 'set-quota', '0190f5a0-0000-7000-8000-000000000000', '--maxJobs', 'lots', '--json'))
        .code,
    ).toBe(64);
    expect(
      (await kairos('accounts', 'set-quota', '0190f5a0-0000-7000-8000-000000000000', '--maxJobs', '--json')).code,
    ).toBe(64);
    const unknown = await kairos('accounts', 'disable', '0190f5a0-0000-7000-8000-000000000000', '--json');
    expect(unknown).toEqual({ code: 1, json: { error: expect.objectContaining({ code: 'NOT_FOUND' }) } });
  }, 60_000);
});
