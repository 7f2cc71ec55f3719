/**
 * The executor: consumes planned runs (due jobs) and test runs with a configurable concurrency and
 * turns each into a recorded Run. Delivery is at-least-once: a killed executor's in-flight BullMQ
 * jobs are retried by BullMQ once their lock expires, under the same run id (X-Service-Run-Id), and
 * the run is recorded once.
 *
 * Naming: the product's Job (a container of endpoints; `job-not-active`) and BullMQ's jobs meet
 * here, so a BullMQ job object is always `bullJob` (type `BullJob`), never `job`. Each recorded
 * scheduled run is announced on `run-completed` (and on `run-completed-planner` when the account
 * has AI scheduling on and a planner with a model runs) by the RunRecorder, in batches.
 */
import { type Database } from '@kairos/db';
import { markScheduleDirty, type PlannedRun } from '@kairos/db/system';
import {
  QUEUES,
  SINGLE_SHARD,
  allShards,
  previousShardOf,
  shardOf,
  shardPrefix,
  PlannerPresence,
  createNotificationQueue,
  createScheduleChangeNotifier,
  dueJobData,
  manualRunPayload,
  parseDueJobId,
  processJobSpan,
  testRunPayload,
  type DueJobData,
  type DueJobRef,
  type ManualRunPayload,
  type QueueShards,
  type RedisConnection,
  type RunCompletedPayload,
  type RunsCompletedPayload,
  type ScheduleNotifier,
  type TestRunPayload,
  type TestRunResult,
} from '@kairos/queue';
import { metrics, type Logger } from '@kairos/runtime';
import { DelayedError, Queue, UnrecoverableError, Worker, type Job as BullJob } from 'bullmq';
import { executePlannedRun, executeTestRun, type PlannedRunResult } from './run-execution.js';
import { createHttpExecutor, type EgressPolicy, type HttpExecutor } from './http/index.js';
import { Admissions } from './admission.js';
import { executeManualRun, type ManualRunDeps } from './manual-run.js';
import { createCallSlots, DUE_JOBS_PER_CALL_SLOT } from './call-slots.js';
import { HostBudgets } from './host-budget.js';
import { RESPONSE_MEMORY_MB } from './config.js';
import type { SmtpSettings } from './notifications/channels.js';
import { NotificationEvents } from './notifications/notification-events.js';
import { NotificationWorker } from './notifications/notification-worker.js';
import { OutcomeStash } from './outcome-stash.js';
import { RunQuota } from './run-quota.js';
import { ResponseRulesCache } from './response-rules.js';
import { Retries } from './retry.js';
import { RunRecorder } from './run-recorder.js';
import { RunningLock } from './running-lock.js';
import { SigningKeys } from './signing-keys.js';
import { SecretResolver } from './secrets.js';

/**
 * How soon a job in flight in a killed executor is delivered again (bound 60 s). BullMQ
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

/**
 * What becomes of a due job once processed, set here on the worker rather than in each job's options:
 * BullMQ stores a job's options in its hash, one per endpoint, and these took 112 of its bytes and
 * made it a hashtable (services/scheduler/src/due-queue.ts). Executions leave nothing behind (the run
 * is in PostgreSQL): a completed due job is removed, and so is one whose delivery failed
 * `deliveries` times (the executor itself broke, e.g. PostgreSQL down), so the reconcile sweep (every
 * 15 s) re-adds it under the same run id instead of the endpoint stopping; a call that completed
 * before is then recorded from its stashed outcome, not repeated. Between deliveries the job waits
 * 1, 2, 4, 8 s (≈15 s in all, one reconcile interval), as BullMQ's `attempts: 5` with exponential
 * backoff from 1 s did when these were job options.
 */
const DUE_DELIVERY = {
  // Keep none (a worker takes KeepJobs, not `true`).
  removeOnComplete: { count: 0 },
  removeOnFail: { count: 0 },
  deliveries: 5,
  firstBackoffMs: 1000,
} as const;

/** How long a backfilled slot waits before trying again while another run of its endpoint is in progress. */
const BACKFILL_OVERLAP_WAIT_MS = 1000;

/** A BullMQ job this process is running, with its lock token and, once admitted, its run id. */
interface InFlight {
  bullJob: BullJob;
  token: string | undefined;
  runId?: string;
}

