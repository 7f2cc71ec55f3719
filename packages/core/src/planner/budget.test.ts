import { TIER_LIMITS } from '../tiers.js';
import { aiBudgetPeriod, describeAiBudget } from './budget.js';

describe('aiBudgetPeriod', () => {
  it.each([
    ['2026-11-21T12:00:00.000Z', '2026-11-01T00:00:00.000Z', '2026-12-01T00:00:00.000Z'],
    ['2026-12-31T23:59:59.999Z', '2026-12-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z'],
    ['2027-01-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z', '2027-02-01T00:00:00.000Z'],
    ['2028-02-29T10:00:00.000Z', '2028-02-01T00:00:00.000Z', '2028-03-01T00:00:00.000Z'],
  ])('%s is in [%s, %s)', (now, startedAt, endsAt) => {
    expect(aiBudgetPeriod(new Date(now))).toEqual({ startedAt: new Date(startedAt), endsAt: new Date(endsAt) });
  });
});

describe('describeAiBudget', () => {
  const now = new Date('2026-11-21T12:00:00.000Z');
  const account = {
    tier: 'free' as const,
    quotaOverrides: null,
    aiTokensUsed: 1500,
    aiPeriodStartedAt: new Date('2026-11-03T09:00:00.000Z'),
  };

  it('counts this period, against the tier limit', () => {
    expect(describeAiBudget(account, now)).toEqual({
      tokensUsed: 1500,
      tokensLimit: TIER_LIMITS.free.aiTokensPerMonth,
      periodStartedAt: new Date('2026-11-01T00:00:00.000Z'),
      periodEndsAt: new Date('2026-12-01T00:00:00.000Z'),
      exhausted: false,
    });
  });

  it('reads a count from an earlier period as 0', () => {
    const stale = { ...account, aiTokensUsed: 10_000_000, aiPeriodStartedAt: new Date('2026-10-31T23:59:59.999Z') };
    expect(describeAiBudget(stale, now)).toMatchObject({ tokensUsed: 0, exhausted: false });
  });

  it.each([
    [{ aiTokensPerMonth: 1500 }, 1500, true],
    [{ aiTokensPerMonth: 1501 }, 1501, false],
    [{ aiTokensPerMonth: 0 }, 0, true],
    [{ aiTokensPerMonth: -5 }, TIER_LIMITS.free.aiTokensPerMonth, false],
    [{ aiTokensPerMonth: '9' }, TIER_LIMITS.free.aiTokensPerMonth, false],
  ])('override %p → limit %i, exhausted %p', (quotaOverrides, tokensLimit, exhausted) => {
    expect(describeAiBudget({ ...account, quotaOverrides }, now)).toMatchObject({ tokensLimit, exhausted });
  });

  it('uses the tier', () => {
    expect(describeAiBudget({ ...account, tier: 'enterprise' }, now).tokensLimit).toBe(
      TIER_LIMITS.enterprise.aiTokensPerMonth,
    );
  });
});
