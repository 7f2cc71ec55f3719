/**
 * Admission of planned runs, in batches (a GroupCommit): may this due job's run start now? One query
 * reads every run's endpoint, job status and signing key; the skip rules apply (gone, archived, job
 * not active, stale, slot already recorded, paused); then one Redis script for the whole batch
 * checks each account's monthly runs counter (run-quota.ts) and takes each endpoint's running lock
 * (running-lock.ts). One at a time this would be three round trips per execution (endpoint, counter,
 * lock); under load it is a fraction of two (docs/decisions/0009-one-redis-script-per-batch.md).
 *
 * The due job names the endpoint and the version its run was planned at (dueJobId); the planned run
 * itself (run id, time, source) is read with the endpoint, from the row, when the versions match:
 * every change of it bumps the version (packages/queue/src/payloads.ts, dueJobData).
 *
 * A run whose call already completed but whose recording failed comes back as a `replay` with its
 * stashed outcome (outcome-stash.ts): the executor records it instead of calling again. A replay
 * skips the quota and lock checks (no call is made) but not the skip rules.
 *
 * The batch may be run again on a part of it (GroupCommit isolates a failing item): every write
 * here is idempotent for one run id (the lock script keeps a lock its own run already holds; a
 * skipped slot is written by value), so a second pass over an item admits it again.
 *
 * Rare cases leave the batch path: a due job newer than its row (the recompute that queued it has
 * not committed yet) is re-read under FOR SHARE, which waits for that commit; a counter missing from
 * Redis (new month, flushed) is counted from PostgreSQL by RunQuota.check.
 */
import { type Database } from '@kairos/db';
import {
  loadExecutionTarget,
  loadExecutionTargets,
  recordSkippedSlot,
  recordSkippedSlots,
  type ExecutionTarget,
  type PlannedRun,
  type RunOutcome,
} from '@kairos/db/system';
import { BatchScript, type DueJobRef, type RedisConnection } from '@kairos/queue';
import { GroupCommit, ItemFailure, isItemFailure } from '@kairos/runtime';
import { OutcomeStash, returnStashedLua } from './outcome-stash.js';
import { COUNTER_MISSING, QUOTA_EXHAUSTED, checkQuotaLua, type RunQuota } from './run-quota.js';
import { executionBudgetMs } from './retry-policy.js';
import { admitLockLua, type RunningLock } from './running-lock.js';

export type SkipReason =
  | 'missing'
  | 'archived'
  | 'job-not-active'
  | 'stale'
  | 'recorded'
  | 'paused'
  | 'overlap'
  | 'quota'
  | 'account-disabled';

export type Admission =
  | { kind: 'admitted'; target: ExecutionTarget; planned: PlannedRun }
  | { kind: 'replay'; target: ExecutionTarget; planned: PlannedRun; run: RunOutcome }
  | { kind: 'skipped'; reason: SkipReason };

/**
 * The admission script, one for the batch's candidates (BatchScript). Per candidate it returns the
 * stashed outcome (a string) when there is one, else COUNTER_MISSING or QUOTA_EXHAUSTED
 * (run-quota.ts), 0 another run holds the lock, 1 admitted; or an error where Redis refused its keys.
 */
const ADMIT = new BatchScript(
  { quota: 1, lock: 2, stash: 3 },
  { limit: 1, holder: 2, leaseMs: 3 },
  (k, a) => `${returnStashedLua(`${k} + 3`)}
${checkQuotaLua(`${k} + 1`, `${a} + 1`)}
${admitLockLua(`${k} + 2`, `${a} + 2`, `${a} + 3`)}`,
);

/** Why the due job's run may not start (null: it may); `planned` is plannedRunOf(target). */
export function skipReason(
  target: ExecutionTarget | null,
  planned: PlannedRun | null,
  due: DueJobRef,
): SkipReason | null {
  if (!target) return 'missing';
  if (target.archivedAt) return 'archived';
  if (target.jobStatus !== 'active') return 'job-not-active';
  if (target.scheduleVersion !== due.scheduleVersion || !planned) return 'stale';
  // The slot already has its run (recording sets lastScheduledAt): this is the endpoint's current
  // planned run queued again by a recompute that raced the execution, or a retried delivery of a
  // recorded run. Calling would run the slot twice; the executor has the scheduler plan the next.
  if (target.lastScheduledAt && planned.scheduledAt <= target.lastScheduledAt) return 'recorded';
  // Judged at the run's planned time, not the admission's clock: the due job arrives up to the dispatch
  // lead (300 ms) early, and the run at the pause end (planned at pausedUntil) must not be skipped.
  if (target.pausedUntil && target.pausedUntil > planned.scheduledAt) return 'paused';
  return null;
}

