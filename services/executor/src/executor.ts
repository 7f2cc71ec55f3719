/**
 * The executor: consumes planned runs (due jobs) and test runs with a configurable concurrency and
 * turns each into a recorded Run. Delivery is at-least-once: a killed executor's in-flight BullMQ
 * jobs are retried by BullMQ once their lock expires, under the same run id (X-Service-Run-Id), and
 * the run is recorded once.
 *
 * Naming: the product's Job (a container of endpoints; `job-not-active`) and BullMQ's jobs meet
 * here, so a BullMQ job object is always `bullJob` (type `BullJob`), never `job`. Each recorded
 * scheduled run is announced on `run-completed` (and on `run-completed-planner` when the account
 * has AI scheduling on) by the RunRecorder, in batches.
 */
import { type Database } from '@kairos/db';
import { markScheduleDirty } from '@kairos/db/system';
import {
  QUEUES,
  SINGLE_SHARD,
  allShards,
  previousShardOf,
  shardOf,
  shardPrefix,
  createNotificationQueue,
  createScheduleChangeNotifier,
  plannedRunPayload,
  processJobSpan,
  testRunPayload,
  type PlannedRunPayload,
  type QueueShards,
  type RedisConnection,
  type RunCompletedPayload,
  type ScheduleNotifier,
  type TestRunPayload,
  type TestRunResult,
} from '@kairos/queue';
import { metrics, type Logger } from '@kairos/runtime';
import { Queue, Worker, type Job as BullJob } from 'bullmq';
import { executePlannedRun, executeTestRun, type PlannedRunResult, type ExecuteDeps } from './execute.js';
import { createHttpExecutor, type EgressPolicy, type HttpExecutor } from './http/index.js';
import { Admissions } from './admission.js';
import type { SmtpSettings } from './notifications/channels.js';
import { NotificationEvents } from './notifications/notification-events.js';
import { NotificationWorker } from './notifications/notification-worker.js';
import { OutcomeStash } from './outcome-stash.js';
import { RunQuota } from './run-quota.js';
import { Retries } from './retry.js';
import { RunRecorder } from './run-recorder.js';
import { RunningLock } from './running-lock.js';

/**
 * How soon a job in flight in a killed executor is delivered again (issue #12: bound 60 s). BullMQ
 * 6.7 (its LockManager class and moveStalledJobsToWait script, read in the installed package): a worker
 * renews the locks of the jobs it is running every lockDuration / 2 (one script per worker for all
 * its jobs, on a timer ticking every lockDuration / 4), for as long as the job runs, so a request of
 * any timeoutMs (up to 300 s) keeps its lock; a stalled check every stalledInterval (one worker of
 * the queue runs it; the others find its marker key and return) moves back to wait the jobs it saw
 * active last time whose lock has expired. So a killed job comes back within lockDuration +
 * stalledInterval of the kill (+ the executor's restart when it was the only one: ≈5 s).
 * BullMQ's defaults (30 s + 30 s) gave ≈65 s; 15 s + 10 s give ≤ 30 s (measured: README Reliability).
 * Cost: a renewal round trip every 3.75 s per busy worker instead of 7.5 s, and a stalled check every
 * 10 s per worker instead of 30 s: a few Redis calls a second for the whole fleet. The risk of a short
 * lock is a false stall (the job delivered again while it runs, same run id): renewal must be late by
 * more than lockDuration / 2 = 7.5 s (event loop blocked, Redis unreachable), the same ratio as the
 * defaults; then the run is called again under its id and recorded once.
 */
const DELIVERY_LOCK = { lockDuration: 15_000, stalledInterval: 10_000 };

export interface ExecutorOptions {
  db: Database;
  connect: () => RedisConnection;
  prefix: string;
  /** Queue shards (packages/queue/src/shards.ts). Default one. */
  shards?: QueueShards;
  /** The shards whose due jobs this process executes (KAIROS_EXECUTOR_SHARDS); default every shard. */
  consumeShards?: number[];
  logger: Logger;
  concurrency: number;
  egress: EgressPolicy;
  masterKey: Buffer;
  userAgent?: string;
  now?: () => Date;
  /** Notification delivery (issue #16): SMTP for email channels (null: email deliveries fail), retry base. */
  notifications?: { smtp: SmtpSettings | null; retryBaseMs?: number; sweepEveryMs?: number };
}

