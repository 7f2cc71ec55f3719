/**
 * The end of every scheduled execution, in batches (a GroupCommit): the runs and their endpoints'
 * new state in one SQL statement, then one Redis write that frees the executions' running locks
 * and counts the new runs against the monthly quota, then one bulk add to `run-completed` (and one
 * to `planner-runs` for accounts with AI scheduling on). Per execution that was four to five round
 * trips; under load it is a fraction of one (bench/results.md).
 *
 * Order per execution is unchanged: the run is committed before its lock is freed and before the
 * scheduler hears of it. When the statement fails, the batch's locks are freed and every caller
 * gets the error (its BullMQ job is retried under the same run id, recorded at most once).
 */
import { recordScheduledRuns, type Database, type RunOutcome } from '@kairos/db';
import type { RunCompletedPayload } from '@kairos/queue';
import { GroupCommit } from '@kairos/runtime';
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { RunQuota } from './run-quota.js';
import type { RunningLock } from './running-lock.js';

export interface FinishedExecution {
  run: RunOutcome;
  /** The version of the due job that ran (lets the scheduler skip removing it). */
  scheduleVersion: number;
  aiSchedulingEnabled: boolean;
}

export interface RunRecorderDeps {
  db: Database;
  redis: Redis;
  lock: RunningLock;
  runQuota: RunQuota;
  runCompleted: Queue<RunCompletedPayload>;
  plannerRuns: Queue<RunCompletedPayload>;
}

export class RunRecorder {
  private readonly batches: GroupCommit<FinishedExecution, boolean>;

  constructor(
    private readonly deps: RunRecorderDeps,
    options: { maxBatch?: number; maxParallel?: number } = {},
  ) {
    this.batches = new GroupCommit((items) => this.write(items), {
      maxBatch: options.maxBatch ?? 200,
      maxParallel: options.maxParallel ?? 2,
    });
  }

  /** Records one finished execution; true when this delivery recorded it (false: a retry of a recorded run). */
  record(execution: FinishedExecution): Promise<boolean> {
    return this.batches.submit(execution);
  }

  private async write(items: FinishedExecution[]): Promise<boolean[]> {
    const { db, redis, lock, runQuota } = this.deps;
    let recorded: Set<string>;
    try {
      recorded = await recordScheduledRuns(
        db,
        items.map((item) => item.run),
      );
    } catch (error) {
      await this.releaseLocks(items).catch(() => undefined);
      throw error;
    }
    const pipeline = redis.pipeline();
    for (const { run } of items) {
      lock.releaseIn(pipeline, run.endpointId, run.id);
      if (recorded.has(run.id)) runQuota.recordRunIn(pipeline, run.accountId, run.startedAt);
    }
    const events = items.map(({ run, scheduleVersion }) => ({
      name: 'completed',
      data: {
        runId: run.id,
        endpointId: run.endpointId,
        accountId: run.accountId,
        status: run.status,
        source: run.source,
        scheduleVersion,
      } satisfies RunCompletedPayload,
    }));
    // The planner hears only of accounts with AI scheduling on (it re-checks the setting itself).
    const forPlanner = events.filter((_, index) => items[index]!.aiSchedulingEnabled);
    await Promise.all([
      pipeline.exec(),
      this.deps.runCompleted.addBulk(events),
      forPlanner.length > 0 ? this.deps.plannerRuns.addBulk(forPlanner) : undefined,
    ]);
    return items.map(({ run }) => recorded.has(run.id));
  }

  private async releaseLocks(items: FinishedExecution[]): Promise<void> {
    const pipeline = this.deps.redis.pipeline();
    for (const { run } of items) this.deps.lock.releaseIn(pipeline, run.endpointId, run.id);
    await pipeline.exec();
  }
}
