/**
 * Runs retention sweep (scheduler replicas elect one runner with an advisory lock, like reconcile).
 * Per account: delete runs older than the tier's limit in batches of `batchSize`, pausing between
 * batches so the hot path keeps priority. Bounded per sweep by `maxBatchesPerSweep`.
 */
import { runRetentionDays } from '@kairos/core';
import { deleteRunsBefore, listAccountsForRetention, type Database } from '@kairos/db';
import type { Logger } from '@kairos/runtime';

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
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private stopped = false;

  constructor(private readonly options: RetentionOptions) {}

  start(): void {
    const loop = () => {
      if (this.stopped) return;
      this.timer = setTimeout(() => {
        this.running = this.runIfLeader()
          .catch((error: Error) => this.options.logger.error('retention sweep failed', { error: error.message }))
          .finally(loop);
      }, this.options.intervalMs);
    };
    loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** Returns the number of runs deleted, or null when another replica holds the sweep. */
  async runIfLeader(): Promise<number | null> {
    const client = await this.options.db.pool.connect();
    try {
      const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [
        RETENTION_LOCK_KEY,
      ]);
      if (!rows[0]?.locked) return null;
      try {
        return await this.sweep();
      } finally {
        await client.query('SELECT pg_advisory_unlock($1)', [RETENTION_LOCK_KEY]);
      }
    } finally {
      client.release();
    }
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
        while (batchesLeft > 0) {
          batchesLeft -= 1;
          const count = await deleteRunsBefore(db, account.id, before, batchSize);
          deleted += count;
          if (count < batchSize) break;
          await new Promise((resolve) => setTimeout(resolve, this.options.pauseBetweenBatchesMs ?? 50));
        }
      }
    }
    if (deleted > 0) this.options.logger.info('runs retention deleted old runs', { deleted });
    return deleted;
  }
}