/** The planned run stored on the endpoint's row at its current version (null: none is planned). */
export function plannedRunOf(target: ExecutionTarget): PlannedRun | null {
  const { nextRunId, nextRunAt, nextRunSource } = target;
  if (!nextRunId || !nextRunAt || !nextRunSource) return null;
  return {
    endpointId: target.id,
    accountId: target.accountId,
    scheduleVersion: target.scheduleVersion,
    runId: nextRunId,
    scheduledAt: nextRunAt,
    source: nextRunSource,
  };
}

export interface AdmissionDeps {
  db: Database;
  redis: RedisConnection;
  lock: RunningLock;
  /**
   * The running lock of another queue shard, for a due job whose `lockShard` names the shard its
   * predecessor ran on (a reshard in progress: packages/queue/src/shards.ts).
   */
  lockOnShard?: (shard: number) => RunningLock | undefined;
  runQuota: RunQuota;
  stash: OutcomeStash;
  now: () => Date;
}

export class Admissions {
  private readonly batches: GroupCommit<DueJobRef, Admission>;

  constructor(
    private readonly deps: AdmissionDeps,
    options: { maxBatch?: number; maxParallel?: number } = {},
  ) {
    this.batches = new GroupCommit((dues) => this.admitMany(dues), {
      maxBatch: options.maxBatch ?? 200,
      maxParallel: options.maxParallel ?? 2,
      isItemFailure,
    });
  }

  /** Whether the due job's planned run may start now; when admitted, its endpoint's running lock is held. */
  admit(due: DueJobRef): Promise<Admission> {
    return this.batches.submit(due);
  }

  private async admitMany(dues: DueJobRef[]): Promise<Admission[]> {
    const { db, redis, lock, runQuota, stash } = this.deps;
    const now = this.deps.now();
    const loaded = await loadExecutionTargets(
      db,
      dues.map((due) => due.endpointId),
    );
    const targets = await Promise.all(
      dues.map(async (due) => {
        const target = loaded.get(due.endpointId) ?? null;
        // The due job is newer than the row: its recompute has not committed yet. Wait for it.
        if (target && target.scheduleVersion < due.scheduleVersion) {
          return loadExecutionTarget(db, due.endpointId, { waitForSchedule: true });
        }
        return target;
      }),
    );
    // Each row's planned run, read once: the skip rules, the lock checks and the script use it.
    const planned = targets.map((target) => target && plannedRunOf(target));
    const admissions: (Admission | null)[] = dues.map((due, index) => {
      const reason = skipReason(targets[index] ?? null, planned[index] ?? null, due);
      return reason ? { kind: 'skipped', reason } : null;
    });
    await this.releaseRecorded(planned, admissions);
    await this.skipDisabledAccounts(targets, planned, admissions);
    await this.refuseHeldElsewhere(dues, planned, admissions);
    // Not skipped: the row has a target and a planned run at the due job's version.
    const candidates = dues.flatMap((_, index) =>
      admissions[index] ? [] : [{ planned: planned[index]!, index, target: targets[index]! }],
    );
    if (candidates.length === 0) return admissions as Admission[];

    const replies = await ADMIT.run(
      redis,
      candidates.map(({ planned, target }) => ({
        keys: {
          quota: runQuota.key(target.accountId, now),
          lock: lock.key(target.id),
          stash: stash.key(planned.runId),
        },
        args: {
          limit: runQuota.limit(target),
          holder: lock.holder(planned.runId, planned.scheduleVersion),
          // With the endpoint's opt-in retries the lease covers every attempt and wait.
          leaseMs: lock.leaseMs(executionBudgetMs(target)),
        },
      })),
    );
    await Promise.all(
      candidates.map(async ({ planned, index, target }, position) => {
        const reply = replies[position] ?? new Error('no reply');
        try {
          if (reply instanceof Error) throw reply;
          admissions[index] = await this.settle(planned, target, reply, now);
        } catch (failure) {
          // Redis refused this item's keys (e.g. WRONGTYPE): its own fault, so the batch is split.
          throw isReplyError(failure) ? new ItemFailure(`run ${planned.runId}: admission refused`, failure) : failure;
        }
      }),
    );
    return admissions as Admission[];
  }

