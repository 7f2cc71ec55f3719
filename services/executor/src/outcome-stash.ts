/**
 * A completed call is never turned into a new call by a retry. When a run cannot be recorded after
 * its endpoint answered (PostgreSQL unreachable, say), the outcome is kept in Redis under its run
 * id for a day before the delivery fails. The next delivery of that run (a BullMQ retry, or the
 * reconcile sweep re-adding the job under the same run id once the five attempts are spent) finds
 * it in the admission script it runs anyway and records it instead of calling the endpoint again;
 * the recorder deletes it in the Redis write that frees the lock.
 *
 * Only the failure path writes here: the hot path pays one GET inside a script it already runs
 * (no extra round trip: each round trip per execution shows in the recorded/s;
 * docs/decisions/0009-one-redis-script-per-batch.md).
 * What stays at-least-once: a process that dies between the call and the stash (docs/invariants.md).
 */
import type { RunOutcome } from '@kairos/db/system';
import type { LuaIndex } from '@kairos/queue';
import type { ChainableCommander } from 'ioredis';

/** Long enough to outlast an outage the five attempts and the 15 s reconcile sweep retry through. */
const STASH_TTL_MS = 86_400_000;

/** Lua: returns the stashed outcome at KEYS[key] when there is one (the caller then returns it). */
export const returnStashedLua = (key: LuaIndex) => `
local stashed = redis.call('get', KEYS[${key}])
if stashed then return stashed end`;

/** Lua: forgets the stashed outcome at KEYS[key] (its run is recorded). */
export const deleteStashedLua = (key: LuaIndex) => `redis.call('del', KEYS[${key}])`;

export class OutcomeStash {
  constructor(private readonly prefix: string) {}

  key(runId: string): string {
    return `${this.prefix}:outcome:${runId}`;
  }

  /** Keeps a completed call's outcome until its run is recorded (or for a day), queued on a pipeline. */
  saveIn(pipeline: ChainableCommander, run: RunOutcome): void {
    pipeline.set(this.key(run.id), JSON.stringify(run), 'PX', STASH_TTL_MS);
  }

  /** The outcome as `save` wrote it (JSON keeps no Date). */
  static parse(stashed: string): RunOutcome {
    const run = JSON.parse(stashed) as RunOutcome & { scheduledAt: string; startedAt: string; completedAt: string };
    return {
      ...run,
      scheduledAt: new Date(run.scheduledAt),
      startedAt: new Date(run.startedAt),
      completedAt: new Date(run.completedAt),
    };
  }
}
