/**
 * Runs retention sweep (scheduler replicas elect one runner with an advisory lock, like reconcile).
 * Per account: delete runs older than the tier's limit in batches of `batchSize`, pausing between
 * batches so the hot path keeps priority. Bounded per sweep by `maxBatchesPerSweep`. An account
 * whose deletion fails alone (PostgreSQL refuses it, e.g. a row something else still references)
 * is skipped, logged and counted (sweep-chunk.ts); the other accounts are swept.
 */
import { runRetentionDays } from '@kairos/core';
import { type Database } from '@kairos/db';
import { deleteRunsBefore, listAccountsForRetention, withAdvisoryLock } from '@kairos/db/system';
import type { Logger } from '@kairos/runtime';
import { PeriodicTask } from './periodic.js';
import { sweepChunk } from './sweep-chunk.js';

const RETENTION_LOCK_KEY = 0x6b616973; // 'kais'
const DAY_MS = 86_400_000;

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
    const { db, now } = this.options;
    const batchSize = this.options.batchSize ?? 5000;
    let batchesLeft = this.options.maxBatchesPerSweep ?? 200;
    let deleted = 0;
    let afterId: string | null = null;
    while (batchesLeft > 0) {
      const accounts = await listAccountsForRetention(db, afterId, 500);
      if (accounts.length === 0) break;
      afterId = accounts[accounts.length - 1]!.id;
      for (const account of accounts) {
        const before = new Date(now().getTime() - runRetentionDays(account.tier, account.quotaOverrides) * DAY_MS);
        await sweepChunk(
          [account],
          async () => {
            while (batchesLeft > 0) {
              batchesLeft -= 1;
              const count = await deleteRunsBefore(db, account.id, before, batchSize);
              deleted += count;
              if (count < batchSize) break;
              await new Promise((resolve) => setTimeout(resolve, this.options.pauseBetweenBatchesMs ?? 50));
            }
          },
          { sweep: 'retention', logger: this.options.logger, idOf: ({ id }) => id },
        );
      }
    }
    if (deleted > 0) this.options.logger.info('runs retention deleted old runs', { deleted });
    return deleted;
  }
}
