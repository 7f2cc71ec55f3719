/**
 * The `due` queue as the scheduler sees it: one delayed job per endpoint, id `<endpointId>.<version>`.
 */
import { QUEUES, dueJobId, traceContextOf, type DueRunPayload } from '@kairos/queue';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';

export interface PendingExecution {
  endpointId: string;
  accountId: string;
  scheduleVersion: number;
  runId: string;
  scheduledAt: Date;
  source: string;
  /** The recompute's trace context (tracing on only): the execution's span is its child. */
  traceparent?: string | undefined;
}

export class DueQueue {
  readonly queue: Queue<DueRunPayload>;

  constructor(
    private readonly connection: Redis,
    prefix: string,
  ) {
    this.queue = new Queue<DueRunPayload>(QUEUES.due, {
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

  /** Removes the job of a superseded version; an executing (locked) job is left to finish. */
  async removeVersion(endpointId: string, scheduleVersion: number): Promise<void> {
    await this.queue.remove(dueJobId(endpointId, scheduleVersion)).catch(() => undefined);
  }

  async add(pending: PendingExecution, now: Date): Promise<void> {
    await this.queue.add('run', payloadOf(pending), dueJobOptions(pending, now));
  }

  async addMany(pending: PendingExecution[], now: Date): Promise<void> {
    if (pending.length === 0) return;
    await this.queue.addBulk(
      pending.map((item) => ({
        name: 'run',
        data: payloadOf(item),
        opts: dueJobOptions(item, now),
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
 * BullMQ makes a delayed job due at `timestamp + delay`, and `timestamp` defaults to the moment the
 * job object is built — after the recompute's transaction, so every run would start that much late
 * (≈20 ms under load, bench/results.md). Both are given from the same `now`: due exactly at scheduledAt.
 */
const dueJobOptions = (pending: PendingExecution, now: Date) => ({
  jobId: dueJobId(pending.endpointId, pending.scheduleVersion),
  timestamp: now.getTime(),
  delay: Math.max(0, pending.scheduledAt.getTime() - now.getTime()),
});

const payloadOf = (pending: PendingExecution): DueRunPayload => ({
  endpointId: pending.endpointId,
  accountId: pending.accountId,
  scheduleVersion: pending.scheduleVersion,
  runId: pending.runId,
  scheduledAt: pending.scheduledAt.toISOString(),
  source: pending.source,
  ...traceContextOf(pending.traceparent),
});
