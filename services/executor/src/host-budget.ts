/**
 * Host budgets: an account's `hostLimits` (packages/core/src/host-limits.ts), one budget per target
 * host shared by every endpoint of the account that calls it and by every executor. Two Redis keys
 * per account and host, under their own hash tag (`<name>:host:{<accountId>/<host>}:…`, one Redis
 * Cluster slot each, spread over the masters: not the endpoint's shard, which differs from endpoint to
 * endpoint of one host):
 * - `…:rate`, a hash: `tat`, the earliest time the next call may start (a GCRA bucket holding one
 *   call: calls are spaced 1000 / maxPerSecond ms apart, so any second holds at most maxPerSecond of
 *   them plus the one on its edge), and `blocked`, the end of a hold a 429 with Retry-After asked for;
 * - `…:calls`, a sorted set of the calls in flight (maxConcurrent), each scored with the end of its
 *   lease (the execution's budget plus a margin): a killed executor's call frees its place by itself.
 * One script takes a place: it reserves the next start time (at most HOST_RESERVE_MAX_MS ahead) and
 * a call place, or says how long to wait. A run held longer than HOST_WAIT_IN_PROCESS_MAX_MS in all
 * gives its due job back, delayed (queue-workers.ts): it is late, never dropped, and keeps no worker
 * busy meanwhile. The wait is recorded on the run (waitedForHostMs).
 *
 * The hot path without host limits: the account's `hostLimits` comes with the execution target (one
 * query, packages/db/src/executions.ts); null there means no URL parse, no Redis call and no await.
 */
import { compileHostLimits, hostLimitFor, type CompiledHostLimit } from '@kairos/core';
import type { ExecutionTarget } from '@kairos/db/system';
import type { RedisConnection } from '@kairos/queue';

/** How far ahead a call may reserve its start time; later ones wait without a reservation. */
export const HOST_RESERVE_MAX_MS = 2_000;
/** How long a run may wait for its host's budget inside the executor before its due job is delayed. */
export const HOST_WAIT_IN_PROCESS_MAX_MS = 3_000;
/** The longest hold a 429's Retry-After puts on a host (a longer one is cut to this). */
export const HOST_RETRY_AFTER_MAX_MS = 300_000;
/** How soon a run whose host has every call place taken asks again (plus up to as much at random). */
const CALL_PLACE_POLL_MS = 50;
/** A call place's lease beyond the execution's own budget. */
const CALL_PLACE_MARGIN_MS = 30_000;

/**
 * KEYS: rate hash, calls sorted set. ARGV: interval ms (0: no rate), maxConcurrent (0: none), holder,
 * lease ms, reserve max ms. Returns { wait ms, taken (1) or not (0) }; wait -1: every call place is taken.
 * Redis's clock, so that executors whose clocks differ share one budget.
 */
const TAKE = `
local t = redis.call('time')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local interval = tonumber(ARGV[1])
local maxc = tonumber(ARGV[2])
local blocked = tonumber(redis.call('hget', KEYS[1], 'blocked') or '0')
if blocked > now then return {math.ceil(blocked - now), 0} end
local start = now
if interval > 0 then
  local tat = tonumber(redis.call('hget', KEYS[1], 'tat') or '0')
  if tat > now then start = tat end
  if start - now > tonumber(ARGV[5]) then return {math.ceil(start - now - tonumber(ARGV[5])), 0} end
end
if maxc > 0 then
  redis.call('zremrangebyscore', KEYS[2], '-inf', now)
  if redis.call('zscore', KEYS[2], ARGV[3]) == false then
    if redis.call('zcard', KEYS[2]) >= maxc then return {-1, 0} end
    redis.call('zadd', KEYS[2], start + tonumber(ARGV[4]), ARGV[3])
  end
  local last = redis.call('zrange', KEYS[2], -1, -1, 'WITHSCORES')
  redis.call('pexpireat', KEYS[2], math.ceil(tonumber(last[2])))
end
if interval > 0 then
  redis.call('hset', KEYS[1], 'tat', tostring(start + interval))
  redis.call('pexpire', KEYS[1], math.ceil(start - now + interval) + 1000)
end
return {math.ceil(start - now), 1}`;

/**
 * KEYS: rate hash. ARGV: hold ms. A 429 with Retry-After: no call to the host starts before its end,
 * and the rate's next start moves past it.
 */
