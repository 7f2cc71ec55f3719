import { createDatabase } from '@kairos/db';
import { QUEUES, createRedisConnection } from '@kairos/queue';
import { createLogger, startServiceHealth } from '@kairos/runtime';
import { Queue } from 'bullmq';
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
const db = createDatabase({
  url: config.DATABASE_URL,
  poolMax: config.DATABASE_POOL_MAX ?? Math.min(Math.ceil(config.SCHEDULER_CONCURRENCY / 8) + 5, 30),
});
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

// Probes and queue counts use their own fail-fast connection. The scheduler reports every queue's
// depth (it always runs, so the KEDA triggers of the executor and planner pools never lose their input).
const probeRedis = createRedisConnection(config.REDIS_URL, { maxRetriesPerRequest: 1 });
probeRedis.on('error', () => undefined);
const observedQueues = Object.values(QUEUES).map(
  (name) => new Queue(name, { connection: probeRedis, prefix: config.KAIROS_QUEUE_PREFIX }),
);
let started = false;
const health = await startServiceHealth({
  service: 'scheduler',
  port: config.SCHEDULER_HEALTH_PORT,
  checks: {
    postgres: () => db.pool.query('SELECT 1'),
    redis: () => probeRedis.ping(),
    workers: async () => {
      if (!started) throw new Error('workers not started');
    },
  },
  queues: observedQueues,
  metricsToken: config.KAIROS_METRICS_TOKEN,
  logger,
});

const shutdown = (signal: string) => {
  logger.info('shutting down', { signal });
  health.markShuttingDown();
  scheduler
    .close()
    .then(() => Promise.all(observedQueues.map((queue) => queue.close())))
    .then(() => {
      probeRedis.disconnect();
      return health.close();
    })
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
started = true;
logger.info('scheduler started', {
  concurrency: config.SCHEDULER_CONCURRENCY,
  reconcileIntervalMs: config.SCHEDULER_RECONCILE_INTERVAL_MS,
});