export interface ExecutorOptions {
  db: Database;
  connect: () => RedisConnection;
  prefix: string;
  /** Queue shards (packages/queue/src/shards.ts). Default one. */
  shards?: QueueShards;
  /** The shards whose due jobs this process executes (KAIROS_EXECUTOR_SHARDS); default every shard. */
  consumeShards?: number[];
  logger: Logger;
  /** Call slots (call-slots.ts). */
  concurrency: number;
  /** The response memory the call slots may reserve between them (MiB; default 100, config.ts). */
  responseMemoryMb?: number;
  /** The recorder plans a successful run's next run (EXECUTOR_PLAN_NEXT_RUN; default true). */
  planNextRun?: boolean;
  egress: EgressPolicy;
  masterKey: Buffer;
  userAgent?: string;
  now?: () => Date;
  /** Notification delivery: SMTP for email channels (null: email deliveries fail), retry base. */
  notifications?: { smtp: SmtpSettings | null; retryBaseMs?: number; sweepEveryMs?: number };
}

export class Executor {
  private readonly connections: RedisConnection[] = [];
  private readonly workers: Worker[] = [];
  /** BullMQ jobs being processed by this process, with their lock tokens (handed back at a shutdown deadline). */
  private readonly inFlight = new Map<string, InFlight>();
  private readonly http: HttpExecutor;
  /** run-completed and run-completed-planner of every shard (sharded queues, closed on close). */
  private readonly producedQueues: Queue[] = [];
  /** Skips that change the next run are published like every schedule change: row marked dirty first. */
  private readonly scheduleChanges: ScheduleNotifier;
  /**
   * One set of execution dependencies per queue shard, by shard number: a due job is admitted,
   * locked, counted and announced on the shard it was queued on, so every key one execution's
   * Redis writes touch shares that shard's hash tag (one slot in a cluster).
   */
  private readonly shardDeps: ManualRunDeps[];
  private readonly layout: QueueShards;
  private readonly notificationWorker: NotificationWorker;

