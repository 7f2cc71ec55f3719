/**
 * The scheduler: owns the planned run (one pending execution) of every active endpoint.
 *
 * Inputs: `schedule-changes` (the API changed something) and `run-completed` (executions were
 * recorded: one job per executor batch). For each, it recomputes the endpoint under its row lock (many endpoints per
 * transaction under load: a GroupCommit): policy → new nextRunAt (also
 * stored in PostgreSQL with the run id and source) → remove the superseded due job → add the new
 * one, all before the row lock is released. So:
 *  - never two planned runs for one endpoint: recomputes of one endpoint are serialised by the
 *    row lock, and each removes its predecessor's due job before adding its own;
 *  - a stale due job is dropped: the executor compares its scheduleVersion with the row's;
 *  - several replicas are safe: they compete for queue jobs, and the row lock orders their work.
 * The reconcile sweep (reconcile.ts) repairs whatever Redis lost.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Database } from '@kairos/db';
import { decideNextRun, recomputeEndpoints } from '@kairos/db/system';
import {
  QUEUES,
  SINGLE_SHARD,
  allShards,
  shardPrefix,
  processJobSpan,
  completedRunsOf,
  scheduleChangePayload,
  currentTraceparent,
  traceContextOf,
  type RunCompletedPayload,
  type RunsCompletedPayload,
  type QueueShards,
  type RedisConnection,
  type ScheduleChangePayload,
} from '@kairos/queue';
import { GroupCommit, ItemFailure, isItemFailure, type Logger } from '@kairos/runtime';
import { Queue, Worker, type Job as BullJob } from 'bullmq';
import { DueQueue } from './due-queue.js';

import { Reconciler } from './reconcile.js';
import { RetentionSweeper } from './retention.js';

export interface SchedulerOptions {
  db: Database;
  /** Factory: BullMQ workers need their own blocking connections. */
  connect: () => RedisConnection;
  prefix: string;
  /** Queue shards (packages/queue/src/shards.ts): run-completed is consumed on every one. Default one. */
  shards?: QueueShards;
  logger: Logger;
  /** Jobs of each queue consumed at once; their recomputes are grouped into batches. */
  concurrency: number;
  /** Endpoints per recompute transaction (default 200) and such transactions at once (default 2). */
  batchSize?: number;
  parallelBatches?: number;
  /** How long before a planned run's time its due job becomes due (default DISPATCH_LEAD_MS: due-queue.ts). */
  dispatchLeadMs?: number;
  reconcileIntervalMs: number;
  dirtyGraceMs: number;
  /** Runs retention sweep interval; omit to run no retention sweep (tests). */
  retentionIntervalMs?: number;
  now?: () => Date;
}

/**
 * How long after its run was recorded a next run the recorder planned is queued as it stands; heard of
 * later and due already, it is recomputed instead (recomputeAfterRuns).
 */
const PLAN_HEARD_LATE_MS = 2000;

/** How long the start's reconcile sweep waits for the completed runs queued while no scheduler ran. */
const BACKLOG_WAIT_MS = 10_000;
const BACKLOG_POLL_MS = 50;

/**
 * One endpoint to recompute. `scheduleVersion`: the version of the planned run that just ran
 * (run-completed's field, same name); when the row still has it, the queued due job is that run
 * itself (finishing now), so there is nothing to remove. Absent (a change): the superseded due job
 * is removed.
 */
export interface RecomputeRequest {
  endpointId: string;
  scheduleVersion?: number;
  /** The trace context the due job carries on (the change's or run's recompute span), when tracing is on. */
  traceparent?: string;
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
  private readonly connections: RedisConnection[] = [];
  private readonly now: () => Date;
  private readonly batcher: GroupCommit<RecomputeRequest, RecomputeResult | null>;

