/**
 * The reconcile sweep: PostgreSQL is the source of truth, Redis holds derived state. At start and
 * every `intervalMs`, one scheduler replica (a PostgreSQL advisory lock elects it):
 *  1. recomputes endpoints whose stored schedule disagrees with their state (a change whose
 *     notification was lost; an active endpoint with nothing scheduled; a stopped one still scheduled);
 *  2. re-adds every planned run's due job missing from Redis (after FLUSHALL, all of them) from the
 *     stored nextRunAt / nextRunId / nextRunSource, under the same run id. Overdue ones are added
 *     with no delay: each runs once. One whose run is already recorded is recomputed instead (it
 *     ran; only its recompute was lost), so a slot that has its run is never called again.
 *  3. during a reshard (KAIROS_QUEUE_SHARDS_PREVIOUS set), moves each due job still waiting on the
 *     endpoint's previous shard to its new one: removed there only if not executing, then re-added
 *     like a missing one (due-queue.ts takeFromPreviousShards); one executing is left to finish.
 * Pages of 2,000 endpoints in id order (an index range scan each), a few repaired at once: one
 * existence script per shard and, for the missing ones, one locked re-add (due-queue.ts).
 * A row that fails alone is skipped (sweep-chunk.ts) and the sweep repairs everyone else.
 */
import type { Database } from '@kairos/db';
import {
  listEndpointsNeedingRecompute,
  listPlannedRuns,
  listRecordedRunIds,
  type PlannedRunsPage,
  withAdvisoryLock,
  withLockedPlannedRuns,
  type PlannedRun,
} from '@kairos/db/system';
import { dueJobId } from '@kairos/queue';
import { metrics, type Logger } from '@kairos/runtime';
import type { DueQueue } from './due-queue.js';
import { PeriodicTask } from './periodic.js';
import { sweepChunk } from './sweep-chunk.js';

const PAGE_SIZE = 2000;
/**
 * Pages repaired at once: three, so PostgreSQL (the locked re-read), Redis (the existence check, the
 * bulk add) and this process (the page's script arguments) each have a page to work on. Not tuned on a quiet machine:
 * docs/decisions/0014-reconcile-pages-by-primary-key.md has the loaded-machine figures.
 */
const PAGES_IN_FLIGHT = 3;
const RECOMPUTE_CHUNK = 200;
/** Arbitrary constant naming the reconcile leadership lock. */
const RECONCILE_LOCK_KEY = 0x6b616972; // 'kair'

export interface ReconcileReport {
  checked: number;
  restored: number;
  /** Of the restored: due jobs moved from their previous shard during a reshard. */
  moved: number;
  recomputed: number;
  /** Rows that failed alone and were left as they were (logged, kairos_sweep_item_failures_total). */
  skipped: number;
  durationMs: number;
}

export interface ReconcilerOptions {
  db: Database;
  dueQueue: DueQueue;
  logger: Logger;
  recompute: (endpointIds: string[]) => Promise<unknown>;
  intervalMs: number;
  dirtyGraceMs: number;
  now: () => Date;
}

export class Reconciler {
  private readonly task: PeriodicTask;

  constructor(private readonly options: ReconcilerOptions) {
    this.task = new PeriodicTask(
      () => this.runIfLeader(),
      options.intervalMs,
      (error) => options.logger.error('reconcile failed', { error: error.message }),
    );
  }

  /** Sweeps once now, then every intervalMs. */
  start(): Promise<void> {
    return this.task.start({ runNow: true });
  }

  stop(): Promise<void> {
    return this.task.stop();
  }

  /** Runs a sweep when no other replica is running one. Returns null when another replica leads. */
  runIfLeader(): Promise<ReconcileReport | null> {
    return withAdvisoryLock(this.options.db, RECONCILE_LOCK_KEY, () => this.sweep());
  }

