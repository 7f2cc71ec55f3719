/**
 * The `due` queue as the scheduler sees it: one delayed BullMQ job (the due job) per endpoint, id
 * `<endpointId>.<version>` (short form: dueJobId), due at its planned run's time, on the endpoint's
 * queue shard (packages/queue/src/shards.ts; one queue when KAIROS_QUEUE_SHARDS is 1). It names the
 * planned run and carries no copy of it (packages/queue/src/payloads.ts): the executor reads it from the row.
 * Due jobs are added by a script of our own, one call per 200 jobs, that writes exactly what BullMQ
 * 6.7.0's addBulk writes (due-bulk-add.ts: BullMQ's runs one script per job; a reconcile of 1,000,000
 * endpoints takes 37–41 s against 60.8, docs/decisions/0013-due-jobs-added-by-one-script-per-200.md); everything else (workers, getJob, remove,
 * Bull Board) is BullMQ's own. A BullMQ upgrade must pass services/scheduler/test/due-bulk-add.test.ts,
 * which compares the two formats.
 */
import type { PlannedRun } from '@kairos/db/system';
import { DISPATCH_LEAD_MS } from '@kairos/core';
import {
  QUEUES,
  RedisScript,
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
import { addDueJobs } from './due-bulk-add.js';

/** Which of KEYS exist: one '1' or '0' per key, in order. */
const JOBS_EXIST = new RedisScript(`
local flags = {}
for i = 1, #KEYS do flags[i] = redis.call("EXISTS", KEYS[i]) == 1 and "1" or "0" end
return table.concat(flags)
`);

/** BullMQ's job name of every due job (the executor's worker takes any name). */
const DUE_JOB_NAME = 'run';

/** A planned run with the recompute's trace context (tracing on only): the execution's span is its child. */
export type TracedPlannedRun = PlannedRun & { traceparent?: string | undefined };

export class DueQueue {
  /** One queue per shard, by shard number (current and, during a reshard, previous shards). */
  readonly shards: Queue<DueJobData>[];

  constructor(
    private readonly connection: RedisConnection,
    prefix: string,
    private readonly layout: QueueShards = SINGLE_SHARD,
    /** How long before its planned run's time a due job becomes due (@kairos/core DISPATCH_LEAD_MS). */
    private readonly leadMs: number = DISPATCH_LEAD_MS,
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
    // job's hash a hashtable (docs/decisions/0012-due-jobs-carry-no-copy-of-the-run.md). The executor's worker sets removal and redelivery
    // (services/executor/src/queue-workers.ts, DUE_DELIVERY).
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

  /** One bulk add per shard the runs' endpoints belong to (due-bulk-add.ts: BullMQ's format, one script per chunk). */
  private async addOnShards(planned: TracedPlannedRun[]): Promise<void> {
    if (planned.length === 0) return;
    const now = Date.now();
    await Promise.all(
      [...Map.groupBy(planned, (run) => this.queueOf(run.endpointId))].map(([queue, runs]) =>
        addDueJobs(
          this.connection,
          queue,
          DUE_JOB_NAME,
          runs.map((run) => {
            const { jobId, delay } = dueJobOptions(run, now, this.leadMs);
            const data: DueJobData = {
              ...traceContextOf(run.traceparent),
              ...lockShardOf(run.endpointId, this.layout),
            };
            return { jobId, delayMs: delay, data: JSON.stringify(data) };
          }),
          now,
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
    // One script call per shard (its keys share the shard's slot), not one EXISTS each: a pipeline
    // of 1,000,000 EXISTS cost this process 5.8 CPU-s (ioredis builds a command and a reply each).
    for (const [queue, part] of Map.groupBy(runs, queueOf)) {
      const jobIds = part.map((run) => dueJobId(run.endpointId, run.scheduleVersion));
      const flags = (await JOBS_EXIST.run(
        this.connection,
        jobIds.map((jobId) => queue.toKey(jobId)),
        [],
      )) as string;
      jobIds.forEach((jobId, index) => {
        if (flags[index] === '1') found.add(jobId);
      });
    }
    return found;
  }

  async close(): Promise<void> {
    await Promise.all(this.shards.map((queue) => queue.close()));
  }
}

/** `{ lockShard }` when the endpoint's previous execution may hold its lock on another shard (a reshard). */
function lockShardOf(endpointId: string, layout: QueueShards): { lockShard?: number } {
  const previous = previousShardOf(endpointId, layout);
  return previous === undefined ? {} : { lockShard: previous };
}

/**
 * Due `leadMs` before the planned run's time (the dispatch lead: the executor admits the run, then
 * waits for its time). A due job is due at `timestamp + delay` (BullMQ's rule), `timestamp` being `now`, read just before
 * the bulk add (due-bulk-add.ts stores it as every job's timestamp): so it is due exactly at
 * scheduledAt − leadMs, not at the recompute's clock (read before its transaction, ≈20 ms earlier under load,
 * docs/decisions/0013-due-jobs-added-by-one-script-per-200.md). BullMQ's own addBulk stamps each job when it built it, a few ms later in a bulk
 * of 2,000. The options stored in the job's `opts` are only `{"jobId":…,"delay":…}`: a `timestamp`
 * option would add 27 bytes and `"attempts":0` 14, past the 64 that keep the job's hash compact
 * (dueJobId); read back, a job's attempts default to 0 all the same.
 */
const dueJobOptions = (planned: PlannedRun, now: number, leadMs: number) => ({
  jobId: dueJobId(planned.endpointId, planned.scheduleVersion),
  delay: Math.max(0, planned.scheduledAt.getTime() - leadMs - now),
});
