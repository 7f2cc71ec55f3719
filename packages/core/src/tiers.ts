/**
 * Per-account limits by tier: API rate limits and quotas. Pure table + one merge function; the api
 * enforces them (rate limiter, quota checks), the planner reads aiTokensPerMonth.
 *
 * Free is limited to 60 requests/min (burst 10) and Pro to 300/min (burst 50);
 * Enterprise is "custom": the defaults below apply until an operator sets quotaOverrides
 * (`kairos accounts set-quota`). Every number is documented in docs/guide/api.md.
 */
import { z } from 'zod';

export const TIERS = ['free', 'pro', 'enterprise'] as const;
export type TierName = (typeof TIERS)[number];

export interface TierLimits {
  /** Sustained API requests per minute (token bucket refill rate; X-RateLimit-Limit). */
  requestsPerMinute: number;
  /** Requests that may be sent at once (token bucket capacity). */
  burst: number;
  /** Jobs that are not archived. */
  maxJobs: number;
  /** Endpoints that are not archived, across all jobs. */
  maxEndpoints: number;
  /** Smallest baselineIntervalMs / minIntervalMs / interval hint / cron spacing accepted. */
  minIntervalMs: number;
  /** Runs (scheduled and test) started per calendar month (UTC). */
  runsPerMonth: number;
  /** Planner (AI) tokens per budget period of a month. */
  aiTokensPerMonth: number;
}

export const QUOTA_KEYS = [
  'requestsPerMinute',
  'burst',
  'maxJobs',
  'maxEndpoints',
  'minIntervalMs',
  'runsPerMonth',
  'aiTokensPerMonth',
] as const satisfies readonly (keyof TierLimits)[];
export type QuotaKey = (typeof QUOTA_KEYS)[number];

export const TIER_LIMITS: Readonly<Record<TierName, Readonly<TierLimits>>> = {
  free: {
    requestsPerMinute: 60,
    burst: 10,
    maxJobs: 10,
    maxEndpoints: 25,
    minIntervalMs: 60_000,
    runsPerMonth: 100_000,
    aiTokensPerMonth: 200_000,
  },
  pro: {
    requestsPerMinute: 300,
    burst: 50,
    maxJobs: 100,
    maxEndpoints: 500,
    minIntervalMs: 10_000,
    runsPerMonth: 2_000_000,
    aiTokensPerMonth: 5_000_000,
  },
  enterprise: {
    requestsPerMinute: 1200,
    burst: 200,
    maxJobs: 10_000,
    maxEndpoints: 100_000,
    minIntervalMs: 1000,
    runsPerMonth: 100_000_000,
    aiTokensPerMonth: 50_000_000,
  },
};

const quotaValue = z.number().int('must be a whole number').min(0, 'must not be negative').max(Number.MAX_SAFE_INTEGER);

/** accounts.quotaOverrides as the operator API accepts it (other keys, e.g. runRetentionDays, pass through). */
export const quotaOverridesInput = z
  .object({
    requestsPerMinute: quotaValue.min(1, 'must be at least 1'),
    burst: quotaValue.min(1, 'must be at least 1'),
    maxJobs: quotaValue,
    maxEndpoints: quotaValue,
    minIntervalMs: quotaValue.min(1000, 'must be at least 1000 ms'),
    runsPerMonth: quotaValue,
    aiTokensPerMonth: quotaValue,
    runRetentionDays: quotaValue.min(1, 'must be at least 1').meta({ description: 'Runs retention (days)' }),
  })
  .partial()
  .meta({ id: 'QuotaOverrides', description: 'Per-account overrides of the tier limits; absent keys use the tier' });

/**
 * The limits that apply to an account: its tier's, with each valid override (a non-negative
 * integer under a known key) replacing the tier's value. Malformed overrides are ignored, so a bad
 * JSON value can never lift or zero a limit by accident.
 */
export function tierLimits(tier: TierName, overrides: unknown): TierLimits {
  const limits: TierLimits = { ...(TIER_LIMITS[tier] ?? TIER_LIMITS.free) };
  if (overrides === null || typeof overrides !== 'object' || Array.isArray(overrides)) return limits;
  for (const key of QUOTA_KEYS) {
    const value = (overrides as Record<string, unknown>)[key];
    if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) limits[key] = value;
  }
  limits.requestsPerMinute = Math.max(1, limits.requestsPerMinute);
  limits.burst = Math.max(1, limits.burst);
  return limits;
}

/** How long runs (and analysis sessions) are kept, by tier, in days. */
export const RUN_RETENTION_DAYS: Readonly<Record<TierName, number>> = { free: 7, pro: 30, enterprise: 90 };

/** The account's retention: its quotaOverrides.runRetentionDays (a positive integer) or the tier's. */
export function runRetentionDays(tier: TierName, overrides: unknown): number {
  const override = (overrides as { runRetentionDays?: unknown } | null)?.runRetentionDays;
  return typeof override === 'number' && Number.isInteger(override) && override > 0
    ? override
    : RUN_RETENTION_DAYS[tier];
}

/** Start of the calendar month (UTC) containing `now`: the runs-per-month and AI budget period. */
export function monthStart(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
}
