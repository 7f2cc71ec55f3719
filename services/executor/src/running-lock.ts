/**
 * At most one execution of an endpoint at a time (overlap policy: skip). A Redis key per endpoint
 * holds the run id for the request's timeout plus a margin; a retried delivery of the same run may
 * take over its own lock. Released by compare-and-delete so a late finisher never frees another
 * run's lock.
 */
import type { ChainableCommander, Redis } from 'ioredis';

const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;
/** Takes the lock at KEYS[lockKey] for run ARGV[runId] (or keeps it: a retry of the same run) for ARGV[leaseMs]. */
export const acquireLockLua = (lockKey: number, runId: number, leaseMs: number) => `
local holder = redis.call('get', KEYS[${lockKey}])
if holder == false or holder == ARGV[${runId}] then
  redis.call('set', KEYS[${lockKey}], ARGV[${runId}], 'PX', ARGV[${leaseMs}])
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

  async acquire(endpointId: string, runId: string, leaseMs: number): Promise<boolean> {
    return (await this.redis.eval(ACQUIRE, 1, this.key(endpointId), runId, String(leaseMs))) === 1;
  }

  async release(endpointId: string, runId: string): Promise<void> {
    await this.redis.eval(RELEASE, 1, this.key(endpointId), runId);
  }

  /** The same release, queued on a pipeline (many executions released in one write). */
  releaseIn(pipeline: ChainableCommander, endpointId: string, runId: string): void {
    pipeline.eval(RELEASE, 1, this.key(endpointId), runId);
  }
}
