/**
 * The executor: consumes due executions (and test runs) with a configurable concurrency and turns
 * each into a recorded Run. Delivery is at-least-once: a killed executor's in-flight jobs are
 * retried by BullMQ once their lock expires, under the same run id (X-Service-Run-Id), and the run
 * is recorded once. Each recorded scheduled run is announced on `run-completed` (and on
 * `planner-runs` when the account has AI scheduling on) by the RunRecorder, in batches.
 */
import type { Database } from '@kairos/db';
import {
  QUEUES,
  createNotificationQueue,
  dueRunPayload,
  testRunPayload,
  type DueRunPayload,
  type RunCompletedPayload,
  type ScheduleChangePayload,
  type TestRunPayload,
  type TestRunResult,
} from '@kairos/queue';
import { metrics, type Logger } from '@kairos/runtime';
import { Queue, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { executeDueRun, executeTestRun, type DueRunResult, type ExecuteDeps } from './execute.js';
import { createHttpExecutor, type EgressPolicy, type HttpExecutor } from './http/index.js';
import { Admissions } from './admission.js';
import type { SmtpSettings } from './notifications/channels.js';
import { NotificationEvents } from './notifications/notification-events.js';
import { NotificationWorker } from './notifications/notification-worker.js';
import { OutcomeStash } from './outcome-stash.js';
import { RunQuota } from './run-quota.js';
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
  connect: () => Redis;
  prefix: string;
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
  private readonly connections: Redis[] = [];
  private readonly workers: Worker[] = [];
  /** Jobs being processed by this process, with their lock tokens (handed back at a shutdown deadline). */
  private readonly inFlight = new Map<string, { job: Job; token: string | undefined }>();
  private readonly http: HttpExecutor;
  private readonly runCompleted: Queue<RunCompletedPayload>;
  private readonly plannerRuns: Queue<RunCompletedPayload>;
  private readonly scheduleChanges: Queue<ScheduleChangePayload>;
  private readonly deps: ExecuteDeps;
  private readonly notificationWorker: NotificationWorker;

  constructor(private readonly options: ExecutorOptions) {
    const producer = this.connect();
    this.http = createHttpExecutor({
      egress: options.egress,
      userAgent: options.userAgent ?? 'Kairos/0.1 (+scheduler)',
    });
    const queueOptions = {
      connection: producer,
      prefix: options.prefix,
      defaultJobOptions: { removeOnComplete: true, removeOnFail: 1000 },
    };
    this.runCompleted = new Queue<RunCompletedPayload>(QUEUES.runCompleted, queueOptions);
    this.plannerRuns = new Queue<RunCompletedPayload>(QUEUES.plannerRuns, queueOptions);
    this.scheduleChanges = new Queue<ScheduleChangePayload>(QUEUES.scheduleChanges, queueOptions);
    const lock = new RunningLock(producer, options.prefix);
    const runQuota = new RunQuota(options.db, producer, options.prefix);
    const stash = new OutcomeStash(options.prefix);
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
      replan: (endpointIds) => this.scheduleChanges.add('change', { endpointIds, reason: 'auto-paused' }),
      now,
    });
    this.deps = {
      db: options.db,
      http: this.http,
      runQuota,
      admissions: new Admissions({ db: options.db, redis: producer, lock, runQuota, stash, now }),
      recorder: new RunRecorder({
        db: options.db,
        redis: producer,
        lock,
        runQuota,
        stash,
        runCompleted: this.runCompleted,
        plannerRuns: this.plannerRuns,
        notificationEvents,
      }),
      masterKey: options.masterKey,
      now,
    };
  }

  private connect(): Redis {
    const connection = this.options.connect();
    connection.on('error', (error) => this.options.logger.warn('redis connection error', { error: error.message }));
    this.connections.push(connection);
    return connection;
  }

  /** Processes one due job (exported for tests through the worker). */
  async processDue(payload: DueRunPayload, attempt: number): Promise<DueRunResult> {
    const result = await executeDueRun(this.deps, payload, attempt);
    if (result.kind === 'recorded') {
      // Counted once per run: a retried delivery of an already recorded run is not a new outcome.
      // (run-completed and planner-runs were emitted by the recorder.)
      if (result.firstDelivery) metrics.observeRun(result.run);
    } else {
      metrics.executionsSkipped.inc({ reason: result.reason });
      if (['paused', 'job-not-active', 'archived', 'quota', 'recorded'].includes(result.reason)) {
        // The state that stopped this run also decides the next one (recorded: the slot has its
        // run, so the next is due): have the scheduler recompute.
        await this.scheduleChanges.add('change', {
          endpointIds: [payload.endpointId],
          reason: `skipped-${result.reason}`,
        });
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

  /** Runs one job's processing, counted in the concurrency gauge and known to a shutdown deadline. */
  private async track<T>(job: Job, token: string | undefined, work: () => Promise<T>): Promise<T> {
    const key = `${job.queueName}/${job.id}`;
    this.inFlight.set(key, { job, token });
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
    this.workers.push(
      new Worker<DueRunPayload, unknown>(
        QUEUES.due,
        (job: Job<DueRunPayload>, token?: string) =>
          this.track(job, token, async () => {
            const result = await this.processDue(dueRunPayload.parse(job.data), job.attemptsMade + 1);
            return result.kind === 'recorded' ? { status: result.run.status } : { skipped: result.reason };
          }),
        { connection: this.connect(), prefix, concurrency, ...DELIVERY_LOCK },
      ),
      new Worker<TestRunPayload, TestRunResult>(
        QUEUES.testRuns,
        (job: Job<TestRunPayload>, token?: string) =>
          this.track(job, token, async () => {
            const result = await executeTestRun(this.deps, testRunPayload.parse(job.data));
            metrics.runOutcomes.inc({ source: 'test', status: result.status });
            return result;
          }),
        { connection: this.connect(), prefix, concurrency: Math.max(1, Math.ceil(concurrency / 4)), ...DELIVERY_LOCK },
      ),
    );
    for (const worker of this.workers) {
      worker.on('failed', (job, error) =>
        logger.error('execution job failed', {
          queue: worker.name,
          jobId: job?.id,
          runId: (job?.data as { runId?: string } | undefined)?.runId,
          endpointId: (job?.data as { endpointId?: string } | undefined)?.endpointId,
          attempt: job?.attemptsMade,
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
   * each job's lock is released and the job moved back to the front of the wait list under its
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
    await this.runCompleted.close();
    await this.plannerRuns.close();
    await this.scheduleChanges.close();
    this.http.close();
    for (const connection of this.connections) connection.disconnect();
    return { released: 0 };
  }

  private async releaseInFlight(): Promise<number> {
    const pending = [...this.inFlight.values()];
    const results = await Promise.allSettled(pending.map(({ job, token }) => job.moveToWait(token)));
    results.forEach((result, index) => {
      const job = pending[index]!.job;
      const meta = { queue: job.queueName, jobId: job.id, runId: (job.data as { runId?: string }).runId };
      if (result.status === 'fulfilled') this.options.logger.warn('shutdown deadline: execution handed back', meta);
      else this.options.logger.error('shutdown deadline: hand-back failed', { ...meta, error: String(result.reason) });
    });
    return results.filter((result) => result.status === 'fulfilled').length;
  }
}