  constructor(private readonly options: ExecutorOptions) {
    const producer = this.connect();
    this.http = createHttpExecutor({
      egress: options.egress,
      userAgent: options.userAgent ?? 'Kairos/0.1 (+scheduler)',
      // The run says only "resolves to a non-public address"; the operator's log has which.
      onBlocked: (refusal) => options.logger.warn('target refused by the egress guard', { ...refusal }),
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
    // One installation's planners, whatever the shards: read once per executor (planner-presence.ts).
    const plannerPresence = new PlannerPresence(producer, options.prefix);
    const signingKeys = new SigningKeys(options.masterKey);
    const secrets = new SecretResolver({
      db: options.db,
      redis: producer,
      prefix: options.prefix,
      masterKey: options.masterKey,
    });
    const responseRules = new ResponseRulesCache();
    // One set of call slots for the whole process, every shard and Test now runs alike.
    const callSlots = createCallSlots(options.concurrency, (options.responseMemoryMb ?? RESPONSE_MEMORY_MB) * 1024);
    // Host budgets live under their own hash tags, whatever the shard (host-budget.ts).
    const hostBudgets = new HostBudgets(producer, options.prefix);
    this.shardDeps = shards.map((shard) => {
      const prefix = shardPrefix(options.prefix, shard);
      const queueOptions = {
        connection: producer,
        prefix,
        defaultJobOptions: { removeOnComplete: true, removeOnFail: 1000 },
      };
      const runCompleted = new Queue<RunsCompletedPayload>(QUEUES.runCompleted, queueOptions);
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
          plannerPresence,
          notificationEvents,
          planNextRun: options.planNextRun ?? true,
          replan: (endpointIds) => this.scheduleChanges.notify(endpointIds, 'rule-run-endpoint'),
          onChainError: (error) =>
            options.logger.warn('skip: a rule run of another endpoint not started', {
              error: error.message,
            }),
        }),
        retries: new Retries({ db: options.db, redis: producer, prefix, now }),
        signingKeys,
        secrets,
        responseRules,
        callSlots,
        hostBudgets,
        now,
        lock,
        runQuota,
      };
    });
  }

  private connect(): RedisConnection {
    const connection = this.options.connect();
    connection.on('error', (error) => this.options.logger.warn('redis connection error', { error: error.message }));
    this.connections.push(connection);
    return connection;
  }

  /** Processes the planned run a due job names, delivered from queue shard `shard` (exported for tests through the worker). */
  async processDue(
    due: DueJobRef,
    attempt: number,
    admitted?: (planned: PlannedRun) => void,
    shard = 0,
    hostHeldSinceMs?: number,
  ): Promise<PlannedRunResult> {
    const result = await executePlannedRun(this.shardDeps[shard]!, due, attempt, admitted, hostHeldSinceMs);
    if (result.kind === 'delayed') {
      return result;
    }
    if (result.kind === 'recorded') {
      // Counted once per run: a retried delivery of an already recorded run is not a new outcome.
      // (run-completed and run-completed-planner were emitted by the recorder.)
      if (result.firstDelivery) metrics.observeRun(result.run);
    } else {
      metrics.executionsSkipped.inc({ reason: result.reason });
      if (['paused', 'job-not-active', 'archived', 'quota', 'recorded', 'account-disabled'].includes(result.reason)) {
        // The state that stopped this run also decides the next one (recorded: the slot has its
        // run, so the next is due): have the scheduler recompute. Marked dirty before it is
        // published (packages/queue/src/schedule-notifier.ts), as the api does.
        await this.scheduleChanges.notify([due.endpointId], `skipped-${result.reason}`);
      }
    }
    // Checked first: winston filters by level only inside its stream, after building the entry
    // (1 % of the executor's CPU at saturation, `node --cpu-prof`, for a line not written).
    if (this.options.logger.isDebugEnabled())
      this.options.logger.debug('due job processed', {
        ...(result.kind === 'recorded' ? { runId: result.run.id } : {}),
        endpointId: due.endpointId,
        scheduleVersion: due.scheduleVersion,
        result: result.kind === 'recorded' ? result.run.status : `skipped:${result.reason}`,
      });
    return result;
  }

  /**
   * During a reshard, a due job found on one of its endpoint's two shards (old, new) also checks the
   * running lock on the other, whoever queued it: the scheduler stamps `lockShard` on the new shard's
   * jobs, and this covers a job queued on the old shard (an old-layout scheduler still running) while
   * an execution holds the new shard's lock. Outside a reshard the due job is left as it is.
   */
  private withLockShard(due: DueJobRef, shard: number): DueJobRef {
    if (due.lockShard !== undefined) return due;
    const current = shardOf(due.endpointId, this.layout.count);
    const other = shard === current ? previousShardOf(due.endpointId, this.layout) : current;
    return other === undefined || other === shard ? due : { ...due, lockShard: other };
  }

  /** Runs one BullMQ job's processing, known to a shutdown deadline. */
  private async track<T>(
    bullJob: BullJob,
    token: string | undefined,
    work: (entry: InFlight) => Promise<T>,
  ): Promise<T> {
    const key = `${bullJob.queueName}/${bullJob.id}`;
    const entry: InFlight = { bullJob, token };
    this.inFlight.set(key, entry);
    try {
      return await work(entry);
    } finally {
      this.inFlight.delete(key);
    }
  }

  async start(): Promise<void> {
    const { prefix, concurrency, logger } = this.options;
    metrics.executorConcurrencyLimit.set(concurrency);
    // One due worker per consumed shard sharing DUE_JOBS_PER_CALL_SLOT × EXECUTOR_CONCURRENCY jobs:
    // endpoints are hashed evenly over the shards, so each shard's share of the work (and of the
    // jobs) is about 1/N. The call slots bound what runs at once (call-slots.ts).
    const consumed = this.options.consumeShards ?? allShards(this.layout);
    const perShard = Math.max(1, Math.ceil((DUE_JOBS_PER_CALL_SLOT * concurrency) / consumed.length));
    this.workers.push(
      ...consumed.map(
        (shard) =>
          new Worker<DueJobData, unknown>(
            QUEUES.due,
            (bullJob: BullJob<DueJobData>, token?: string) =>
              this.track(bullJob, token, (entry) =>
                processJobSpan(QUEUES.due, bullJob, async (span) => {
                  const ref = parseDueJobId(bullJob.id);
                  if (!ref) throw new UnrecoverableError(`not a due job id: ${bullJob.id}`);
                  const data = dueJobData.parse(bullJob.data);
                  const due = this.withLockShard({ ...ref, lockShard: data.lockShard }, shard);
                  // The delivery's number: BullMQ counts every start, a redelivery after a stall too
                  // (a delivery its host's budget gave back is none).
                  const hostDelays = data.hostDelays ?? 0;
                  const attempt = Math.max(1, bullJob.attemptsStarted - bullJob.stalledCounter - hostDelays);
                  const admitted = (planned: PlannedRun) => (entry.runId = planned.runId);
                  const result = await this.processDue(due, attempt, admitted, shard, data.hostHeldSince).catch(
                    (error: unknown) => this.redeliver(bullJob, token, attempt, error),
                  );
                  if (result.kind === 'delayed') {
                    // Late, never dropped: the due job comes back when the host's budget has room.
                    await bullJob.updateData({
                      ...data,
                      hostHeldSince: result.heldSinceMs,
                      hostDelays: hostDelays + 1,
                    });
                    await bullJob.moveToDelayed(result.atMs, token);
                    throw new DelayedError();
                  }
                  span.setAttribute(
                    'kairos.run.outcome',
                    result.kind === 'recorded' ? result.run.status : result.reason,
                  );
                  return result.kind === 'recorded' ? { status: result.run.status } : { skipped: result.reason };
                }),
              ),
            {
              connection: this.connect(),
              prefix: shardPrefix(prefix, shard),
              concurrency: perShard,
              ...DELIVERY_LOCK,
              removeOnComplete: DUE_DELIVERY.removeOnComplete,
              removeOnFail: DUE_DELIVERY.removeOnFail,
            },
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
    this.workers.push(
      new Worker<ManualRunPayload, unknown>(
        QUEUES.manualRuns,
        (bullJob: BullJob<ManualRunPayload>, token?: string) =>
          this.track(bullJob, token, () =>
            processJobSpan(QUEUES.manualRuns, bullJob, async () => {
              const payload = manualRunPayload.parse(bullJob.data);
              // Locked, counted and announced on the endpoint's shard, as its scheduled runs are.
              const deps = this.shardDeps[shardOf(payload.endpointId, this.layout.count)]!;
              const attempt = Math.max(1, bullJob.attemptsStarted - bullJob.stalledCounter);
              const result = await executeManualRun(deps, payload, attempt);
              if (result.kind === 'recorded') {
                metrics.observeRun(result.run);
                return { status: result.run.status };
              }
              if (result.reason === 'overlap' && payload.source === 'backfill') {
                // A backfilled slot waits for the run in progress instead of being dropped.
                await bullJob.moveToDelayed(Date.now() + BACKFILL_OVERLAP_WAIT_MS, token);
                throw new DelayedError();
              }
              metrics.executionsSkipped.inc({ reason: result.reason });
              logger.info('manual run skipped', {
                runId: payload.runId,
                endpointId: payload.endpointId,
                reason: result.reason,
              });
              return { skipped: result.reason };
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

  /**
   * A delivery that failed (DUE_DELIVERY): the due job waits for the next one (BullMQ's documented
   * manual delay: moveToDelayed, then DelayedError), or after the last one fails and is removed.
   */
  private async redeliver(
    bullJob: BullJob,
    token: string | undefined,
    attempt: number,
    error: unknown,
  ): Promise<never> {
    if (attempt >= DUE_DELIVERY.deliveries || error instanceof DelayedError) throw error;
    const waitMs = DUE_DELIVERY.firstBackoffMs * 2 ** (attempt - 1);
    this.options.logger.warn('due job delivery failed; delivered again', {
      jobId: bullJob.id,
      attempt,
      waitMs,
      error: error instanceof Error ? error.message : String(error),
    });
    await bullJob.moveToDelayed(Date.now() + waitMs, token);
    throw new DelayedError();
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
      const { bullJob, runId } = pending[index]!;
      // A due job names its run only once admitted (the run id is read from the row); a test run carries it.
      const meta = {
        queue: bullJob.queueName,
        jobId: bullJob.id,
        runId: runId ?? (bullJob.data as { runId?: string }).runId,
      };
      if (result.status === 'fulfilled') this.options.logger.warn('shutdown deadline: execution handed back', meta);
      else this.options.logger.error('shutdown deadline: hand-back failed', { ...meta, error: String(result.reason) });
    });
    return results.filter((result) => result.status === 'fulfilled').length;
  }
}
