/**
 * Whether a planner that can analyse is running (with AI scheduling on and no model
 * configured, the planner should cost only what it must). A planner with a model keeps one key
 * alive (`announcePlanner`); executors read it at most every `readEveryMs` (`PlannerPresence`) and
 * announce runs on `run-completed-planner` only while it exists. Without a model the planner
 * drains that queue and analyses nothing, so each event was pure cost: an add in the executor and a
 * BullMQ hop through the planner, ≈30 Redis commands per execution (117 against 87 with AI off,
 * docs/decisions/0011-planner-events-only-while-a-planner-listens.md). What is lost while no planner announces itself: nothing the planner needs,
 * since it judges each endpoint from PostgreSQL (its gate) on the next run it hears of.
 *
 * Times: the key lives 30 s and is renewed every 10 s (two renewals may fail before it lapses);
 * executors re-read it every 5 s, so a planner that starts hears of runs within ≈5 s, and one
 * that stops for good (no renewal) stops costing within ≈35 s. One GET per executor per 5 s.
 */
import type { RedisConnection } from './connection.js';

export const PLANNER_PRESENCE = { ttlMs: 30_000, renewEveryMs: 10_000, readEveryMs: 5_000 } as const;

/** The key, under the queues' prefix (one installation's planners, whatever the queue shards). */
export const plannerPresenceKey = (prefix: string): string => `${prefix}:planner-present`;

/** Planner side (with a model configured): keeps the key alive until `stop`. */
export function announcePlanner(
  redis: RedisConnection,
  prefix: string,
  onError: (error: Error) => void,
): { stop: () => void } {
  const renew = () =>
    redis.set(plannerPresenceKey(prefix), '1', 'PX', PLANNER_PRESENCE.ttlMs).then(
      () => undefined,
      (error: Error) => onError(error),
    );
  void renew();
  const timer = setInterval(() => void renew(), PLANNER_PRESENCE.renewEveryMs);
  timer.unref();
  // Not deleted on stop: another planner may be running; the key lapses by itself.
  return { stop: () => clearInterval(timer) };
}

/** Executor side: whether a planner can analyse, read at most every `readEveryMs`. */
export class PlannerPresence {
  private present = false;
  private readAt = Number.NEGATIVE_INFINITY;
  private reading: Promise<void> | undefined;

  constructor(
    private readonly redis: RedisConnection,
    private readonly prefix: string,
    private readonly readEveryMs: number = PLANNER_PRESENCE.readEveryMs,
  ) {}

  async isPresent(): Promise<boolean> {
    if (Date.now() - this.readAt >= this.readEveryMs) {
      this.reading ??= this.read().finally(() => (this.reading = undefined));
      await this.reading;
    }
    return this.present;
  }

  private async read(): Promise<void> {
    try {
      this.present = (await this.redis.exists(plannerPresenceKey(this.prefix))) === 1;
    } catch {
      // Redis unreachable: keep the last answer (the recorder's own writes will fail and say so).
    }
    this.readAt = Date.now();
  }
}
