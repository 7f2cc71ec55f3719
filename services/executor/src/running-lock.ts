/**
 * At most one execution of an endpoint at a time (overlap policy: skip). A Redis key per endpoint
 * holds the due job's identity (run id and schedule version) for the request's timeout plus a margin;
 * a retried delivery of the same due job (same version: a BullMQ retry, a reconcile re-add, a batch
 * admitted again) may take over its own lock. A recompute that kept the run id of a slot in flight
 * queues it under a new version, which the in-flight execution's lock refuses (overlap), so one run
 * id is never called twice at once. Released by compare-and-delete so a late finisher never frees
 * another run's lock.
 *
 * A recorded run leaves a mark instead of nothing (`<runId>@recorded`, for LOCK_MARGIN_MS): a due job
 * of the same run under a newer version (a recompute that kept the run id while the slot executed:
 * decideNextRun, packages/db/src/schedule-state.ts) may read the endpoint's row before the record
 * commits and reach the lock after it is freed; the mark refuses it, where an empty key let it call
 * the run a second time (seen once in the fault suite after a kill -9 of the scheduler: the same run
 * id at the target 10 ms apart). Any other run takes the lock over the mark. A run that ends
 * unrecorded (its call threw, or the record failed and its outcome is stashed) frees the key: its next
 * delivery must be admitted.
 *
 * The lock's whole lifecycle is here: admission.ts runs `admitLockLua` inside its one admission
 * script (or `admit` when it leaves the batch path); run-recorder.ts releases it on every path.
 */
import type { LuaIndex, RedisConnection } from '@kairos/queue';
import type { ChainableCommander } from 'ioredis';

/** Milliseconds beyond the request timeout that an execution's lock outlives it (record + emit). */
export const LOCK_MARGIN_MS = 30_000;

const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;
/**
 * Lua: frees the lock at KEYS[lockKey] of a recorded run when ARGV[holder] holds it, leaving the run's
 * recorded mark ARGV[mark] for ARGV[markMs]. A free key gets the mark too: a replayed delivery records
 * its run without taking the lock (admission.ts).
 */
export const releaseRecordedLua = (lockKey: LuaIndex, holder: LuaIndex, mark: LuaIndex, markMs: LuaIndex) => `
local held = redis.call('get', KEYS[${lockKey}])
if held == ARGV[${holder}] or held == false then redis.call('set', KEYS[${lockKey}], ARGV[${mark}], 'PX', ARGV[${markMs}]) end`;
const RELEASE_RECORDED = releaseRecordedLua(1, 1, 2, 3);
/** The suffix of a recorded run's mark (a holder ends in @<scheduleVersion>, a number). */
const RECORDED = '@recorded';

/**
 * Lua: takes the lock at KEYS[lockKey] for ARGV[holder] (or keeps it: a retry of the same due job)
 * for ARGV[leaseMs] and returns 1; returns 0 when another run holds it or this run is recorded.
 */
export const admitLockLua = (lockKey: LuaIndex, holder: LuaIndex, leaseMs: LuaIndex) => `
local holder = redis.call('get', KEYS[${lockKey}])
local recorded = string.match(ARGV[${holder}], '^(.*)@') .. '${RECORDED}'
if holder == false or holder == ARGV[${holder}]
   or (holder ~= recorded and string.sub(holder, -${RECORDED.length}) == '${RECORDED}') then
  redis.call('set', KEYS[${lockKey}], ARGV[${holder}], 'PX', ARGV[${leaseMs}])
  return 1
end
return 0`;
const ADMIT = admitLockLua(1, 1, 2);

export class RunningLock {
  constructor(
    private readonly redis: RedisConnection,
    private readonly prefix: string,
  ) {}

  key(endpointId: string): string {
    return `${this.prefix}:running:${endpointId}`;
  }

  /** The lock's value for one delivery of run `runId` planned at `scheduleVersion`. */
  holder(runId: string, scheduleVersion: number): string {
    return `${runId}@${scheduleVersion}`;
  }

  /** The key's value once run `runId` is recorded (admitLockLua builds the same from a holder). */
  recordedMark(runId: string): string {
    return `${runId}${RECORDED}`;
  }

  /** How long an admitted execution holds the lock: its request timeout plus LOCK_MARGIN_MS. */
  leaseMs(timeoutMs: number): number {
    return timeoutMs + LOCK_MARGIN_MS;
  }

  /** Takes the lock for this run for `leaseMs` (true) unless another run holds it (false: an overlap). */
  async admit(endpointId: string, runId: string, scheduleVersion: number, leaseMs: number): Promise<boolean> {
    const holder = this.holder(runId, scheduleVersion);
    return (await this.redis.eval(ADMIT, 1, this.key(endpointId), holder, String(leaseMs))) === 1;
  }

  /**
   * Whether a run other than this delivery holds the lock now, or this run is recorded (admission.ts:
   * a due job moved by a reshard). Another run's recorded mark holds nothing.
   */
  async heldByAnother(endpointId: string, runId: string, scheduleVersion: number): Promise<boolean> {
    const holder = await this.redis.get(this.key(endpointId));
    if (holder === null || holder === this.holder(runId, scheduleVersion)) return false;
    return !holder.endsWith(RECORDED) || holder === this.recordedMark(runId);
  }

  async release(endpointId: string, runId: string, scheduleVersion: number): Promise<void> {
    await this.redis.eval(RELEASE, 1, this.key(endpointId), this.holder(runId, scheduleVersion));
  }

  /** The same release, queued on a pipeline (many executions released in one write). */
  releaseIn(pipeline: ChainableCommander, endpointId: string, runId: string, scheduleVersion: number): void {
    pipeline.eval(RELEASE, 1, this.key(endpointId), this.holder(runId, scheduleVersion));
  }

  /** Frees the lock of a recorded run (or a free key), leaving its mark for LOCK_MARGIN_MS (queued on a pipeline). */
  releaseRecordedIn(pipeline: ChainableCommander, endpointId: string, runId: string, scheduleVersion: number): void {
    const holder = this.holder(runId, scheduleVersion);
    pipeline.eval(RELEASE_RECORDED, 1, this.key(endpointId), holder, this.recordedMark(runId), LOCK_MARGIN_MS);
  }
}