const BLOCK = `
local t = redis.call('time')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local untilMs = now + tonumber(ARGV[1])
local blocked = tonumber(redis.call('hget', KEYS[1], 'blocked') or '0')
if untilMs > blocked then redis.call('hset', KEYS[1], 'blocked', tostring(untilMs)) end
local tat = tonumber(redis.call('hget', KEYS[1], 'tat') or '0')
if tat > 0 and untilMs > tat then redis.call('hset', KEYS[1], 'tat', tostring(untilMs)) end
local ttl = redis.call('pttl', KEYS[1])
if ttl < tonumber(ARGV[1]) + 1000 then redis.call('pexpire', KEYS[1], tonumber(ARGV[1]) + 1000) end
return 1`;

/** A host's budget as it holds for one execution. */
export interface HostBudget {
  limit: CompiledHostLimit;
  rateKey: string;
  callsKey: string;
}

/** What taking a place in a host's budget came to. */
export type HostPlace =
  /** The call may start; `waitedMs` null when it did not wait. `release` frees its call place. */
  | { kind: 'taken'; waitedMs: number | null; release: () => Promise<void> }
  /** Wait longer outside the executor: deliver the due job again at `atMs` (epoch ms). */
  | { kind: 'later'; atMs: number; heldSinceMs: number };

export class HostBudgets {
  private readonly name: string;

  constructor(
    private readonly redis: RedisConnection,
    prefix: string,
    /** A call place's lease beyond the execution's budget (tests shorten it). */
    private readonly placeMarginMs = CALL_PLACE_MARGIN_MS,
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  ) {
    // The queue prefix's own hash tag is dropped: each budget has its own.
    this.name = prefix.replaceAll('{', '').replaceAll('}', '');
  }

  /** The budget a call of `target` falls under; null (at once, nothing else done) when its account sets none. */
  of(target: Pick<ExecutionTarget, 'accountId' | 'url' | 'hostLimits'>): HostBudget | null {
    if (target.hostLimits === null) return null;
    const limits = compileHostLimits(target.hostLimits);
    const limit = limits ? hostLimitFor(target.url, limits) : null;
    if (!limit) return null;
    const tag = `${this.name}:host:{${target.accountId}/${limit.host}}`;
    return { limit, rateKey: `${tag}:rate`, callsKey: `${tag}:calls` };
  }

  /**
   * Takes a place for a call: waits in the process while the wait stays within
   * HOST_WAIT_IN_PROCESS_MAX_MS (from `heldSinceMs`, when an earlier delivery was held already),
   * else answers `later`. `holder` names the call's place (the run id); `leaseMs` bounds how long it
   * may keep it.
   */
  async take(budget: HostBudget, holder: string, leaseMs: number, heldSinceMs?: number): Promise<HostPlace> {
    const { limit } = budget;
    const interval = limit.maxPerSecond === null ? 0 : 1000 / limit.maxPerSecond;
    const startedMs = Date.now();
    const since = heldSinceMs ?? startedMs;
    let waited = heldSinceMs !== undefined;
    for (;;) {
      const [waitMs, taken] = (await this.redis.eval(
        TAKE,
        2,
        budget.rateKey,
        budget.callsKey,
        String(interval),
        String(limit.maxConcurrent ?? 0),
        holder,
        String(leaseMs + this.placeMarginMs),
        String(HOST_RESERVE_MAX_MS),
      )) as [number, number];
      if (taken === 1) {
        if (waitMs > 0) {
          waited = true;
          await this.sleep(waitMs);
        }
        return {
          kind: 'taken',
          waitedMs: waited ? Math.max(1, Date.now() - since) : null,
          release: () => this.release(budget, holder),
        };
      }
      waited = true;
      const pauseMs = waitMs < 0 ? CALL_PLACE_POLL_MS + Math.floor(Math.random() * CALL_PLACE_POLL_MS) : waitMs;
      if (Date.now() + pauseMs - startedMs > HOST_WAIT_IN_PROCESS_MAX_MS) {
        return { kind: 'later', atMs: Date.now() + Math.max(pauseMs, 1000), heldSinceMs: since };
      }
      await this.sleep(pauseMs);
    }
  }

  /** Frees a call's place (nothing to do for a budget without maxConcurrent). */
  async release(budget: HostBudget, holder: string): Promise<void> {
    if (budget.limit.maxConcurrent !== null) await this.redis.zrem(budget.callsKey, holder);
  }

  /** A 429 with Retry-After from the host: holds the whole host for `retryAfterMs` (at most HOST_RETRY_AFTER_MAX_MS). */
  async hold(budget: HostBudget, retryAfterMs: number): Promise<void> {
    const ms = Math.min(Math.max(0, Math.ceil(retryAfterMs)), HOST_RETRY_AFTER_MAX_MS);
    if (ms === 0) return;
    await this.redis.eval(BLOCK, 1, budget.rateKey, String(ms));
  }
}