  /** One full sweep (see the file's doc block). */
  async sweep(): Promise<ReconcileReport> {
    const { db, logger } = this.options;
    const startedAt = Date.now();
    const skippedIds: string[] = [];
    let recomputed = 0;
    for (;;) {
      const ids = await listEndpointsNeedingRecompute(
        db,
        this.options.now(),
        this.options.dirtyGraceMs,
        PAGE_SIZE,
        skippedIds,
      );
      recomputed += await this.recompute(ids, skippedIds);
      if (ids.length < PAGE_SIZE) break;
    }

    let checked = 0;
    let restored = 0;
    // Pages are read one after the other (keyset paging) and repaired PAGES_IN_FLIGHT at a time, so
    // PostgreSQL reads the next pages while Redis checks and re-adds the previous ones.
    const repairs: Promise<void>[] = [];
    const inFlight = new Set<Promise<void>>();
    let moved = 0;
    let afterId: string | null = null;
    try {
      do {
        const page: PlannedRunsPage = await listPlannedRuns(db, afterId, PAGE_SIZE);
        afterId = page.nextAfterId;
        checked += page.planned.length;
        const repair = this.repairPage(page.planned, skippedIds).then((counts) => {
          restored += counts.restored;
          recomputed += counts.recomputed;
          moved += counts.moved;
        });
        repairs.push(repair);
        inFlight.add(repair);
        repair.then(
          () => inFlight.delete(repair),
          () => inFlight.delete(repair),
        );
        if (inFlight.size >= PAGES_IN_FLIGHT) await Promise.race(inFlight);
      } while (afterId !== null);
    } finally {
      // A sweep that fails (an outage) still waits for its pages in flight before it ends.
      await Promise.allSettled(repairs);
    }
    await Promise.all(repairs);
    const report = {
      checked,
      restored,
      moved,
      recomputed,
      skipped: skippedIds.length,
      durationMs: Date.now() - startedAt,
    };
    metrics.reconcileRepairs.inc({ kind: 'restored' }, restored);
    metrics.reconcileRepairs.inc({ kind: 'recomputed' }, recomputed);
    if (restored > 0 || recomputed > 0 || skippedIds.length > 0) logger.info('reconcile repaired the schedule', report);
    return report;
  }

  /**
   * One page's planned runs: re-adds those whose due job is missing, or recomputes those whose run
   * is already recorded (re-adding would call the endpoint again for a slot that has its run: only
   * its recompute was lost).
   */
  private async repairPage(
    page: PlannedRun[],
    skippedIds: string[],
  ): Promise<{ restored: number; recomputed: number; moved: number }> {
    const { dueQueue, db } = this.options;
    if (page.length === 0) return { restored: 0, recomputed: 0, moved: 0 };
    const present = await dueQueue.existing(page);
    const absent = page.filter((run) => !present.has(dueJobId(run.endpointId, run.scheduleVersion)));
    if (absent.length === 0) return { restored: 0, recomputed: 0, moved: 0 };
    // A reshard: the job may wait on the previous shard (taken from there to be re-added below) or
    // execute there (held: left alone, never added twice).
    const taken = await dueQueue.takeFromPreviousShards(absent);
    const missing = absent.filter((run) => !taken.held.has(dueJobId(run.endpointId, run.scheduleVersion)));
    const ran = await listRecordedRunIds(
      db,
      missing.map((run) => run.runId),
    );
    return {
      moved: taken.moved.size,
      recomputed: await this.recompute(
        missing.filter((run) => ran.has(run.runId)).map((run) => run.endpointId),
        skippedIds,
      ),
      restored: await this.restore(
        missing.filter((run) => !ran.has(run.runId)),
        skippedIds,
      ),
    };
  }

  /**
   * Recomputes endpoints in transactions of RECOMPUTE_CHUNK rows (a large repair never holds
   * thousands of row locks); a row that fails alone joins `skippedIds`. Returns the rows recomputed.
   */
  private async recompute(ids: string[], skippedIds: string[]): Promise<number> {
    let recomputed = 0;
    for (let start = 0; start < ids.length; start += RECOMPUTE_CHUNK) {
      const chunk = ids.slice(start, start + RECOMPUTE_CHUNK);
      const skipped = await sweepChunk(chunk, (part) => this.options.recompute(part).then(() => undefined), {
        sweep: 'reconcile',
        logger: this.options.logger,
        idOf: (id) => id,
      });
      skippedIds.push(...skipped);
      recomputed += chunk.length - skipped.length;
    }
    return recomputed;
  }

  /** Re-adds missing due jobs under their rows' locks and run ids; returns the due jobs re-added. */
  private async restore(planned: PlannedRun[], skippedIds: string[]): Promise<number> {
    if (planned.length === 0) return 0;
    const { db, dueQueue } = this.options;
    let restored = 0;
    const skipped = await sweepChunk(
      planned,
      async (part) => {
        restored += await withLockedPlannedRuns(db, part, async (locked) => {
          await dueQueue.addMany(locked);
          return locked.length;
        });
      },
      { sweep: 'reconcile', logger: this.options.logger, idOf: (run) => run.endpointId },
    );
    skippedIds.push(...skipped.map((run) => run.endpointId));
    return restored;
  }
}
