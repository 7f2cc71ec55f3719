/**
 * At most one execution of an endpoint at a time (overlap policy: skip). A Redis key per endpoint
 * holds the job's identity (run id and schedule version) for the request's timeout plus a margin; a
 * retried delivery of the same job (same version: a BullMQ retry, a reconcile re-add, a batch
 * admitted again) may take over its own lock. A recompute that kept the run id of a slot in flight
 * queues it under a new version, which the in-flight execution's lock refuses (overlap), so one run
 * id is never called twice at once. Released by compare-and-delete so a late finisher never frees
 * another run's lock.
 */
import type { ChainableCommander, Redis } from 'ioredis';

const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;
/** The lock's value for one delivery of run `runId` queued at `scheduleVersion`. */
export const lockHolder = (runId: string, scheduleVersion: number) => `${runId}@${scheduleVersion}`;

/** Takes the lock at KEYS[lockKey] for ARGV[holder] (or keeps it: a retry of the same job) for ARGV[leaseMs]. */
export const acquireLockLua = (lockKey: number, holder: number, leaseMs: number) => `
local holder = redis.call('get', KEYS[${lockKey}])
if holder == false or holder == ARGV[${holder}] then
  redis.call('set', KEYS[${lockKey}], ARGV[${holder}], 'PX', ARGV[${leaseMs}])
  return 1
end
return 0`;
const ACQUIRE = acquireLockLua(1, 1, 2);

export class RunningLock {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  key(endpointId: string): string {
    return `${this.prefix}:running:${endpointId}`;
  }

  async acquire(endpointId: string, runId: string, scheduleVersion: number, leaseMs: number): Promise<boolean> {
    const holder = lockHolder(runId, scheduleVersion);
    return (await this.redis.eval(ACQUIRE, 1, this.key(endpointId), holder, String(leaseMs))) === 1;
  }

  async release(endpointId: string, runId: string, scheduleVersion: number): Promise<void> {
    await this.redis.eval(RELEASE, 1, this.key(endpointId), lockHolder(runId, scheduleVersion));
  }

  /** The same release, queued on a pipeline (many executions released in one write). */
  releaseIn(pipeline: ChainableCommander, endpointId: string, runId: string, scheduleVersion: number): void {
    pipeline.eval(RELEASE, 1, this.key(endpointId), lockHolder(runId, scheduleVersion));
  }
}
