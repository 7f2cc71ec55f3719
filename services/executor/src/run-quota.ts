/**
 * Runs-per-month quota (packages/core/src/tiers.ts), enforced where runs happen. A Redis counter
 * per account and UTC month, counted from PostgreSQL whenever it is missing (first use, new month,
 * Redis lost), then incremented once per recorded run. Derived state only: a flush costs one count.
 * Counting is approximate under concurrency (a few runs may pass the limit at the edge), never lost.
 */
import { monthStart, tierLimits, type TierName } from '@kairos/core';
import { countRunsSince, type Database } from '@kairos/db';
import type { ChainableCommander, Redis } from 'ioredis';

const COUNTER_TTL_SECONDS = 40 * 86_400;
const INCREMENT_IF_PRESENT = `if redis.call('exists', KEYS[1]) == 1 then return redis.call('incr', KEYS[1]) end return 0`;

export interface QuotaSubject {
  accountId: string;
  tier: TierName;
  quotaOverrides: unknown;
}

export class RunQuota {
  constructor(
    private readonly db: Database,
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  key(accountId: string, now: Date): string {
    return `${this.prefix}:usage:runs:${accountId}:${now.toISOString().slice(0, 7)}`;
  }

  limit(subject: QuotaSubject): number {
    return tierLimits(subject.tier, subject.quotaOverrides).runsPerMonth;
  }

  /** Runs of this month so far and the account's limit. */
  async usage(subject: QuotaSubject, now: Date): Promise<{ used: number; limit: number }> {
    const limit = this.limit(subject);
    const key = this.key(subject.accountId, now);
    let used = await this.redis.get(key);
    if (used === null) {
      const counted = await countRunsSince(this.db, subject.accountId, monthStart(now));
      await this.redis.set(key, String(counted), 'EX', COUNTER_TTL_SECONDS, 'NX');
      used = (await this.redis.get(key)) ?? String(counted);
    }
    return { used: Number(used), limit };
  }

  async isExhausted(subject: QuotaSubject, now: Date): Promise<boolean> {
    const { used, limit } = await this.usage(subject, now);
    return used >= limit;
  }

  /** Counts one recorded run (when the counter exists; otherwise the next check counts them all). */
  async recordRun(accountId: string, now: Date): Promise<void> {
    await this.redis.eval(INCREMENT_IF_PRESENT, 1, this.key(accountId, now));
  }

  /** The same count, queued on a pipeline (many runs counted in one write). */
  recordRunIn(pipeline: ChainableCommander, accountId: string, now: Date): void {
    pipeline.eval(INCREMENT_IF_PRESENT, 1, this.key(accountId, now));
  }
}
