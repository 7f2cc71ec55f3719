/**
 * The end of every scheduled execution, in batches (a GroupCommit): the runs and their endpoints'
 * new state in one SQL statement, then one Redis write that frees the executions' running locks
 * (running-lock.ts) and counts the new runs against the monthly quota (run-quota.ts), then one
 * `run-completed` job announcing the whole batch (packages/queue/src/payloads.ts runsCompletedPayload),
 * and a bulk add to `run-completed-planner` (a job per run) for accounts with AI scheduling on, while a
 * planner with a model runs.
 * Test now runs are recorded here too (`recordTest`: no lock, no scheduling state, counted). One at a time this would be four to five round
 * trips per execution; under load it is a fraction of one (docs/decisions/0008-group-commit-on-the-hot-path.md).
 *
 * Order per execution is unchanged: the run is committed before its lock is freed and before the
 * scheduler hears of it. The recorder owns every end of an admitted execution, so it frees the
 * running lock on each path: recorded, recorded as record_error, failed, or abandoned.
 *
 * A bad run fails alone: a batch that PostgreSQL refuses is split until the culprit is alone (the
 * statement is all-or-nothing, so a part can be written again). The culprit is then recorded as a
 * failed run with errorKind `record_error` (status code, timing and attempt kept, body dropped,
 * the database's reason as message) and its endpoint's state advances once. Only when that fails
 * too, or the database is unreachable, does the caller get the error: the outcome is stashed first
 * (outcome-stash.ts) so the retried delivery records it without calling the endpoint again.
 */
import { toStorableText } from '@kairos/core';
import { type Database } from '@kairos/db';
import {
  chainRuns,
  nextRunAfter,
  recordScheduledRuns,
  recordTestRun,
  type ExecutionTarget,
  type RunOutcome,
} from '@kairos/db/system';
import {
  BatchScript,
  traceContextOf,
  type PlannerPresence,
  type RunCompletedPayload,
  type RunsCompletedPayload,
} from '@kairos/queue';
import { GroupCommit, isItemFailure } from '@kairos/runtime';
import type { Queue } from 'bullmq';
import type { RedisConnection } from '@kairos/queue';
import type { NotificationEvents } from './notifications/notification-events.js';
import { deleteStashedLua, type OutcomeStash } from './outcome-stash.js';
import { countRunLua, type RunQuota } from './run-quota.js';
import { LOCK_MARGIN_MS, releaseRecordedLua, type RunningLock } from './running-lock.js';

/**
 * The Redis end of a recorded batch, one script for all its executions (BatchScript): each frees its
 * running lock to its run's recorded mark, counts its run against the quota when this delivery
 * recorded it, and forgets its stashed outcome when it was a replay. An item Redis refuses (wrong
 * type) leaves the others done, as the per-item pipeline it replaces did.
 */
const FINISH = new BatchScript(
  { lock: 1, quota: 2, stash: 3 },
  { holder: 1, mark: 2, markMs: 3, count: 4, forget: 5 },
  (k, a) => `
do ${releaseRecordedLua(`${k} + 1`, `${a} + 1`, `${a} + 2`, `${a} + 3`)} end
if ARGV[${a} + 4] == '1' then ${countRunLua(`${k} + 2`)} end
if ARGV[${a} + 5] == '1' then ${deleteStashedLua(`${k} + 3`)} end`,
);

export interface FinishedExecution {
  run: RunOutcome;
  /** The scheduleVersion of the planned run that ran (lets the scheduler skip removing its due job). */
  scheduleVersion: number;
  aiSchedulingEnabled: boolean;
  /** The outcome came from the stash (a replayed delivery): delete it once recorded. */
  isReplay?: boolean;
  /** The execution's trace context (tracing on only), carried on by run-completed and run-completed-planner. */
  traceparent?: string | undefined;
  /**
   * The endpoint as admission read it: the recorder plans the next run from it and stores it with the
   * run (nextRunAfter), so the scheduler only queues its due job. Absent (a replay): the scheduler plans.
   */
  target?: ExecutionTarget;
}

