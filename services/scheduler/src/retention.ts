/**
 * Runs retention sweep (scheduler replicas elect one runner with an advisory lock, like reconcile).
 * Runs are partitioned by month (packages/db/src/partitions.ts): the sweep creates the partitions
 * of this month and the next two, drops the partitions every run of which started before the
 * longest retention of any account, and deletes in batches of `batchSize` only the runs of accounts
 * whose retention is shorter (plus the DEFAULT partition's old runs, and old analysis sessions of
 * every account), pausing between batches so the hot path keeps priority. Bounded per sweep by
 * `maxBatchesPerSweep`. An account whose deletion fails alone (PostgreSQL refuses it, e.g. a row something else still references)
 * is skipped, logged and counted (sweep-chunk.ts); the other accounts are swept.
 */
import { RUN_RETENTION_DAYS, runRetentionDays } from '@kairos/core';
import { type Database } from '@kairos/db';
import {
  deleteAnalysisSessionsBefore,
  deleteDefaultPartitionRunsBefore,
  deleteRunsBefore,
  dropRunPartitionsBefore,
  ensureRunPartitions,
  listAccountsForRetention,
  listRetentionPolicies,
  withAdvisoryLock,
} from '@kairos/db/system';
import type { Logger } from '@kairos/runtime';
import { PeriodicTask } from './periodic.js';
import { sweepChunk } from './sweep-chunk.js';

const RETENTION_LOCK_KEY = 0x6b616973; // 'kais'
const DAY_MS = 86_400_000;
/** Months with a runs partition beyond the current one: runs reach the DEFAULT partition only after a month without a sweep. */
const PARTITION_MONTHS_AHEAD = 2;

export interface RetentionOptions {
  db: Database;
  logger: Logger;
  intervalMs: number;
  batchSize?: number;
  maxBatchesPerSweep?: number;
  pauseBetweenBatchesMs?: number;
  now: () => Date;
}

export class RetentionSweeper {
  private readonly task: PeriodicTask;

  constructor(private readonly options: RetentionOptions) {
    this.task = new PeriodicTask(
      () => this.runIfLeader(),
      options.intervalMs,
      (error) => options.logger.error('retention sweep failed', { error: error.message }),
    );
  }

  /** First sweep after one interval, then every interval. */
  start(): Promise<void> {
    return this.task.start({ runNow: false });
  }

  stop(): Promise<void> {
    return this.task.stop();
  }

  /** Returns the number of runs deleted, or null when another replica holds the sweep. */
  runIfLeader(): Promise<number | null> {
    return withAdvisoryLock(this.options.db, RETENTION_LOCK_KEY, () => this.sweep());
  }

  async sweep(): Promise<number> {
    const { db, logger, now } = this.options;
    const batchSize = this.options.batchSize ?? 5000;
    let batchesLeft = this.options.maxBatchesPerSweep ?? 200;
    let deleted = 0;
    const pause = () => new Promise((resolve) => setTimeout(resolve, this.options.pauseBetweenBatchesMs ?? 50));

    // Partitions first: a month not created ahead would send its runs to the DEFAULT partition. DDL
    // that cannot get its lock within 5 s (partitions.ts) is retried next sweep; batches still run.
    const policies = await listRetentionPolicies(db);
    // No account yet: keep what the longest tier would.
    const longestDays =
      policies.length > 0
        ? Math.max(...policies.map(({ tier, quotaOverrides }) => runRetentionDays(tier, quotaOverrides)))
        : Math.max(...Object.values(RUN_RETENTION_DAYS));
    const longestBefore = new Date(now().getTime() - longestDays * DAY_MS);
    try {
      const created = await ensureRunPartitions(db, now(), PARTITION_MONTHS_AHEAD);
      if (created.length > 0) logger.info('runs partitions created ahead', { partitions: created });
      const dropped = await dropRunPartitionsBefore(db, longestBefore);
      if (dropped.length > 0) {
        logger.info('runs partitions past the longest retention dropped', {
          partitions: dropped.map(({ name }) => name),
          longestRetentionDays: longestDays,
        });
      }
    } catch (error) {
      logger.error('runs partition maintenance failed; retried next sweep', { error: (error as Error).message });
    }

    let afterId: string | null = null;
    while (batchesLeft > 0) {
      const accounts = await listAccountsForRetention(db, afterId, 500);
      if (accounts.length === 0) break;
      afterId = accounts[accounts.length - 1]!.id;
      for (const account of accounts) {
        const days = runRetentionDays(account.tier, account.quotaOverrides);
        const before = new Date(now().getTime() - days * DAY_MS);
        await sweepChunk(
          [account],
          async () => {
            // Runs of an account at the longest retention go with their month partition (at most a
            // month later); only those in the DEFAULT partition, which is never dropped, go by batches.
            const batched = [
              { counted: false, run: (n: number) => deleteAnalysisSessionsBefore(db, account.id, before, n) },
              days < longestDays
                ? { counted: true, run: (n: number) => deleteRunsBefore(db, account.id, before, n) }
                : { counted: true, run: (n: number) => deleteDefaultPartitionRunsBefore(db, account.id, before, n) },
            ];
            for (const { counted, run } of batched) {
              while (batchesLeft > 0) {
                batchesLeft -= 1;
                const count = await run(batchSize);
                if (counted) deleted += count;
                if (count < batchSize) break;
                await pause();
              }
            }
          },
          { sweep: 'retention', logger, idOf: ({ id }) => id },
        );
      }
    }
    if (deleted > 0) logger.info('runs retention deleted old runs', { deleted });
    return deleted;
  }
}