  /**
   * A due job skipped as `recorded` may still hold its running lock: an executor killed after recording
   * the run but before freeing the lock (one Redis write later) leaves it for timeoutMs + 30 s, and
   * every next slot of the endpoint would be skipped as an overlap until then. The run is recorded,
   * so this delivery frees the lock to the run's recorded mark if its own due job still holds it
   * (compare-and-set, running-lock.ts). Rare: only skipped due jobs, one write for the batch.
   */
  private async releaseRecorded(planned: (PlannedRun | null)[], admissions: (Admission | null)[]): Promise<void> {
    const recorded = planned.flatMap((run, index) => {
      const admission = admissions[index];
      return admission?.kind === 'skipped' && admission.reason === 'recorded' ? [run!] : [];
    });
    if (recorded.length === 0) return;
    const pipeline = this.deps.redis.pipeline();
    for (const planned of recorded) {
      this.deps.lock.releaseRecordedIn(pipeline, planned.endpointId, planned.runId, planned.scheduleVersion);
    }
    await pipeline.exec();
  }

  /**
   * A disabled account (accounts.disabledAt, set by an operator) calls nothing: a run that passed the
   * skip rules is skipped as `account-disabled` and its slot recorded as skipped, as a quota skip is,
   * so the scheduler plans the next slot (not the same overdue one) and enabling the account resumes
   * at it. The flag comes with the target's row (no extra read); the write is one statement for the
   * batch, and only when a disabled account has due jobs in it.
   */
  private async skipDisabledAccounts(
    targets: (ExecutionTarget | null)[],
    planned: (PlannedRun | null)[],
    admissions: (Admission | null)[],
  ): Promise<void> {
    const skipped = planned.flatMap((run, index) => {
      if (admissions[index] || !run || !targets[index]?.accountDisabled) return [];
      admissions[index] = { kind: 'skipped', reason: 'account-disabled' };
      return [{ endpointId: run.endpointId, scheduleVersion: run.scheduleVersion, scheduledAt: run.scheduledAt }];
    });
    await recordSkippedSlots(this.deps.db, skipped);
  }

  /**
   * The overlap policy across a reshard: a due job queued on its endpoint's new shard while the
   * previous execution may still run on the old one carries that shard (`lockShard`); while another
   * run holds the lock there, the job is skipped as an overlap, as it would be on one shard. Chosen
   * over keying the lock outside the shard layout, which would take the lock out of the admission
   * script's slot (one more round trip per execution, always): this read costs one GET per moved
   * due job, during a reshard only. Nothing can take the old lock after this read: the endpoint's
   * one planned run is this job (version check above); older due jobs there are skipped as stale.
   */
  private async refuseHeldElsewhere(
    dues: DueJobRef[],
    planned: (PlannedRun | null)[],
    admissions: (Admission | null)[],
  ): Promise<void> {
    await Promise.all(
      dues.map(async (due, index) => {
        const other = due.lockShard === undefined ? undefined : this.deps.lockOnShard?.(due.lockShard);
        const run = planned[index];
        if (admissions[index] || !other || !run) return;
        if (await other.heldByAnother(run.endpointId, run.runId, run.scheduleVersion)) {
          admissions[index] = { kind: 'skipped', reason: 'overlap' };
        }
      }),
    );
  }

  /** One candidate's admission from its script reply. */
  private async settle(planned: PlannedRun, target: ExecutionTarget, reply: unknown, now: Date): Promise<Admission> {
    const { db, lock, runQuota } = this.deps;
    if (typeof reply === 'string') return { kind: 'replay', target, planned: planned, run: OutcomeStash.parse(reply) };
    let code = Number(reply);
    if (code === COUNTER_MISSING) {
      code =
        (await runQuota.check(target, now)) === 'exhausted'
          ? QUOTA_EXHAUSTED
          : Number(
              await lock.admit(
                target.id,
                planned.runId,
                planned.scheduleVersion,
                lock.leaseMs(executionBudgetMs(target)),
              ),
            );
    }
    if (code === QUOTA_EXHAUSTED) {
      await recordSkippedSlot(db, target.id, planned.scheduleVersion, planned.scheduledAt);
      return { kind: 'skipped', reason: 'quota' };
    }
    return code === 1 ? { kind: 'admitted', target, planned: planned } : { kind: 'skipped', reason: 'overlap' };
  }
}

/** An error reply from Redis to one command (ioredis's ReplyError), as opposed to a lost connection. */
const isReplyError = (error: unknown) => error instanceof Error && error.name === 'ReplyError';