export interface RunRecorderDeps {
  db: Database;
  redis: RedisConnection;
  lock: RunningLock;
  runQuota: RunQuota;
  stash: OutcomeStash;
  runCompleted: Queue<RunsCompletedPayload>;
  runCompletedForPlanner: Queue<RunCompletedPayload>;
  /** Whether a planner that can analyse is running (packages/queue/src/planner-presence.ts). */
  plannerPresence: PlannerPresence;
  /** Failing / recovered / auto-paused state changes and their notifications; never rejects. */
  notificationEvents?: NotificationEvents;
  /** Stores a successful run's next planned run with it (nextRunAfter); false: the scheduler plans every one. */
  planNextRun?: boolean;
  /** Tells the scheduler to recompute endpoints a response rule asked to run (runEndpoint). */
  replan?: (endpointIds: string[]) => Promise<void>;
  /** Hears a runEndpoint request that could not be written (its runs are recorded all the same). */
  onChainError?: (error: Error) => void;
}

/**
 * Record batches written at once: one. What finishes while a batch is written waits for the next, so
 * at saturation a batch carries more runs for the same statements and scripts: against two, at 5,000
 * endpoints at 1 s on 2 cores, 7 % more executions/s at 0.488 against 0.524 CPU-ms each, with the
 * record phase as long (docs/decisions/0005-recorder-writes-one-batch-at-a-time.md). At low
 * rates a batch is written on the next turn of the event loop either way (group-commit.ts).
 */
export const RECORD_BATCHES_AT_ONCE = 1;

export class RunRecorder {
  private readonly batches: GroupCommit<FinishedExecution, boolean>;

  constructor(
    private readonly deps: RunRecorderDeps,
    options: { maxBatch?: number; maxParallel?: number } = {},
  ) {
    this.batches = new GroupCommit((items) => this.write(items), {
      maxBatch: options.maxBatch ?? 200,
      maxParallel: options.maxParallel ?? RECORD_BATCHES_AT_ONCE,
      isItemFailure,
    });
  }

  /**
   * Records one finished execution: the run as stored (the record_error version when PostgreSQL
   * refused it) and whether this delivery recorded it (false: a retry of a recorded run). Rejects
   * only when neither the run nor its record_error could be written; the outcome is then stashed
   * for the next delivery and the lock freed.
   */
  async record(execution: FinishedExecution): Promise<{ run: RunOutcome; firstDelivery: boolean }> {
    let failure: unknown;
    try {
      return { run: execution.run, firstDelivery: await this.batches.submit(execution) };
    } catch (error) {
      failure = error;
    }
    if (isItemFailure(failure)) {
      const run = asRecordError(execution.run, failure);
      try {
        return { run, firstDelivery: await this.batches.submit({ ...execution, run }) };
      } catch (error) {
        failure = error;
      }
    }
    // One write: the outcome kept for the next delivery, and the lock freed for it. When Redis is
    // down too, the next delivery calls again (the at-least-once window, docs/invariants.md).
    const pipeline = this.deps.redis.pipeline();
    this.deps.stash.saveIn(pipeline, execution.run);
    this.deps.lock.releaseIn(pipeline, execution.run.endpointId, execution.run.id, execution.scheduleVersion);
    await pipeline.exec().catch(() => undefined);
    throw failure;
  }

  /**
   * Records a Test now run (source "test": no running lock, no scheduling state) and counts it
   * against the quota. PostgreSQL refusing it records it as record_error: the caller still gets
   * its outcome. Returns the run as stored.
   */
  async recordTest(run: RunOutcome): Promise<RunOutcome> {
    let stored = run;
    try {
      await recordTestRun(this.deps.db, stored);
    } catch (error) {
      if (!isItemFailure(error)) throw error;
      stored = asRecordError(run, error);
      await recordTestRun(this.deps.db, stored);
    }
    await this.deps.runQuota.count(stored.accountId, stored.startedAt);
    return stored;
  }

  /** Frees the lock of an admitted execution that ends without a run (its call threw). */
  async abandon(endpointId: string, runId: string, scheduleVersion: number): Promise<void> {
    await this.deps.lock.release(endpointId, runId, scheduleVersion);
  }

