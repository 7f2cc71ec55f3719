/**
 * The account's AI settings and budget: GET /api/account (settings, aiBudget) and
 * PATCH /api/account/settings (Enable AI Scheduling, shadow mode).
 */
import { TIER_LIMITS } from '@kairos/core';
import { createApiHarness, type ApiClient, type ApiHarness, type TestAccount } from '../../../test/api.js';

let harness: ApiHarness;
/** The notification and auto-pause settings at their defaults. */
const THRESHOLDS = { notifyFailureThreshold: 3, autoPauseAfterFailures: null };

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
