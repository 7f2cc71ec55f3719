/**
 * AI token budgets. Each account may spend its tier's aiTokensPerMonth model tokens (input +
 * output, summed over an analysis's tool loop; tiers.ts, overridable per account with
 * quotaOverrides.aiTokensPerMonth) per budget period: the calendar month in UTC, so every budget
 * resets at 00:00 UTC on the 1st. The account row keeps the tokens used and when that count
 * started: a count that started before this month belongs to an earlier period and reads as 0
 * (the reset is lazy, done by the next write). A typical analysis uses 3-6k tokens.
 */
import { monthStart, tierLimits, type TierName } from '../tiers.js';

export interface AiBudgetState {
  tokensUsed: number;
  tokensLimit: number;
  periodStartedAt: Date;
  periodEndsAt: Date;
  exhausted: boolean;
}

/** The budget period containing `now`: its calendar month in UTC. */
export function aiBudgetPeriod(now: Date): { startedAt: Date; endsAt: Date } {
  const startedAt = monthStart(now);
  return { startedAt, endsAt: new Date(Date.UTC(startedAt.getUTCFullYear(), startedAt.getUTCMonth() + 1, 1)) };
}

/** The account's budget as of `now`, from its stored counters. */
export function describeAiBudget(
  account: { tier: TierName; quotaOverrides: unknown; aiTokensUsed: number; aiPeriodStartedAt: Date },
  now: Date,
): AiBudgetState {
  const period = aiBudgetPeriod(now);
  const tokensUsed = account.aiPeriodStartedAt >= period.startedAt ? account.aiTokensUsed : 0;
  const tokensLimit = tierLimits(account.tier, account.quotaOverrides).aiTokensPerMonth;
  return {
    tokensUsed,
    tokensLimit,
    periodStartedAt: period.startedAt,
    periodEndsAt: period.endsAt,
    exhausted: tokensUsed >= tokensLimit,
  };
}
