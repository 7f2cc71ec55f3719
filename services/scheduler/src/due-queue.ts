/**
 * The `due` queue as the scheduler sees it: one delayed BullMQ job (the due job) per endpoint,
 * carrying its planned run, id `<endpointId>.<version>`.
 */
import type { PlannedRun } from '@kairos/db/system';
import { QUEUES, dueJobId, traceContextOf, type PlannedRunPayload } from '@kairos/queue';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';

/** A planned run with the recompute's trace context (tracing on only): the execution's span is its child. */
export type TracedPlannedRun = PlannedRun & { traceparent?: string | undefined };

export class DueQueue {
  readonly queue: Queue<PlannedRunPayload>;

  constructor(
    private readonly connection: Redis,
    prefix: string,
  ) {
    this.queue = new Queue<PlannedRunPayload>(QUEUES.due, {
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

  /** Removes the due job of a superseded version; an executing (locked) one is left to finish. */
  async removeVersion(endpointId: string, scheduleVersion: number): Promise<void> {
    await this.queue.remove(dueJobId(endpointId, scheduleVersion)).catch(() => undefined);
  }

  async add(planned: TracedPlannedRun, now: Date): Promise<void> {
    await this.queue.add('run', payloadOf(planned), dueJobOptions(planned, now));
  }

  async addMany(planned: TracedPlannedRun[], now: Date): Promise<void> {
    if (planned.length === 0) return;
    await this.queue.addBulk(
      planned.map((run) => ({
        name: 'run',
        data: payloadOf(run),
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
