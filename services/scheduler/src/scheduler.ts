/**
 * The scheduler: owns the one pending execution of every active endpoint.
 *
 * Inputs: `schedule-changes` (the API changed something) and `run-completed` (an execution was
 * recorded). For each, it recomputes the endpoint under its row lock: policy → new nextRunAt (also
 * stored in PostgreSQL with the run id and source) → remove the superseded delayed job → add the new
 * one, all before the row lock is released. So:
 *  - never two pending executions for one endpoint: recomputes of one endpoint are serialised by the
 *    row lock, and each removes its predecessor's job before adding its own;
 *  - a stale job is dropped: the executor compares the job's scheduleVersion with the row's;
 *  - several replicas are safe: they compete for queue jobs, and the row lock orders their work.
 * The reconcile sweep (reconcile.ts) repairs whatever Redis lost.
 */
import type { Database } from '@kairos/db';
import { recomputeEndpoint } from '@kairos/db';
import {
  QUEUES,
  runCompletedPayload,
  scheduleChangePayload,
  type RunCompletedPayload,
  type ScheduleChangePayload,
} from '@kairos/queue';
import type { Logger } from '@kairos/runtime';
import { Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { DueQueue } from './due-queue.js';
import { decideNextRun } from './plan.js';
import { Reconciler } from './reconcile.js';
import { RetentionSweeper } from './retention.js';

export interface SchedulerOptions {
  db: Database;
  /** Factory: BullMQ workers need their own blocking connections. */
  connect: () => Redis;
  prefix: string;
  logger: Logger;
  concurrency: number;
  reconcileIntervalMs: number;
  dirtyGraceMs: number;
  /** Runs retention sweep interval; omit to run no retention sweep (tests). */
  retentionIntervalMs?: number;
  now?: () => Date;
}

export interface RecomputeResult {
  endpointId: string;
  scheduleVersion: number;
  nextRunAt: Date | null;
  source: string | null;
}

export class Scheduler {
  readonly dueQueue: DueQueue;
  readonly reconciler: Reconciler;
  readonly retention: RetentionSweeper;
  private readonly workers: Worker[] = [];
  private readonly connections: Redis[] = [];
  private readonly now: () => Date;

  constructor(private readonly options: SchedulerOptions) {
    this.now = options.now ?? (() => new Date());
    const producer = this.connect();
    this.dueQueue = new DueQueue(producer, options.prefix);
    this.reconciler = new Reconciler({
      db: options.db,
      dueQueue: this.dueQueue,
      logger: options.logger,
      recompute: (endpointId) => this.recompute(endpointId),
      intervalMs: options.reconcileIntervalMs,
      dirtyGraceMs: options.dirtyGraceMs,
      now: this.now,
    });
    this.retention = new RetentionSweeper({
      db: options.db,
      logger: options.logger,
      intervalMs: options.retentionIntervalMs ?? 0,
      now: this.now,
    });
  }

  private connect(): Redis {
    const connection = this.options.connect();
    connection.on('error', (error) => this.options.logger.warn('redis connection error', { error: error.message }));
    this.connections.push(connection);
    return connection;
  }

  /** Recomputes one endpoint's pending execution now. Null when the endpoint no longer exists. */
  async recompute(endpointId: string): Promise<RecomputeResult | null> {
    const now = this.now();
    return recomputeEndpoint(
      this.options.db,
      endpointId,
      (row) => decideNextRun(row, now),
      async (row, decision, scheduleVersion) => {
        await this.dueQueue.removeVersion(row.id, row.scheduleVersion);
        if (decision.nextRunAt && decision.nextRunId && decision.nextRunSource) {
          await this.dueQueue.add(
            {
              endpointId: row.id,
              accountId: row.accountId,
              scheduleVersion,
              runId: decision.nextRunId,
              scheduledAt: decision.nextRunAt,
              source: decision.nextRunSource,
            },
            now,
          );
        }
        this.options.logger.debug('recomputed', {
          endpointId: row.id,
          fromVersion: row.scheduleVersion,
          scheduleVersion,
          nextRunAt: decision.nextRunAt,
          source: decision.nextRunSource,
        });
        return { endpointId: row.id, scheduleVersion, nextRunAt: decision.nextRunAt, source: decision.nextRunSource };
      },
    );
  }

  /** Starts consuming changes and completed runs, and the reconcile sweep (run once at start). */
  async start(): Promise<void> {
    const { prefix, concurrency, logger } = this.options;
    this.workers.push(
      new Worker<ScheduleChangePayload>(
        QUEUES.scheduleChanges,
        async (job: Job<ScheduleChangePayload>) => {
          const { endpointIds } = scheduleChangePayload.parse(job.data);
          for (const endpointId of endpointIds) await this.recompute(endpointId);
        },
        {
          connection: this.connect(),
          prefix,
          concurrency,
          removeOnComplete: { count: 1000 },
          removeOnFail: { count: 5000 },
        },
      ),
      new Worker<RunCompletedPayload>(
        QUEUES.runCompleted,
        async (job: Job<RunCompletedPayload>) => {
          const { endpointId } = runCompletedPayload.parse(job.data);
          await this.recompute(endpointId);
        },
        {
          connection: this.connect(),
          prefix,
          concurrency,
          removeOnComplete: { count: 1000 },
          removeOnFail: { count: 5000 },
        },
      ),
    );
    for (const worker of this.workers) {
      worker.on('failed', (job, error) =>
        logger.error('recompute failed; will retry', { queue: worker.name, jobId: job?.id, error: error.message }),
      );
      worker.on('error', (error) => logger.error('worker error', { queue: worker.name, error: error.message }));
    }
    await Promise.all(this.workers.map((worker) => worker.waitUntilReady()));
    await this.reconciler.start();
    if (this.options.retentionIntervalMs) await this.retention.start();
  }

  async close(): Promise<void> {
    await this.reconciler.stop();
    await this.retention.stop();
    await Promise.all(this.workers.map((worker) => worker.close()));
    await this.dueQueue.close();
    for (const connection of this.connections) connection.disconnect();
  }
}