export class Executor {
  private readonly connections: RedisConnection[] = [];
  private readonly workers: Worker[] = [];
  /** BullMQ jobs being processed by this process, with their lock tokens (handed back at a shutdown deadline). */
  private readonly inFlight = new Map<string, { bullJob: BullJob; token: string | undefined }>();
  private readonly http: HttpExecutor;
  /** run-completed and run-completed-planner of every shard (sharded queues, closed on close). */
  private readonly producedQueues: Queue<RunCompletedPayload>[] = [];
  /** Skips that change the next run are published like every schedule change: row marked dirty first. */
  private readonly scheduleChanges: ScheduleNotifier;
  /**
   * One set of execution dependencies per queue shard, by shard number: a due job is admitted,
   * locked, counted and announced on the shard it was queued on, so every key one execution's
   * Redis writes touch shares that shard's hash tag (one slot in a cluster).
   */
  private readonly shardDeps: ExecuteDeps[];
  private readonly layout: QueueShards;
  private readonly notificationWorker: NotificationWorker;

  constructor(private readonly options: ExecutorOptions) {
    const producer = this.connect();
    this.http = createHttpExecutor({
      egress: options.egress,
      userAgent: options.userAgent ?? 'Kairos/0.1 (+scheduler)',
    });
    this.layout = options.shards ?? SINGLE_SHARD;
    this.scheduleChanges = createScheduleChangeNotifier({
      connection: producer,
      prefix: options.prefix,
      markDirty: (endpointIds, now) => markScheduleDirty(options.db, endpointIds, now),
      // The row is dirty: the reconcile sweep recomputes it if this publish is lost.
      onError: (error) => options.logger.warn('skip: schedule change not published', { error: error.message }),
    });
    const now = options.now ?? (() => new Date());
    this.notificationWorker = new NotificationWorker({
      db: options.db,
      connect: () => this.connect(),
      prefix: options.prefix,
      logger: options.logger,
      masterKey: options.masterKey,
      egress: options.egress,
      smtp: options.notifications?.smtp ?? null,
      now,
      ...(options.notifications?.retryBaseMs === undefined ? {} : { retryBaseMs: options.notifications.retryBaseMs }),
      ...(options.notifications?.sweepEveryMs === undefined
        ? {}
        : { sweepEveryMs: options.notifications.sweepEveryMs }),
    });
    const notificationEvents = new NotificationEvents({
      db: options.db,
      queue: createNotificationQueue(producer, options.prefix),
      logger: options.logger,
      replan: (endpointIds) => this.scheduleChanges.notify(endpointIds, 'auto-paused'),
      now,
    });
    // One running lock per shard, held by admission (admit, check) and the recorder (release, count):
    // their whole lifecycles live in running-lock.ts and run-quota.ts. A due job moved by a reshard
    // also checks its predecessor's lock on the shard it names (lockShard).
    const shards = allShards(this.layout);
    const locks = shards.map((shard) => new RunningLock(producer, shardPrefix(options.prefix, shard)));
    this.shardDeps = shards.map((shard) => {
      const prefix = shardPrefix(options.prefix, shard);
      const queueOptions = {
        connection: producer,
        prefix,
        defaultJobOptions: { removeOnComplete: true, removeOnFail: 1000 },
      };
      const runCompleted = new Queue<RunCompletedPayload>(QUEUES.runCompleted, queueOptions);
      const runCompletedForPlanner = new Queue<RunCompletedPayload>(QUEUES.runCompletedForPlanner, queueOptions);
      this.producedQueues.push(runCompleted, runCompletedForPlanner);
      const lock = locks[shard]!;
      // Several shards: each counts its own runs on top of PostgreSQL's count, recounted every 5 min (run-quota.ts).
      const runQuota = new RunQuota(options.db, producer, prefix, { shared: shards.length === 1 });
      const stash = new OutcomeStash(prefix);
      return {
        db: options.db,
        http: this.http,
        admissions: new Admissions({
          db: options.db,
          redis: producer,
          lock,
          lockOnShard: (other) => locks[other],
          runQuota,
          stash,
          now,
        }),
        recorder: new RunRecorder({
          db: options.db,
          redis: producer,
          lock,
          runQuota,
          stash,
          runCompleted,
          runCompletedForPlanner,
          notificationEvents,
        }),
        retries: new Retries({ db: options.db, redis: producer, prefix, now }),
        masterKey: options.masterKey,
        now,
      };
    });
  }

