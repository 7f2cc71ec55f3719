import { createDatabase } from '@kairos/db';
import { createRedisConnection } from '@kairos/queue';
import { createLogger } from '@kairos/runtime';
import { loadSchedulerConfig, type SchedulerConfig } from './config.js';
import { Scheduler } from './scheduler.js';

let config: SchedulerConfig;
try {
  config = loadSchedulerConfig();
} catch (error) {
  console.error((error as Error).message);
  process.exit(78);
}
const logger = createLogger('scheduler', config.LOG_LEVEL);
const db = createDatabase({ url: config.DATABASE_URL, poolMax: Math.min(config.SCHEDULER_CONCURRENCY + 5, 60) });
const scheduler = new Scheduler({
  db,
  connect: () => createRedisConnection(config.REDIS_URL),
  prefix: config.KAIROS_QUEUE_PREFIX,
  logger,
  concurrency: config.SCHEDULER_CONCURRENCY,
  reconcileIntervalMs: config.SCHEDULER_RECONCILE_INTERVAL_MS,
  dirtyGraceMs: config.SCHEDULER_DIRTY_GRACE_MS,
  retentionIntervalMs: config.SCHEDULER_RETENTION_INTERVAL_MS,
});

const shutdown = (signal: string) => {
  logger.info('shutting down', { signal });
  scheduler
    .close()
    .then(() => db.close())
    .then(
      () => process.exit(0),
      (error: Error) => {
        logger.error('shutdown failed', { error: error.message });
        process.exit(1);
      },
    );
};
process.once('SIGTERM', () => shutdown('SIGTERM'));
process.once('SIGINT', () => shutdown('SIGINT'));

await scheduler.start();
logger.info('scheduler started', {
  concurrency: config.SCHEDULER_CONCURRENCY,
  reconcileIntervalMs: config.SCHEDULER_RECONCILE_INTERVAL_MS,
});