  private async write(items: FinishedExecution[]): Promise<boolean[]> {
    const { db, redis, lock, runQuota, stash } = this.deps;
    const now = new Date();
    const runs = items.map(({ run, target, scheduleVersion, isReplay }) => {
      const plans = this.deps.planNextRun !== false && target && !isReplay;
      const nextRun = plans ? nextRunAfter(target, run, scheduleVersion, now) : null;
      return nextRun ? { ...run, nextRun } : run;
    });
    const { ids: recorded, transitionCandidates, planned } = await recordScheduledRuns(db, runs);
    // Recorded by this delivery or an earlier one: the mark refuses a later due job of the same run.
    const finished = items.map(({ run, isReplay, scheduleVersion }) => ({
      keys: {
        lock: lock.key(run.endpointId),
        quota: runQuota.key(run.accountId, run.startedAt),
        stash: stash.key(run.id),
      },
      args: {
        holder: lock.holder(run.id, scheduleVersion),
        mark: lock.recordedMark(run.id),
        markMs: LOCK_MARGIN_MS,
        count: recorded.has(run.id) ? 1 : 0,
        forget: isReplay ? 1 : 0,
      },
    }));
    const events = items.map(({ run, scheduleVersion, traceparent }, index) => ({
      name: 'completed',
      data: {
        runId: run.id,
        endpointId: run.endpointId,
        accountId: run.accountId,
        status: run.status,
        source: run.source,
        scheduleVersion,
        // A response rule asked for an analysis now (the planner still applies its spacing and budget).
        ...(run.ruleOutcome?.analyse ? { analyse: true } : {}),
        ...plannedOf(runs[index]!, planned.get(run.id)),
        ...traceContextOf(traceparent),
      } satisfies RunCompletedPayload,
    }));
    // The planner hears only of accounts with AI scheduling on (it re-checks the setting itself),
    // and only while a planner that can analyse runs (no model: ≈30 Redis commands per run for nothing).
    const forPlanner = (await this.deps.plannerPresence.isPresent())
      ? events.filter((_, index) => items[index]!.aiSchedulingEnabled)
      : [];
    await Promise.all([
      FINISH.run(redis, finished),
      this.deps.runCompleted.add('completed', { runs: events.map((event) => event.data) }),
      forPlanner.length > 0 ? this.deps.runCompletedForPlanner.addBulk(forPlanner) : undefined,
      // Only endpoints that failed or are marked failing can change state: a batch of successes on
      // healthy endpoints costs no transition statement (0.5–1 PostgreSQL statement per run at 500/s).
      this.deps.notificationEvents?.afterRecorded(transitionCandidates),
      this.startChainRuns(items, recorded),
    ]);
    return items.map(({ run }) => recorded.has(run.id));
  }

  /**
   * Runs the endpoints the batch's runEndpoint rules name (one statement, only when a run asks:
   * chainRuns), then has the scheduler plan them. Runs recorded by an earlier delivery asked already.
   * Never rejects: the batch's runs are committed whatever happens here. A statement that committed
   * left its rows schedule-dirty (the reconcile sweep plans them if the publish is lost); one that
   * failed is a chain run not made, reported to onChainError.
   */
  private async startChainRuns(items: FinishedExecution[], recorded: Set<string>): Promise<void> {
    const asking = items.flatMap(({ run }) =>
      (run.ruleOutcome?.runEndpoints.length ?? 0) > 0 && recorded.has(run.id) ? [run] : [],
    );
    if (asking.length === 0) return;
    try {
      const asked = await chainRuns(this.deps.db, asking);
      if (asked.length > 0) await this.deps.replan?.(asked);
    } catch (error) {
      this.deps.onChainError?.(error as Error);
    }
  }
}

/** run-completed's `planned`: the next run the record statement stored with this run (at `version`). */
function plannedOf(run: RunOutcome, version: number | undefined): Pick<RunCompletedPayload, 'planned'> {
  if (version === undefined || !run.nextRun) return {};
  const { runId, scheduledAt, source } = run.nextRun;
  return { planned: { scheduleVersion: version, runId, scheduledAtMs: scheduledAt.getTime(), source } };
}

/**
 * The run as it can be recorded when PostgreSQL refused it: failed, kind record_error, without the
 * body (the usual culprit), with the database's reason made storable (core's toStorableText: it may quote
 * the very U+0000 or lone surrogate that was refused).
 */
function asRecordError(run: RunOutcome, error: unknown): RunOutcome {
  const reason = toStorableText(error instanceof Error ? error.message : String(error));
  return {
    ...run,
    status: 'failed',
    responseBody: null,
    responseFormat: null,
    responseTruncated: false,
    errorKind: 'record_error',
    errorMessage: `the run could not be recorded as it came back (${reason}); its response body was dropped`,
  };
}
