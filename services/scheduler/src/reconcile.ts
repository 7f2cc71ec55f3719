/**
 * The reconcile sweep: PostgreSQL is the source of truth, Redis holds derived state. At start and
 * every `intervalMs`, one scheduler replica (a PostgreSQL advisory lock elects it):
 *  1. recomputes endpoints whose stored schedule disagrees with their state (a change whose
 *     notification was lost; an active endpoint with nothing scheduled; a stopped one still scheduled);
 *  2. re-adds every pending execution missing from Redis (after FLUSHALL, all of them) from the
 *     stored nextRunAt / nextRunId / nextRunSource, under the same run id. Overdue ones are added
 *     with no delay: each runs once.
 * Pages of 2,000 endpoints: one EXISTS pipeline and, for the missing ones, one locked re-add.
 * A row that fails alone is skipped (sweep-chunk.ts) and the sweep repairs everyone else.
 */
import type { Database } from '@kairos/db';
import {
  listEndpointsNeedingRecompute,
  listPendingExecutions,
  withAdvisoryLock,
  withLockedPendingExecutions,
} from '@kairos/db';
import { dueJobId } from '@kairos/queue';
import { metrics, type Logger } from '@kairos/runtime';
import type { DueQueue } from './due-queue.js';
import { PeriodicTask } from './periodic.js';
import { sweepChunk } from './sweep-chunk.js';

const PAGE_SIZE = 2000;
const RECOMPUTE_CHUNK = 200;
/** Arbitrary constant naming the reconcile leadership lock. */
const RECONCILE_LOCK_KEY = 0x6b616972; // 'kair'

export interface ReconcileReport {
  checked: number;
  restored: number;
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
    const { db, dueQueue, logger, now } = this.options;
    const startedAt = Date.now();
    const chunkOptions = { logger, sweep: 'reconcile' as const };
    let recomputed = 0;
    const skippedIds: string[] = [];
    for (;;) {
      const ids = await listEndpointsNeedingRecompute(db, now(), this.options.dirtyGraceMs, PAGE_SIZE, skippedIds);
      // In transactions of RECOMPUTE_CHUNK rows, so a large repair never holds thousands of row locks.
      for (let start = 0; start < ids.length; start += RECOMPUTE_CHUNK) {
        const chunk = ids.slice(start, start + RECOMPUTE_CHUNK);
        const skipped = await sweepChunk(chunk, (part) => this.options.recompute(part).then(() => undefined), {
          ...chunkOptions,
          idOf: (id) => id,
        });
        skippedIds.push(...skipped);
        recomputed += chunk.length - skipped.length;
      }
      if (ids.length < PAGE_SIZE) break;
    }

    let checked = 0;
    let restored = 0;
    let afterId: string | null = null;
    for (;;) {
      const page = await listPendingExecutions(db, afterId, PAGE_SIZE);
      if (page.length === 0) break;
      afterId = page[page.length - 1]!.id;
      checked += page.length;
      const present = await dueQueue.existing(page.map((row) => dueJobId(row.id, row.scheduleVersion)));
      const missing = page.filter((row) => !present.has(dueJobId(row.id, row.scheduleVersion)));
      if (missing.length > 0) {
        const skipped = await sweepChunk(
          missing,
          async (part) => {
            restored += await withLockedPendingExecutions(db, part, async (locked) => {
              await dueQueue.addMany(
                locked.map((row) => ({
                  endpointId: row.id,
                  accountId: row.accountId,
                  scheduleVersion: row.scheduleVersion,
                  runId: row.nextRunId,
                  scheduledAt: row.nextRunAt,
                  source: row.nextRunSource,
                })),
                now(),
              );
              return locked.length;
            });
          },
          { ...chunkOptions, idOf: (row) => row.id },
        );
        skippedIds.push(...skipped.map((row) => row.id));
      }
      if (page.length < PAGE_SIZE) break;
    }
    const report = { checked, restored, recomputed, skipped: skippedIds.length, durationMs: Date.now() - startedAt };
    metrics.reconcileRepairs.inc({ kind: 'restored' }, restored);
    metrics.reconcileRepairs.inc({ kind: 'recomputed' }, recomputed);
    if (restored > 0 || recomputed > 0 || skippedIds.length > 0) logger.info('reconcile repaired the schedule', report);
    return report;
  }
}
