/**
 * The `due` queue as the scheduler sees it: one delayed BullMQ job (the due job) per endpoint, id
 * `<endpointId>.<version>` (short form: dueJobId), due at its planned run's time, on the endpoint's
 * queue shard (packages/queue/src/shards.ts; one queue when KAIROS_QUEUE_SHARDS is 1). It names the
 * planned run and carries no copy of it (packages/queue/src/payloads.ts): the executor reads it from the row.
 */
import type { PlannedRun } from '@kairos/db/system';
import {
  QUEUES,
  SINGLE_SHARD,
  allShards,
  dueJobId,
  previousShardOf,
  shardOf,
  shardPrefix,
  traceContextOf,
  type DueJobData,
  type DueJobRef,
  type QueueShards,
  type RedisConnection,
} from '@kairos/queue';
import { Queue } from 'bullmq';

/** A planned run with the recompute's trace context (tracing on only): the execution's span is its child. */
export type TracedPlannedRun = PlannedRun & { traceparent?: string | undefined };

export class DueQueue {
  /** One queue per shard, by shard number (current and, during a reshard, previous shards). */
  readonly shards: Queue<DueJobData>[];

  constructor(
    private readonly connection: RedisConnection,
    prefix: string,
    private readonly layout: QueueShards = SINGLE_SHARD,
  ) {
    this.shards = allShards(layout).map((shard) => this.openShard(connection, shardPrefix(prefix, shard)));
  }

  /** Shard 0's queue: the only one at KAIROS_QUEUE_SHARDS=1. */
  get queue(): Queue<DueJobData> {
    return this.shards[0]!;
  }

  /** The queue an endpoint's new due jobs go to. */
  queueOf(endpointId: string): Queue<DueJobData> {
    return this.shards[shardOf(endpointId, this.layout.count)]!;
  }

  private openShard(connection: RedisConnection, prefix: string): Queue<DueJobData> {
    // No default job options: every option is stored in each job's `opts` JSON (one per endpoint),
    // and removeOnComplete / removeOnFail / attempts / backoff took 112 of its bytes and made the
    // job's hash a hashtable (bench/results.md). The executor's worker sets removal and redelivery
    // (services/executor/src/executor.ts, DUE_DELIVERY).
    return new Queue<DueJobData>(QUEUES.due, { connection, prefix });
  }

  /**
   * Removes the due job of a superseded version; an executing (locked) one is left to finish.
   * During a reshard the previous shard's copy too (it was queued there before the move).
   */
  async removeVersion(endpointId: string, scheduleVersion: number): Promise<void> {
    const jobId = dueJobId(endpointId, scheduleVersion);
    const previous = previousShardOf(endpointId, this.layout);
    await Promise.all([
      this.queueOf(endpointId).remove(jobId),
      previous === undefined ? undefined : this.shards[previous]!.remove(jobId),
    ]).catch(() => undefined);
  }

  async add(planned: TracedPlannedRun): Promise<void> {
    await this.addOnShards([planned]);
  }

  async addMany(planned: TracedPlannedRun[]): Promise<void> {
    await this.addOnShards(planned);
  }

  /** One bulk add per shard the runs' endpoints belong to. */
  private async addOnShards(planned: TracedPlannedRun[]): Promise<void> {
    if (planned.length === 0) return;
    const now = Date.now();
    await Promise.all(
      [...groupBy(planned, (run) => this.queueOf(run.endpointId))].map(([queue, runs]) =>
        queue.addBulk(
          runs.map((run) => ({
            name: 'run',
            data: { ...traceContextOf(run.traceparent), ...lockShardOf(run.endpointId, this.layout) },
            opts: dueJobOptions(run, now),
          })),
        ),
      ),
    );
  }

  /** Which of these due jobs exist on their endpoint's shard (in any state), by job id. */
  async existing(runs: DueJobRef[]): Promise<Set<string>> {
    return this.existingOn(runs, (run) => this.queueOf(run.endpointId));
  }

  /**
   * The reshard's move, for due jobs missing from their endpoint's shard: each one still on its
   * previous shard is removed from there only if it is not executing (BullMQ's remove refuses a
   * locked, active job: atomic in its script), and its job id returned in `moved` (the caller adds
   * it on the new shard, remove-then-add: never two copies that could both run). One that is
   * executing is left to finish (`held`): its completion plans the next run on the new shard.
   */
  async takeFromPreviousShards(runs: DueJobRef[]): Promise<{ moved: Set<string>; held: Set<string> }> {
    const moved = new Set<string>();
    const held = new Set<string>();
    const before = runs.filter((run) => previousShardOf(run.endpointId, this.layout) !== undefined);
    const queueBefore = (run: DueJobRef) => this.shards[previousShardOf(run.endpointId, this.layout)!]!;
    const there = await this.existingOn(before, queueBefore);
    for (const run of before) {
      const jobId = dueJobId(run.endpointId, run.scheduleVersion);
      if (!there.has(jobId)) continue;
      if ((await queueBefore(run).remove(jobId)) === 1) moved.add(jobId);
      else held.add(jobId);
    }
    return { moved, held };
  }

  private async existingOn(runs: DueJobRef[], queueOf: (run: DueJobRef) => Queue): Promise<Set<string>> {
    const found = new Set<string>();
    // One EXISTS pipeline per shard: a cluster pipeline must stay on one slot.
    for (const [queue, part] of groupBy(runs, queueOf)) {
      const jobIds = part.map((run) => dueJobId(run.endpointId, run.scheduleVersion));
      const pipeline = this.connection.pipeline();
      for (const jobId of jobIds) pipeline.exists(queue.toKey(jobId));
      const results = (await pipeline.exec()) ?? [];
      jobIds.forEach((jobId, index) => {
        if (results[index]?.[1] === 1) found.add(jobId);
      });
    }
    return found;
  }

  async close(): Promise<void> {
    await Promise.all(this.shards.map((queue) => queue.close()));
  }
}

function groupBy<T, K>(items: T[], keyOf: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return groups;
}

/** `{ lockShard }` when the endpoint's previous execution may hold its lock on another shard (a reshard). */
function lockShardOf(endpointId: string, layout: QueueShards): { lockShard?: number } {
  const previous = previousShardOf(endpointId, layout);
  return previous === undefined ? {} : { lockShard: previous };
}

/**
 * BullMQ makes a delayed job due at `timestamp + delay`, `timestamp` being the moment the job object
 * is built (inside addBulk, right after `now` is read: a bulk of 2,000 is built in a few ms, later
 * jobs at most that late, never early). The delay is counted from `now`, read just before addBulk,
 * not from the recompute's clock: that one is read before the transaction (≈20 ms earlier under
 * load, bench/results.md). Passing `timestamp` instead would store 27 more bytes in `opts` and push it
 * past the 64 bytes that keep the job's hash compact (dueJobId). `attempts: undefined` keeps BullMQ's
 * `"attempts":0` (14 bytes) out of `opts`: read back, a job's attempts default to 0 all the same.
 */
const dueJobOptions = (planned: PlannedRun, now: number) => ({
  jobId: dueJobId(planned.endpointId, planned.scheduleVersion),
  delay: Math.max(0, planned.scheduledAt.getTime() - now),
  attempts: undefined,
});
