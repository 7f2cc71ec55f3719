/**
 * The `due` queue as the scheduler sees it: one delayed BullMQ job (the due job) per endpoint,
 * carrying its planned run, id `<endpointId>.<version>`, on the endpoint's queue shard
 * (packages/queue/src/shards.ts; one queue when KAIROS_QUEUE_SHARDS is 1).
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
  type PlannedRunPayload,
  type QueueShards,
  type RedisConnection,
} from '@kairos/queue';
import { Queue } from 'bullmq';

/** A planned run with the recompute's trace context (tracing on only): the execution's span is its child. */
export type TracedPlannedRun = PlannedRun & { traceparent?: string | undefined };

/** A due job as the reconcile sweep names it. */
type DueJobRef = Pick<PlannedRun, 'endpointId' | 'scheduleVersion'>;

export class DueQueue {
  /** One queue per shard, by shard number (current and, during a reshard, previous shards). */
  readonly shards: Queue<PlannedRunPayload>[];

  constructor(
    private readonly connection: RedisConnection,
    prefix: string,
    private readonly layout: QueueShards = SINGLE_SHARD,
  ) {
    this.shards = allShards(layout).map((shard) => this.openShard(connection, shardPrefix(prefix, shard)));
  }

  /** Shard 0's queue: the only one at KAIROS_QUEUE_SHARDS=1. */
  get queue(): Queue<PlannedRunPayload> {
    return this.shards[0]!;
  }

  /** The queue an endpoint's new due jobs go to. */
  queueOf(endpointId: string): Queue<PlannedRunPayload> {
    return this.shards[shardOf(endpointId, this.layout.count)]!;
  }

  private openShard(connection: RedisConnection, prefix: string): Queue<PlannedRunPayload> {
    return new Queue<PlannedRunPayload>(QUEUES.due, {
      connection,
      prefix,
      // Executions leave nothing behind: the run is in PostgreSQL. A delivery that failed five times
      // (≈15 s of backoff: the executor itself broke, e.g. PostgreSQL down) is removed too, so the
      // reconcile sweep (every 15 s) re-adds it under the same run id instead of the endpoint
      // stopping; a call that completed before is then recorded from its stashed outcome, not repeated.
      defaultJobOptions: {
        removeOnComplete: true,
        removeOnFail: true,
        attempts: 5,
        backoff: { type: 'exponential', delay: 1000 },
      },
    });
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

  async add(planned: TracedPlannedRun, now: Date): Promise<void> {
    await this.addOnShards([planned], now);
  }

  async addMany(planned: TracedPlannedRun[], now: Date): Promise<void> {
    await this.addOnShards(planned, now);
  }

  /** One bulk add per shard the runs' endpoints belong to. */
  private async addOnShards(planned: TracedPlannedRun[], now: Date): Promise<void> {
    await Promise.all(
      [...groupBy(planned, (run) => this.queueOf(run.endpointId))].map(([queue, runs]) =>
        queue.addBulk(
          runs.map((run) => ({
            name: 'run',
            data: { ...payloadOf(run), ...lockShardOf(run.endpointId, this.layout) },
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
 * BullMQ makes a delayed job due at `timestamp + delay`, and `timestamp` defaults to the moment the
 * job object is built — after the recompute's transaction, so every run would start that much late
 * (≈20 ms under load, bench/results.md). Both are given from the same `now`: due exactly at scheduledAt.
 */
const dueJobOptions = (planned: PlannedRun, now: Date) => ({
  jobId: dueJobId(planned.endpointId, planned.scheduleVersion),
  timestamp: now.getTime(),
  delay: Math.max(0, planned.scheduledAt.getTime() - now.getTime()),
});

const payloadOf = (planned: TracedPlannedRun): PlannedRunPayload => ({
  endpointId: planned.endpointId,
  accountId: planned.accountId,
  scheduleVersion: planned.scheduleVersion,
  runId: planned.runId,
  scheduledAt: planned.scheduledAt.toISOString(),
  source: planned.source,
  ...traceContextOf(planned.traceparent),
});
