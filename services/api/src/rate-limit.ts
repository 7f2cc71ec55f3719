/**
 * API rate limits, shared by every api replica through Redis (rate-limiter-flexible).
 *
 * Semantics: a token bucket per caller. A tier's "N requests per minute, burst B" maps to a
 * bucket of capacity B refilled at N/60 tokens per second: a quiet client may send B requests at
 * once, and sustains N per minute (Free: 10 at once, then one per second). Each request takes one
 * token; an empty bucket answers 429 RATE_LIMITED with Retry-After (seconds until a token).
 *
 * Headers on every rate-limited response (authenticated or not):
 *   X-RateLimit-Limit      N, requests per minute
 *   X-RateLimit-Remaining  whole tokens left now (at most B)
 *   X-RateLimit-Reset      Unix seconds when the bucket is full again (on a 429: when a token is back)
 *
 * Callers: an authenticated request counts against its account (all keys, tokens and sessions of
 * the account share one bucket), limits from the account's tier and quotaOverrides. Anything else
 * counts against the client IP, more loosely (ANONYMOUS_LIMIT), covering sign-in, the device-flow
 * endpoints, Bull Board and refused credentials (key guessing). /healthz and /readyz are not limited.
 *
 * rate-limiter-flexible's stock Redis script is a fixed window; its `customIncrTtlLuaScript`
 * option swaps in the token bucket below (GCRA form: one number per key, the time at which the
 * bucket will be full again), keeping the library's client handling and RateLimiterRes results.
 * If Redis fails, requests pass (logged): the api stays up without limits rather than going down.
 */
import { AppError } from '@kairos/core';
import type { NextFunction, Request, Response } from 'express';
import type { RedisConnection } from '@kairos/queue';
import { LRUCache } from 'lru-cache';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';

export interface RateLimit {
  requestsPerMinute: number;
  burst: number;
}

/** Unauthenticated callers, per IP: a sign-in or device flow takes a handful of requests. */
export const ANONYMOUS_LIMIT: RateLimit = { requestsPerMinute: 120, burst: 30 };

/** An operator's Bull Board requests: a page load takes ~14 (its scripts and styles), each open tab polls ~12 a minute. */
export const BULL_BOARD_LIMIT: RateLimit = { requestsPerMinute: 300, burst: 60 };

// KEYS[1]: the bucket. ARGV: [1] tokens to take, [2] unused, [3] capacity (burst), [4] seconds to
// refill an empty bucket. Stored value: when the bucket is full again (ms); absent = full.
// Returns {consumed, ms}: consumed > capacity means refused (nothing taken) and ms is the wait for
// enough tokens; otherwise capacity - consumed tokens are left and ms is the time until full.
const TOKEN_BUCKET_LUA = `
local cost = tonumber(ARGV[1])
local capacity = tonumber(ARGV[3])
local fillMs = tonumber(ARGV[4]) * 1000
local tokenMs = fillMs / capacity
local time = redis.call('TIME')
local nowMs = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local fullAt = tonumber(redis.call('GET', KEYS[1]) or '0')
if fullAt < nowMs then fullAt = nowMs end
local debtMs = fullAt + cost * tokenMs - nowMs
if debtMs > fillMs then
  return {capacity + cost, math.ceil(debtMs - fillMs)}
end
redis.call('SET', KEYS[1], string.format('%.3f', nowMs + debtMs), 'PX', math.ceil(debtMs))
local remaining = math.floor((fillMs - debtMs) / tokenMs + 0.000001)
return {capacity - remaining, math.ceil(debtMs)}
`;

export interface RateLimiterOptions {
  redis: RedisConnection;
  /** Key prefix (the queue prefix: one Redis Cluster slot, one namespace per deployment). */
  prefix: string;
  /** The account's limit (tier + overrides). */
  accountLimit: (accountId: string) => Promise<RateLimit>;
  anonymousLimit?: RateLimit;
  onError?: (error: Error) => void;
}

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds. */
  resetAt: number;
  retryAfterSec: number;
}

export class RateLimiter {
  /**
   * One limiter per distinct requests-per-minute / burst pair: the tiers' and the operators'
   * per-account overrides. Rebuilt on demand, so only the 1,000 most recently used are kept.
   */
  private readonly limiters = new LRUCache<string, RateLimiterRedis>({ max: 1000 });

  constructor(private readonly options: RateLimiterOptions) {}

  private limiterFor(limit: RateLimit): RateLimiterRedis {
    const id = `${limit.requestsPerMinute}/${limit.burst}`;
    let limiter = this.limiters.get(id);
    if (!limiter) {
      limiter = new RateLimiterRedis({
        storeClient: this.options.redis,
        keyPrefix: `${this.options.prefix}:ratelimit`,
        points: limit.burst,
        // Seconds to refill an empty bucket (may be fractional).
        duration: (limit.burst * 60) / limit.requestsPerMinute,
        customIncrTtlLuaScript: TOKEN_BUCKET_LUA,
      });
      this.limiters.set(id, limiter);
    }
    return limiter;
  }

  /** Takes `cost` tokens (default one) from the caller's bucket; none when they are not all there. */
  async take(key: string, limit: RateLimit, nowMs: number, cost = 1): Promise<RateLimitDecision> {
    const decide = (res: RateLimiterRes, allowed: boolean): RateLimitDecision => ({
      allowed,
      limit: limit.requestsPerMinute,
      remaining: allowed ? res.remainingPoints : 0,
      resetAt: Math.ceil((nowMs + res.msBeforeNext) / 1000),
      retryAfterSec: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
    });
    try {
      // customDuration >= 1 keeps the library on its script path whatever the refill time.
      return decide(await this.limiterFor(limit).consume(key, cost, { customDuration: 60 }), true);
    } catch (error) {
      if (error instanceof RateLimiterRes) return decide(error, false);
      throw error;
    }
  }

  /**
   * `scope` gives authenticated callers a bucket of their own with a fixed limit (Bull Board, whose
   * page load alone takes ~14 requests, more than a Free account's burst); callers without
   * credentials share their address's one bucket whatever the scope.
   */
  middleware(scope?: { name: string; accountLimit: RateLimit }) {
    return async (req: Request, res: Response, next: NextFunction) => {
      const accountId = req.auth?.accountId;
      let decision: RateLimitDecision;
      try {
        const limit = accountId
          ? (scope?.accountLimit ?? (await this.options.accountLimit(accountId)))
          : (this.options.anonymousLimit ?? ANONYMOUS_LIMIT);
        const key = accountId ? `${scope ? `${scope.name}:` : ''}account:${accountId}` : `ip:${req.ip}`;
        decision = await this.take(key, limit, Date.now());
      } catch (error) {
        this.options.onError?.(error as Error);
        return next();
      }
      res.setHeader('X-RateLimit-Limit', String(decision.limit));
      res.setHeader('X-RateLimit-Remaining', String(decision.remaining));
      res.setHeader('X-RateLimit-Reset', String(decision.resetAt));
      if (!decision.allowed) {
        res.setHeader('Retry-After', String(decision.retryAfterSec));
        throw new AppError('RATE_LIMITED', `too many requests: retry in ${decision.retryAfterSec} s`, {
          limit: decision.limit,
          retryAfterSeconds: decision.retryAfterSec,
        });
      }
      next();
    };
  }
}