  private connect(): RedisConnection {
    const connection = this.options.connect();
    connection.on('error', (error) => this.options.logger.warn('redis connection error', { error: error.message }));
    this.connections.push(connection);
    return connection;
  }

  /** Processes one planned run delivered by its due job from queue shard `shard` (exported for tests through the worker). */
  async processDue(payload: PlannedRunPayload, attempt: number, shard = 0): Promise<PlannedRunResult> {
    const result = await executePlannedRun(this.shardDeps[shard]!, payload, attempt);
    if (result.kind === 'recorded') {
      // Counted once per run: a retried delivery of an already recorded run is not a new outcome.
      // (run-completed and run-completed-planner were emitted by the recorder.)
      if (result.firstDelivery) metrics.observeRun(result.run);
    } else {
      metrics.executionsSkipped.inc({ reason: result.reason });
      if (['paused', 'job-not-active', 'archived', 'quota', 'recorded'].includes(result.reason)) {
        // The state that stopped this run also decides the next one (recorded: the slot has its
        // run, so the next is due): have the scheduler recompute. Marked dirty before it is
        // published (packages/queue/src/schedule-notifier.ts), as the api does.
        await this.scheduleChanges.notify([payload.endpointId], `skipped-${result.reason}`);
      }
    }
    this.options.logger.debug('due job processed', {
      runId: payload.runId,
      endpointId: payload.endpointId,
      scheduleVersion: payload.scheduleVersion,
      result: result.kind === 'recorded' ? result.run.status : `skipped:${result.reason}`,
    });
    return result;
  }

  /**
   * During a reshard, a due job found on one of its endpoint's two shards (old, new) also checks the
   * running lock on the other, whoever queued it: the scheduler stamps `lockShard` on the new shard's
   * jobs, and this covers a job queued on the old shard (an old-layout scheduler still running) while
   * an execution holds the new shard's lock. Outside a reshard the payload is left as it is.
   */
  private withLockShard(payload: PlannedRunPayload, shard: number): PlannedRunPayload {
    if (payload.lockShard !== undefined) return payload;
    const current = shardOf(payload.endpointId, this.layout.count);
    const other = shard === current ? previousShardOf(payload.endpointId, this.layout) : current;
    return other === undefined || other === shard ? payload : { ...payload, lockShard: other };
  }

  /** Runs one BullMQ job's processing, counted in the concurrency gauge and known to a shutdown deadline. */
  private async track<T>(bullJob: BullJob, token: string | undefined, work: () => Promise<T>): Promise<T> {
    const key = `${bullJob.queueName}/${bullJob.id}`;
    this.inFlight.set(key, { bullJob, token });
    metrics.executorConcurrencyInUse.inc();
    try {
      return await work();
    } finally {
      metrics.executorConcurrencyInUse.dec();
      this.inFlight.delete(key);
    }
  }

