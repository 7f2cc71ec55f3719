/**
 * Runs-per-month quota (packages/core/src/tiers.ts), enforced where runs happen: checked at admission
 * (admission.ts runs `checkQuotaLua` inside its one admission script, or `check` when the counter is
 * missing) and counted when a run is recorded (run-recorder.ts: scheduled runs and Test now runs). A
 * Redis counter per account and UTC month, counted from PostgreSQL whenever it is missing (first use,
 * new month, Redis lost), then incremented once per recorded run. Derived state only: a flush costs
 * one count. Counting is approximate under concurrency (a few runs may pass the limit at the edge),
 * never lost.
 *
 * With several queue shards (KAIROS_QUEUE_SHARDS) each shard keeps its own counter per account, on
 * its own hash tag, so the admission script still touches one slot: counted from PostgreSQL (every
 * shard's runs), then incremented by its shard's runs only. So it is recounted every
 * SHARDED_COUNTER_TTL_SECONDS: an account can pass its limit by the runs it makes on the other
 * shards within that window (docs/operations/scaling.md "Queue shards and Redis Cluster").
 */
import { monthStart, tierLimits, type TierName } from '@kairos/core';
import { countRunsSince, type Database } from '@kairos/db';
import type { LuaIndex, RedisConnection } from '@kairos/queue';

const COUNTER_TTL_SECONDS = 40 * 86_400;
/** 5 min: one count query per account and shard every 5 min, against an overshoot of 5 min of other shards' runs. */
export const SHARDED_COUNTER_TTL_SECONDS = 300;
/** Lua: counts one run on the counter at KEYS[counterKey] when it exists (else the next check counts them all). */
export const countRunLua = (counterKey: LuaIndex) =>
  `if redis.call('exists', KEYS[${counterKey}]) == 1 then redis.call('incr', KEYS[${counterKey}]) end`;
const INCREMENT_IF_PRESENT = countRunLua(1);

/** What `checkQuotaLua` returns when it stops the script. */
export const COUNTER_MISSING = -1;
export const QUOTA_EXHAUSTED = -2;

/**
 * Lua: returns COUNTER_MISSING when the counter at KEYS[counterKey] is missing (the caller then
 * counts it with `check`), QUOTA_EXHAUSTED when it has reached ARGV[limit]; else falls through.
 */
export const checkQuotaLua = (counterKey: LuaIndex, limit: LuaIndex) => `
local used = redis.call('get', KEYS[${counterKey}])
if used == false then return ${COUNTER_MISSING} end
if tonumber(used) >= tonumber(ARGV[${limit}]) then return ${QUOTA_EXHAUSTED} end`;

export interface QuotaSubject {
  accountId: string;
  tier: TierName;
  quotaOverrides: unknown;
}

export class RunQuota {
  private readonly ttlSeconds: number;

  /** `shared: false`: one of several shards' counters (recounted every SHARDED_COUNTER_TTL_SECONDS). */
  constructor(
    private readonly db: Database,
    private readonly redis: RedisConnection,
    private readonly prefix: string,
    options: { shared?: boolean } = {},
  ) {
    this.ttlSeconds = options.shared === false ? SHARDED_COUNTER_TTL_SECONDS : COUNTER_TTL_SECONDS;
  }

  key(accountId: string, now: Date): string {
    // The UTC month as toISOString().slice(0, 7) writes it, without formatting the whole instant:
    // computed twice per execution, toISOString was 0.4 % of the executor's CPU at saturation.
    const month = String(now.getUTCMonth() + 1).padStart(2, '0');
    return `${this.prefix}:usage:runs:${accountId}:${String(now.getUTCFullYear()).padStart(4, '0')}-${month}`;
  }

  limit(subject: QuotaSubject): number {
    return tierLimits(subject.tier, subject.quotaOverrides).runsPerMonth;
  }

  /** Whether the account may start another run this month (counts a missing counter first). */
  async check(subject: QuotaSubject, now: Date): Promise<'ok' | 'exhausted'> {
    const key = this.key(subject.accountId, now);
    let used = await this.redis.get(key);
    if (used === null) {
      const counted = await countRunsSince(this.db, subject.accountId, monthStart(now));
      await this.redis.set(key, String(counted), 'EX', this.ttlSeconds, 'NX');
      used = (await this.redis.get(key)) ?? String(counted);
    }
    return Number(used) >= this.limit(subject) ? 'exhausted' : 'ok';
  }

  /** Counts one recorded run (when the counter exists; otherwise the next check counts them all). */
  async count(accountId: string, at: Date): Promise<void> {
    await this.redis.eval(INCREMENT_IF_PRESENT, 1, this.key(accountId, at));
  }
}
