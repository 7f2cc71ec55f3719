/**
 * The account's AI settings and budget: GET /api/account (settings, aiBudget) and
 * PATCH /api/account/settings (Enable AI Scheduling, shadow mode).
 */
import { TIER_LIMITS } from '@kairos/core';
import { createApiHarness, type ApiClient, type ApiHarness, type TestAccount } from '../../../test/api.js';

let harness: ApiHarness;
/** The notification and auto-pause settings at their defaults. */
const THRESHOLDS = { notifyFailureThreshold: 3, autoPauseAfterFailures: null, hostLimits: [] };

beforeAll(async () => {
  harness = await createApiHarness();
});
afterAll(() => harness.close());

const monthStart = (offset: number) => {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + offset, 1)).toISOString();
};

async function newAccount(
  tier: 'free' | 'pro' | 'enterprise' = 'free',
): Promise<{ account: TestAccount; api: ApiClient }> {
  const account = await harness.createAccount({ tier });
  return { account, api: harness.client(account.apiKey) };
}

const setAccount = (accountId: string, data: Record<string, unknown>) =>
  harness.db.prisma.account.update({ where: { id: accountId }, data });

describe('GET /api/account', () => {
  it('shows the AI settings and the budget of this calendar month', async () => {
    const { account, api } = await newAccount();
    const response = await api.get('/api/account');
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      id: account.accountId,
      tier: 'free',
      settings: { aiSchedulingEnabled: true, aiShadowMode: false, signingKeyGraceMinutes: 0 },
      aiBudget: {
        tokensUsed: 0,
        tokensLimit: TIER_LIMITS.free.aiTokensPerMonth,
        periodStartedAt: monthStart(0),
        periodEndsAt: monthStart(1),
        exhausted: false,
      },
    });
  });

  it('takes the limit from the tier, or the account override', async () => {
    const { account, api } = await newAccount('pro');
    expect((await api.get('/api/account')).body.aiBudget.tokensLimit).toBe(TIER_LIMITS.pro.aiTokensPerMonth);
    await setAccount(account.accountId, { quotaOverrides: { aiTokensPerMonth: 1234 } });
    expect((await api.get('/api/account')).body.aiBudget.tokensLimit).toBe(1234);
  });

  it('says when the budget is exhausted, and counts a past month as 0', async () => {
    const { account, api } = await newAccount();
    await setAccount(account.accountId, { quotaOverrides: { aiTokensPerMonth: 500 }, aiTokensUsed: 500 });
    expect((await api.get('/api/account')).body.aiBudget).toMatchObject({ tokensUsed: 500, exhausted: true });
    await setAccount(account.accountId, { aiPeriodStartedAt: new Date(monthStart(-1)) });
    expect((await api.get('/api/account')).body.aiBudget).toMatchObject({ tokensUsed: 0, exhausted: false });
  });
});

describe('PATCH /api/account/settings', () => {
  it('turns AI scheduling and shadow mode on and off, one field at a time, and audits it', async () => {
    const { account, api } = await newAccount();
    const off = await api.patch('/api/account/settings', { aiSchedulingEnabled: false });
    expect(off.status).toBe(200);
    expect(off.body.settings).toEqual({
      aiSchedulingEnabled: false,
      aiShadowMode: false,
      aiRules: false,
      signingKeyGraceMinutes: 0,
      ...THRESHOLDS,
    });
    expect(off.body).not.toHaveProperty('aiSchedulingEnabled');
    const shadow = await api.patch('/api/account/settings', { aiShadowMode: true });
    expect(shadow.body.settings).toEqual({
      aiSchedulingEnabled: false,
      aiShadowMode: true,
      aiRules: false,
      signingKeyGraceMinutes: 0,
      ...THRESHOLDS,
    });
    const both = await api.patch('/api/account/settings', { aiSchedulingEnabled: true, aiShadowMode: false });
    expect(both.body.settings).toEqual({
      aiSchedulingEnabled: true,
      aiShadowMode: false,
      aiRules: false,
      signingKeyGraceMinutes: 0,
      ...THRESHOLDS,
    });
    expect((await api.get('/api/account')).body.settings).toEqual({
      aiSchedulingEnabled: true,
      aiShadowMode: false,
      aiRules: false,
      signingKeyGraceMinutes: 0,
      ...THRESHOLDS,
    });
    const stored = await harness.db.prisma.account.findUniqueOrThrow({ where: { id: account.accountId } });
    expect(stored).toMatchObject({ aiSchedulingEnabled: true, aiShadowMode: false, aiRules: false });
    // AI rules: off by default, on and off on their own.
    const rules = await api.patch('/api/account/settings', { aiRules: true });
    expect(rules.status).toBe(200);
    expect(rules.body.settings).toMatchObject({ aiSchedulingEnabled: true, aiShadowMode: false, aiRules: true });
    expect((await api.get('/api/account')).body.settings.aiRules).toBe(true);
    expect((await api.patch('/api/account/settings', { aiRules: 'yes' })).status).toBe(400);
    expect((await api.patch('/api/account/settings', { aiRules: false })).body.settings.aiRules).toBe(false);
    const audit = await harness.db.prisma.auditEvent.findMany({
      where: { accountId: account.accountId, action: 'account.settings_updated' },
      orderBy: { createdAt: 'asc' },
    });
    expect(audit.map((event) => event.details)).toEqual([
      { aiSchedulingEnabled: false },
      { aiShadowMode: true },
      { aiSchedulingEnabled: true, aiShadowMode: false },
      { aiRules: true },
      { aiRules: false },
    ]);
    expect(audit[0]).toMatchObject({ actorType: 'api_key', actorId: account.apiKeyId });
  });

  it.each([
    ['an empty body', {}],
    ['a non-boolean', { aiSchedulingEnabled: 'yes' }],
    ['an unknown field', { aiSchedulingEnabled: true, aiBudget: 10 }],
  ])('refuses %s with 400', async (_what, body) => {
    const { account, api } = await newAccount();
    const response = await api.patch('/api/account/settings', body);
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('VALIDATION_ERROR');
    const stored = await harness.db.prisma.account.findUniqueOrThrow({ where: { id: account.accountId } });
    expect(stored).toMatchObject({ aiSchedulingEnabled: true, aiShadowMode: false, aiRules: false });
    // AI rules: off by default, on and off on their own.
    const rules = await api.patch('/api/account/settings', { aiRules: true });
    expect(rules.status).toBe(200);
    expect(rules.body.settings).toMatchObject({ aiSchedulingEnabled: true, aiShadowMode: false, aiRules: true });
    expect((await api.get('/api/account')).body.settings.aiRules).toBe(true);
    expect((await api.patch('/api/account/settings', { aiRules: 'yes' })).status).toBe(400);
    expect((await api.patch('/api/account/settings', { aiRules: false })).body.settings.aiRules).toBe(false);
  });

  it("changes only the caller's account", async () => {
    const { account: first, api } = await newAccount();
    const { account: second } = await newAccount();
    await api.patch('/api/account/settings', { aiSchedulingEnabled: false });
    const untouched = await harness.db.prisma.account.findUniqueOrThrow({ where: { id: second.accountId } });
    expect(untouched.aiSchedulingEnabled).toBe(true);
    expect(
      (await harness.db.prisma.account.findUniqueOrThrow({ where: { id: first.accountId } })).aiSchedulingEnabled,
    ).toBe(false);
  });
});