  async start(): Promise<void> {
    const { prefix, concurrency, logger } = this.options;
    metrics.executorConcurrencyLimit.set(concurrency);
    // One due worker per consumed shard sharing EXECUTOR_CONCURRENCY: endpoints are hashed evenly
    // over the shards, so each shard's share of the work (and of the slots) is about 1/N.
    const consumed = this.options.consumeShards ?? allShards(this.layout);
    const perShard = Math.max(1, Math.ceil(concurrency / consumed.length));
    this.workers.push(
      ...consumed.map(
        (shard) =>
          new Worker<PlannedRunPayload, unknown>(
            QUEUES.due,
            (bullJob: BullJob<PlannedRunPayload>, token?: string) =>
              this.track(bullJob, token, () =>
                processJobSpan(QUEUES.due, bullJob, async (span) => {
                  const payload = this.withLockShard(plannedRunPayload.parse(bullJob.data), shard);
                  const result = await this.processDue(payload, bullJob.attemptsMade + 1, shard);
                  span.setAttribute(
                    'kairos.run.outcome',
                    result.kind === 'recorded' ? result.run.status : result.reason,
                  );
                  return result.kind === 'recorded' ? { status: result.run.status } : { skipped: result.reason };
                }),
              ),
            { connection: this.connect(), prefix: shardPrefix(prefix, shard), concurrency: perShard, ...DELIVERY_LOCK },
          ),
      ),
      new Worker<TestRunPayload, TestRunResult>(
        QUEUES.testRuns,
        (bullJob: BullJob<TestRunPayload>, token?: string) =>
          this.track(bullJob, token, () =>
            processJobSpan(QUEUES.testRuns, bullJob, async () => {
              const payload = testRunPayload.parse(bullJob.data);
              // Counted against the quota on the endpoint's shard, where its scheduled runs count.
              const deps = this.shardDeps[shardOf(payload.endpointId, this.layout.count)]!;
              const result = await executeTestRun(deps, payload);
              metrics.runOutcomes.inc({ source: 'test', status: result.status });
              return result;
            }),
          ),
        { connection: this.connect(), prefix, concurrency: Math.max(1, Math.ceil(concurrency / 4)), ...DELIVERY_LOCK },
      ),
    );
    for (const worker of this.workers) {
      worker.on('failed', (bullJob, error) =>
        logger.error('execution job failed', {
          queue: worker.name,
          jobId: bullJob?.id,
          runId: (bullJob?.data as { runId?: string } | undefined)?.runId,
          endpointId: (bullJob?.data as { endpointId?: string } | undefined)?.endpointId,
          attempt: bullJob?.attemptsMade,
          error: error.message,
        }),
      );
      worker.on('error', (error) => logger.error('worker error', { queue: worker.name, error: error.message }));
    }
    await Promise.all(this.workers.map((worker) => worker.waitUntilReady()));
    await this.notificationWorker.start();
  }

  /** Executions in flight in this process now. */
  get inFlightCount(): number {
    return this.inFlight.size;
  }

  /**
   * Graceful stop: the workers take no new job and in-flight executions finish (BullMQ's close
   * waits for them). With `timeoutMs`, executions still running at the deadline are handed back:
   * each BullMQ job's lock is released and the job moved back to the front of the wait list under its
   * run id, so another executor retries it at once (deduplicable through X-Service-Run-Id) instead
   * of after the 30 s lock expiry. After a hand-back the caller must exit the process: the
   * abandoned calls are not aborted (an abort would record a failure that never happened).
   * (BullMQ 6.7's close(true) cannot follow a close() already in progress: it returns the first.)
   */
  async close(options: { timeoutMs?: number } = {}): Promise<{ released: number }> {
    const drained = Promise.all([
      ...this.workers.map((worker) => worker.close()),
      this.notificationWorker.close(),
    ]).then(() => 'drained' as const);
    if (options.timeoutMs !== undefined) {
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<'deadline'>((resolve) => {
        timer = setTimeout(() => resolve('deadline'), options.timeoutMs);
      });
      const outcome = await Promise.race([drained, deadline]);
      clearTimeout(timer);
      if (outcome === 'deadline') return { released: await this.releaseInFlight() };
    } else {
      await drained;
    }
    await Promise.all(this.producedQueues.map((queue) => queue.close()));
    await this.scheduleChanges.close();
    this.http.close();
    for (const connection of this.connections) connection.disconnect();
    return { released: 0 };
  }

  private async releaseInFlight(): Promise<number> {
    const pending = [...this.inFlight.values()];
    const results = await Promise.allSettled(pending.map(({ bullJob, token }) => bullJob.moveToWait(token)));
    results.forEach((result, index) => {
      const bullJob = pending[index]!.bullJob;
      const meta = { queue: bullJob.queueName, jobId: bullJob.id, runId: (bullJob.data as { runId?: string }).runId };
      if (result.status === 'fulfilled') this.options.logger.warn('shutdown deadline: execution handed back', meta);
      else this.options.logger.error('shutdown deadline: hand-back failed', { ...meta, error: String(result.reason) });
    });
    return results.filter((result) => result.status === 'fulfilled').length;
  }
}
