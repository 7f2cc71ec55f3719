/**
 * The `due` queue as the scheduler sees it: one delayed BullMQ job (the due job) per endpoint, id
 * `<endpointId>.<version>` (short form: dueJobId), due at its planned run's time. It names the planned
 * run and carries no copy of it (packages/queue/src/payloads.ts): the executor reads it from the row.
 */
import type { PlannedRun } from '@kairos/db/system';
import { QUEUES, dueJobId, traceContextOf, type DueJobData } from '@kairos/queue';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';

/** A planned run with the recompute's trace context (tracing on only): the execution's span is its child. */
export type TracedPlannedRun = PlannedRun & { traceparent?: string | undefined };

export class DueQueue {
  readonly queue: Queue<DueJobData>;

  constructor(
    private readonly connection: Redis,
    prefix: string,
  ) {
    // No default job options: every option is stored in each job's `opts` JSON (one per endpoint),
    // and removeOnComplete / removeOnFail / attempts / backoff took 112 of its bytes and made the
    // job's hash a hashtable (bench/results.md). The executor's worker sets removal and redelivery
    // (services/executor/src/executor.ts, DUE_DELIVERY).
    this.queue = new Queue<DueJobData>(QUEUES.due, { connection, prefix });
  }

  /** Removes the due job of a superseded version; an executing (locked) one is left to finish. */
  async removeVersion(endpointId: string, scheduleVersion: number): Promise<void> {
    await this.queue.remove(dueJobId(endpointId, scheduleVersion)).catch(() => undefined);
  }

  async add(planned: TracedPlannedRun): Promise<void> {
    await this.addMany([planned]);
  }

  async addMany(planned: TracedPlannedRun[]): Promise<void> {
    if (planned.length === 0) return;
    const now = Date.now();
    await this.queue.addBulk(
      planned.map((run) => ({
        name: 'run',
        data: traceContextOf(run.traceparent),
        opts: dueJobOptions(run, now),
      })),
    );
  }

  /** Which of these job ids exist in Redis (in any state). */
  async existing(jobIds: string[]): Promise<Set<string>> {
    const pipeline = this.connection.pipeline();
    for (const jobId of jobIds) pipeline.exists(this.queue.toKey(jobId));
    const results = (await pipeline.exec()) ?? [];
    return new Set(jobIds.filter((_, index) => results[index]?.[1] === 1));
  }

  close(): Promise<void> {
    return this.queue.close();
  }
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
