/**
 * Stops calling a failing model for a while (a circuit breaker), for the whole installation: during
 * an outage each endpoint's analysis would otherwise make its own calls, one per retry and one per
 * backoff step of each endpoint (8 endpoints, 16 calls to a model answering 529; with the pause, 5).
 *
 *   count   model-side failures of calls in a row in this process (429, 408, 409, 5xx, 529,
 *           connection errors, calls that timed out); any answer resets it;
 *   pause   at `failuresInARow` (5), for `firstPauseMs` (60 s), doubling for each pause that follows
 *           without an answer in between, up to `longestPauseMs` (10 min); after a pause the first
 *           failure pauses again (one call tries the model per pause and planner). A 429 whose
 *           retry-after is longer than an analysis can wait pauses at once for that long (at most 1 h);
 *   shared  the pause is one Redis key (packages/queue/src/planner-model-pause.ts) that every
 *           planner reads before an analysis and before each call, and the api shows (GET
 *           /api/account, aiPlanner); it expires by itself.
 *
 * While paused, runs are not analysed (no session: the planner's decision is "deferred") and
 * schedules follow their baselines, as in any degraded mode. Redis unreachable: no pause is seen
 * (analyses go on and fail on their own, as without this).
 */
import { cutText } from '@kairos/core';
import { pausePlannerModel, readPlannerModelPause, type PlannerModelPause, type RedisConnection } from '@kairos/queue';
import { metrics } from '@kairos/runtime';

export interface ModelPauseSettings {
  failuresInARow: number;
  firstPauseMs: number;
  longestPauseMs: number;
}

export const MODEL_PAUSE_DEFAULTS: ModelPauseSettings = {
  failuresInARow: 5,
  firstPauseMs: 60_000,
  longestPauseMs: 600_000,
};

/** The longest pause a 429's retry-after can ask for. */
const RETRY_AFTER_PAUSE_MAX_MS = 3_600_000;

export class ModelPause {
  private failures = 0;
  /** Pauses since the model last answered. */
  private pauses = 0;

  constructor(
    private readonly redis: RedisConnection,
    private readonly prefix: string,
    private readonly settings: ModelPauseSettings,
    private readonly onError: (error: Error) => void,
  ) {}

  /** The pause in force, or null. */
  async current(): Promise<PlannerModelPause | null> {
    let pause: PlannerModelPause | null = null;
    try {
      pause = await readPlannerModelPause(this.redis, this.prefix, new Date());
    } catch (error) {
      this.onError(error as Error);
    }
    metrics.plannerModelPaused.set(pause ? 1 : 0);
    return pause;
  }

  /** The model answered. */
  recordAnswer(): void {
    this.failures = 0;
    this.pauses = 0;
  }

  /** A model-side failure (`description`: what the session records of it); pauses when it is one too many. */
  async recordFailure(description: string): Promise<void> {
    this.failures += 1;
    const limit = this.pauses > 0 ? 1 : this.settings.failuresInARow;
    if (this.failures < limit) return;
    const pauseMs = Math.min(this.settings.firstPauseMs * 2 ** this.pauses, this.settings.longestPauseMs);
    await this.pause(pauseMs, `${this.failures} model calls failed in a row (last: ${description})`);
  }

  /** The model asked for a wait longer than an analysis can make (a 429's retry-after). */
  async pauseFor(waitMs: number, description: string): Promise<void> {
    await this.pause(Math.min(waitMs, RETRY_AFTER_PAUSE_MAX_MS), description);
  }

  private async pause(pauseMs: number, reason: string): Promise<void> {
    this.pauses += 1;
    this.failures = 0;
    const now = new Date();
    try {
      await pausePlannerModel(
        this.redis,
        this.prefix,
        { pausedUntil: new Date(now.getTime() + pauseMs), reason: cutText(reason, 500) },
        now,
      );
      metrics.plannerModelPauses.inc();
      metrics.plannerModelPaused.set(1);
    } catch (error) {
      this.onError(error as Error);
    }
  }
}
