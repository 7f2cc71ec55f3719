/**
 * Quotas per account (core/tiers.ts): the limits of an account, cached briefly per process, and the
 * checks the routes run before creating or changing what a quota counts. A refusal is
 * 403 QUOTA_EXCEEDED with details { quota, limit, current } naming the quota.
 *
 * Counts are read before the insert, so requests racing each other may overshoot a count quota by
 * the number of concurrent creates; quotas are a commercial limit, not a safety invariant.
 */
import { AppError, nextCronTime, tierLimits, type EndpointConfig, type QuotaKey, type TierLimits } from '@kairos/core';
import { countActiveEndpoints, countActiveJobs, getAccount, type Database } from '@kairos/db';
import { LRUCache } from 'lru-cache';

const LIMITS_CACHE_MS = 10_000;

/** Limits so high that nothing is ever refused (test harness default; never in production). */
export const UNLIMITED: TierLimits = {
  requestsPerMinute: 1_000_000,
  burst: 1_000_000,
  maxJobs: 1_000_000,
  maxEndpoints: 1_000_000,
  minIntervalMs: 1000,
  runsPerMonth: 1_000_000_000,
  aiTokensPerMonth: 1_000_000_000,
};

/** Accounts whose limits a process keeps (≈ 0.3 KB each), least recently used first out. */
const LIMITS_CACHE_MAX = 10_000;

export class AccountLimits {
  private readonly cache = new LRUCache<string, { limits: TierLimits; expiresAtMs: number }>({
    max: LIMITS_CACHE_MAX,
    ttl: LIMITS_CACHE_MS,
  });

  /** `fixed` gives every account the same limits (tests); otherwise tier + quotaOverrides. */
  constructor(
    private readonly db: Database,
    private readonly fixed?: TierLimits,
  ) {}

  async get(accountId: string): Promise<TierLimits> {
    if (this.fixed) return this.fixed;
    const nowMs = Date.now();
    const cached = this.cache.get(accountId);
    if (cached && cached.expiresAtMs > nowMs) return cached.limits;
    const account = await getAccount(this.db, accountId);
    const limits = tierLimits(account?.tier ?? 'free', account?.quotaOverrides ?? null);
    this.cache.set(accountId, { limits, expiresAtMs: nowMs + LIMITS_CACHE_MS });
    return limits;
  }

  /** After an operator changes the account (this process sees it at once; others within 10 s). */
  evict(accountId: string): void {
    this.cache.delete(accountId);
  }
}

export function quotaExceeded(
  quota: QuotaKey,
  limit: number,
  current: number,
  message: string,
  field?: string,
): AppError {
  return new AppError('QUOTA_EXCEEDED', message, { quota, limit, current, ...(field ? { field } : {}) });
}

async function assertCountQuota(
  quota: 'maxJobs' | 'maxEndpoints',
  what: string,
  limit: number,
  count: () => Promise<number>,
): Promise<void> {
  const current = await count();
  if (current >= limit) {
    throw quotaExceeded(
      quota,
      limit,
      current,
      `${what} quota reached: the account has ${current} of ${limit} ${what}s (archive one, or ask an operator to raise ${quota})`,
    );
  }
}

export function assertJobQuota(db: Database, limits: TierLimits, accountId: string): Promise<void> {
  return assertCountQuota('maxJobs', 'job', limits.maxJobs, () => countActiveJobs(db, accountId));
}

export function assertEndpointQuota(db: Database, limits: TierLimits, accountId: string): Promise<void> {
  return assertCountQuota('maxEndpoints', 'endpoint', limits.maxEndpoints, () => countActiveEndpoints(db, accountId));
}

/** Cron spacing is measured on this many upcoming occurrences. */
const CRON_SAMPLE = 50;

/** Smallest gap between the next occurrences of a cron expression (ms). */
export function cronSpacingMs(expression: string, timezone: string, now: Date): number {
  let previous = nextCronTime(expression, timezone, now);
  let smallest = Infinity;
  for (let i = 1; i < CRON_SAMPLE; i += 1) {
    const next = nextCronTime(expression, timezone, previous);
    smallest = Math.min(smallest, next.getTime() - previous.getTime());
    previous = next;
  }
  return smallest;
}

type ScheduleFields = Pick<EndpointConfig, 'baselineIntervalMs' | 'baselineCron' | 'timezone' | 'minIntervalMs'>;

const scheduleChanged = (next: ScheduleFields, stored: ScheduleFields | null) =>
  !stored ||
  next.baselineIntervalMs !== stored.baselineIntervalMs ||
  next.baselineCron !== stored.baselineCron ||
  next.timezone !== stored.timezone ||
  next.minIntervalMs !== stored.minIntervalMs;

/**
 * The minimum-interval quota on an endpoint's schedule: baselineIntervalMs, minIntervalMs and the
 * spacing of baselineCron must not be below it. On a patch (stored given) only a changed schedule
 * is checked, so an endpoint created under a bigger tier stays editable after a downgrade.
 */
export function assertScheduleQuota(
  limits: TierLimits,
  next: ScheduleFields,
  stored: ScheduleFields | null,
  now: Date,
): void {
  if (!scheduleChanged(next, stored)) return;
  const floor = limits.minIntervalMs;
  const refuse = (field: string, current: number) =>
    quotaExceeded(
      'minIntervalMs',
      floor,
      current,
      `${field} (${current} ms) is below this account's minimum interval of ${floor} ms`,
      field,
    );
  if (next.baselineIntervalMs !== null && next.baselineIntervalMs < floor) {
    throw refuse('baselineIntervalMs', next.baselineIntervalMs);
  }
  if (next.minIntervalMs !== null && next.minIntervalMs < floor) throw refuse('minIntervalMs', next.minIntervalMs);
  if (next.baselineCron !== null) {
    const spacing = cronSpacingMs(next.baselineCron, next.timezone, now);
    if (spacing < floor) throw refuse('baselineCron', spacing);
  }
}

/** Interval hints (user or API) may not run an endpoint more often than the account's minimum. */
export function assertIntervalHintQuota(limits: TierLimits, intervalMs: number): void {
  if (intervalMs < limits.minIntervalMs) {
    throw quotaExceeded(
      'minIntervalMs',
      limits.minIntervalMs,
      intervalMs,
      `intervalMs (${intervalMs} ms) is below this account's minimum interval of ${limits.minIntervalMs} ms`,
      'intervalMs',
    );
  }
}