describe('host budgets (hostLimits)', () => {
  it("stores, shows and clears the account's host limits, and audits them", async () => {
    const { account, api } = await newAccount();
    expect((await api.get('/api/account')).body.settings.hostLimits).toEqual([]);
    const limits = [
      { host: 'api.example.com', maxPerSecond: 5, maxConcurrent: 2 },
      { host: '127.0.0.1:8080', maxPerSecond: 0.5 },
      { host: 'slow.example.com', maxConcurrent: 1 },
    ];
    const set = await api.patch('/api/account/settings', { hostLimits: limits });
    expect(set.status).toBe(200);
    expect(set.body.settings.hostLimits).toEqual(limits);
    expect((await api.get('/api/account')).body.settings.hostLimits).toEqual(limits);
    // Another setting leaves them as they are.
    await api.patch('/api/account/settings', { aiRules: true });
    expect((await api.get('/api/account')).body.settings.hostLimits).toEqual(limits);
    const cleared = await api.patch('/api/account/settings', { hostLimits: [] });
    expect(cleared.body.settings.hostLimits).toEqual([]);
    const stored = await harness.db.prisma.account.findUniqueOrThrow({ where: { id: account.accountId } });
    expect(stored.hostLimits).toBeNull();
    await api.patch('/api/account/settings', { hostLimits: limits });
    expect((await api.patch('/api/account/settings', { hostLimits: null })).body.settings.hostLimits).toEqual([]);
    const audit = await harness.db.prisma.auditEvent.findMany({
      where: { accountId: account.accountId, action: 'account.settings_updated' },
      orderBy: { createdAt: 'asc' },
    });
    expect(audit[0]!.details).toEqual({ hostLimits: limits });
  });

  it.each([
    ['an upper-case host', [{ host: 'API.example.com', maxPerSecond: 1 }], 'hostLimits[0].host'],
    ['a URL for a host', [{ host: 'https://api.example.com', maxPerSecond: 1 }], 'hostLimits[0].host'],
    ['a host with a path', [{ host: 'api.example.com/v1', maxPerSecond: 1 }], 'hostLimits[0].host'],
    ['a port out of range', [{ host: 'api.example.com:70000', maxPerSecond: 1 }], 'hostLimits[0].host'],
    ['no limit at all', [{ host: 'api.example.com' }], 'hostLimits[0]'],
    ['a rate of 0', [{ host: 'api.example.com', maxPerSecond: 0 }], 'hostLimits[0].maxPerSecond'],
    ['a fractional concurrency', [{ host: 'a.example.com', maxConcurrent: 1.5 }], 'hostLimits[0].maxConcurrent'],
    ['an unknown field', [{ host: 'a.example.com', maxConcurrent: 1, burst: 3 }], 'hostLimits[0].burst'],
    [
      'a host twice',
      [
        { host: 'a.example.com', maxConcurrent: 1 },
        { host: 'a.example.com', maxPerSecond: 1 },
      ],
      'hostLimits',
    ],
    [
      'more than 100 hosts',
      Array.from({ length: 101 }, (_, i) => ({ host: `h${i}.example.com`, maxPerSecond: 1 })),
      'hostLimits',
    ],
    ['not a list', { host: 'a.example.com', maxPerSecond: 1 }, 'hostLimits'],
  ])('refuses %s with 400 naming the field', async (_what, hostLimits, field) => {
    const { account, api } = await newAccount();
    const response = await api.patch('/api/account/settings', { hostLimits });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field } });
    const stored = await harness.db.prisma.account.findUniqueOrThrow({ where: { id: account.accountId } });
    expect(stored.hostLimits).toBeNull();
  });
});