  constructor(private readonly options: SchedulerOptions) {
    this.now = options.now ?? (() => new Date());
    // Group commit (packages/runtime/src/group-commit.ts): what arrives during a batch goes in the
    // next one; an endpoint waiting twice is recomputed once; an endpoint that fails alone (a cron
    // the policy cannot evaluate) is isolated by splitting the batch. A failed batch rolled back
    // before any Redis write (the policy runs first), so a part of it can be recomputed again.
    this.batcher = new GroupCommit(
      async (requests) => {
        const results = new Map((await this.recomputeMany(requests)).map((result) => [result.endpointId, result]));
        return requests.map((request) => results.get(request.endpointId) ?? null);
      },
      {
        maxBatch: options.batchSize ?? 200,
        maxParallel: options.parallelBatches ?? 2,
        keyOf: (request) => request.endpointId,
        merge: (waiting, incoming) => ({
          endpointId: waiting.endpointId,
          ...(waiting.scheduleVersion === incoming.scheduleVersion ? { scheduleVersion: waiting.scheduleVersion } : {}),
          ...traceContextOf(incoming.traceparent ?? waiting.traceparent),
        }),
        isItemFailure,
      },
    );
    const producer = this.connect();
    this.dueQueue = new DueQueue(producer, options.prefix, options.shards, options.dispatchLeadMs);
    this.reconciler = new Reconciler({
      db: options.db,
      dueQueue: this.dueQueue,
      logger: options.logger,
      recompute: (endpointIds) => this.recomputeMany(endpointIds.map((endpointId) => ({ endpointId }))),
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

  /** A connection kept until close. */
  private connect(): RedisConnection {
    const connection = this.open();
    this.connections.push(connection);
    return connection;
  }

  /** A connection whose errors are logged; its user disconnects it. */
  private open(): RedisConnection {
    const connection = this.options.connect();
    connection.on('error', (error) => this.options.logger.warn('redis connection error', { error: error.message }));
    return connection;
  }

  /** Recomputes one endpoint's planned run now. Null when the endpoint no longer exists. */
  async recompute(endpointId: string): Promise<RecomputeResult | null> {
    const [result] = await this.recomputeMany([{ endpointId }]);
    return result ?? null;
  }

  /**
   * Recomputes endpoints in one transaction under their row locks: removes each superseded due job
   * (unless it is the planned run that just ran), adds the new ones in one bulk write, then commits.
   */
  async recomputeMany(requests: RecomputeRequest[]): Promise<RecomputeResult[]> {
    if (requests.length === 0) return [];
    const now = this.now();
    const versionsThatRan = new Map(requests.map((request) => [request.endpointId, request.scheduleVersion]));
    const traceparents = new Map(requests.map((request) => [request.endpointId, request.traceparent]));
    return recomputeEndpoints(
      this.options.db,
      requests.map((request) => request.endpointId),
      (row) => {
        try {
          return decideNextRun(row, now);
        } catch (error) {
          // The row, not the system, is at fault: a batch holding it is split until it fails alone.
          throw new ItemFailure(`endpoint ${row.id}: its next run cannot be computed`, error);
        }
      },
      async (recomputed) => {
        // A scheduling action plans its run in its own transaction (packages/db/src/scheduling.ts) and
        // bumps the version without queueing: the due job it superseded is the version before the row's.
        const superseded = recomputed.filter(({ row }) => versionsThatRan.get(row.id) !== row.scheduleVersion);
        await Promise.all(
          superseded.flatMap(({ row }) => [
            this.dueQueue.removeVersion(row.id, row.scheduleVersion),
            this.dueQueue.removeVersion(row.id, row.scheduleVersion - 1),
          ]),
        );
        await this.dueQueue.addMany(
          recomputed.flatMap(({ planned }) =>
            planned ? [{ ...planned, traceparent: traceparents.get(planned.endpointId) }] : [],
          ),
        );
        this.options.logger.debug('recomputed', { endpoints: recomputed.length, removed: superseded.length });
        return recomputed.map(({ row, planned, scheduleVersion }) => ({
          endpointId: row.id,
          scheduleVersion,
          nextRunAt: planned?.scheduledAt ?? null,
          source: planned?.source ?? null,
        }));
      },
    );
  }

  /** Starts consuming changes and completed runs, and the reconcile sweep (run once at start). */
  async start(): Promise<void> {
    const { prefix, concurrency, logger } = this.options;
    const workerOptions = { concurrency, removeOnComplete: { count: 1000 }, removeOnFail: { count: 5000 } };
    this.workers.push(
      new Worker<ScheduleChangePayload>(
        QUEUES.scheduleChanges,
        (bullJob: BullJob<ScheduleChangePayload>) =>
          processJobSpan(QUEUES.scheduleChanges, bullJob, async () => {
            const { endpointIds } = scheduleChangePayload.parse(bullJob.data);
            const traceContext = traceContextOf(currentTraceparent());
            await Promise.all(endpointIds.map((endpointId) => this.batcher.submit({ endpointId, ...traceContext })));
          }),
        { connection: this.connect(), prefix, ...workerOptions },
      ),
      // run-completed is sharded like due: one worker per shard (each its own blocking connection).
      ...allShards(this.options.shards ?? SINGLE_SHARD).map(
        (shard) =>
          new Worker<RunsCompletedPayload>(
            QUEUES.runCompleted,
            (bullJob: BullJob<RunsCompletedPayload>) => this.recomputeAfterRuns(bullJob),
            // What is kept of a finished run-completed job is the executor's job options' choice (BullMQ
            // lets a job's removeOnComplete / removeOnFail win over the worker's): removed when done, the last
            // 1,000 failed kept (services/executor/src/queue-workers.ts, queueOptions).
            { connection: this.connect(), prefix: shardPrefix(prefix, shard), ...workerOptions },
          ),
      ),
    );
    for (const worker of this.workers) {
      worker.on('failed', (bullJob, error) =>
        logger.error('recompute failed; will retry', { queue: worker.name, jobId: bullJob?.id, error: error.message }),
      );
      worker.on('error', (error) => logger.error('worker error', { queue: worker.name, error: error.message }));
    }
    await Promise.all(this.workers.map((worker) => worker.waitUntilReady()));
    await this.backlogHeard();
    await this.reconciler.start();
    if (this.options.retentionIntervalMs) await this.retention.start();
  }

  /**
   * A `run-completed` job: the runs one executor batch recorded. Each run's recompute joins the group
   * commit in its own span, a new trace linked to the run that ended (trace-context.ts: no endless
   * trace). A run whose recompute fails alone (ItemFailure) fails the job once the others are done:
   * logged, and its endpoint is repaired by the reconcile sweep like any lost recompute.
   */
  private async recomputeAfterRuns(bullJob: BullJob<RunsCompletedPayload>): Promise<void> {
    const nowMs = this.now().getTime();
    // A plan heard of late (this scheduler was stopped or far behind) and due already: slots may have
    // passed since the recorder made it, so the endpoint's missed-runs policy decides again now, and
    // a due job the reconcile sweep may have re-added for that plan goes (the plan is superseded).
    const late = nowMs - bullJob.timestamp > PLAN_HEARD_LATE_MS;
    const runs = completedRunsOf(bullJob.data).map((run): RunCompletedPayload => {
      if (!late || !run.planned || run.planned.scheduledAtMs >= nowMs) return run;
      const { planned: _planned, scheduleVersion: _ran, ...recomputed } = run;
      return recomputed;
    });
    // Runs whose next run the recorder stored with them: the row is current, only the due job is
    // missing (no row lock: a due job of a version a later change superseded is dropped as stale by
    // the executor, and the job id dedupes a retried add). One write of the row per execution.
    // No trace context carried on: the next execution starts a trace of its own (trace-context.ts).
    const planned = runs.flatMap(({ endpointId, accountId, planned }) =>
      planned
        ? [
            {
              endpointId,
              accountId,
              scheduleVersion: planned.scheduleVersion,
              runId: planned.runId,
              scheduledAt: new Date(planned.scheduledAtMs),
              source: planned.source,
            },
          ]
        : [],
    );
    const queued = this.dueQueue.addMany(planned);
    const outcomes = await Promise.allSettled([
      queued,
      ...runs
        .filter((run) => !run.planned)
        .map((run) =>
          processJobSpan(
            QUEUES.runCompleted,
            { id: bullJob.id, data: run },
            () =>
              this.batcher.submit({
                endpointId: run.endpointId,
                ...(run.scheduleVersion === undefined ? {} : { scheduleVersion: run.scheduleVersion }),
                ...traceContextOf(currentTraceparent()),
              }),
            { link: true },
          ),
        ),
    ]);
    const failed = outcomes.find((outcome) => outcome.status === 'rejected');
    if (failed) throw failed.reason;
  }

  /**
   * Waits (at most BACKLOG_WAIT_MS) until no run-completed job waits or runs: the plans the recorder
   * stored while no scheduler ran are then queued or, heard late, recomputed (recomputeAfterRuns)
   * before the start's reconcile sweep could re-add one as it stands (overdue, it would run the first
   * missed slot before the endpoint's missed-runs policy decides). Redis emptied: nothing waits.
   */
  private async backlogHeard(): Promise<void> {
    // A connection for the start only, closed below.
    const connection = this.open();
    const queues = allShards(this.options.shards ?? SINGLE_SHARD).map(
      (shard) => new Queue(QUEUES.runCompleted, { connection, prefix: shardPrefix(this.options.prefix, shard) }),
    );
    try {
      const deadline = Date.now() + BACKLOG_WAIT_MS;
      while (Date.now() < deadline) {
        const counts = await Promise.all(queues.map((queue) => queue.getJobCounts('waiting', 'active', 'prioritized')));
        if (counts.every((count) => Object.values(count).every((value) => value === 0))) return;
        await sleep(BACKLOG_POLL_MS);
      }
      this.options.logger.warn('reconcile sweep started with completed runs still queued', {
        waitedMs: BACKLOG_WAIT_MS,
      });
    } finally {
      await Promise.all(queues.map((queue) => queue.close()));
      connection.disconnect();
    }
  }

  async close(): Promise<void> {
    await this.reconciler.stop();
    await this.retention.stop();
    await Promise.all(this.workers.map((worker) => worker.close()));
    await this.dueQueue.close();
    for (const connection of this.connections) connection.disconnect();
  }
}
