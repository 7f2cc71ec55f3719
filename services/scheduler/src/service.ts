import { createDatabase } from '@kairos/db';
import { QUEUES, createProbeConnection, createRedisConnection } from '@kairos/queue';
import { createLogger, loadConfigOrExit, runWorkerService } from '@kairos/runtime';
import { Queue } from 'bullmq';
import { loadSchedulerConfig } from './config.js';
import { Scheduler } from './scheduler.js';

const config = loadConfigOrExit(() => loadSchedulerConfig());
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

// The scheduler reports every queue's depth (it always runs, so the KEDA triggers of the executor
// and planner pools never lose their input).
const probeRedis = createProbeConnection(config.REDIS_URL);
const observedQueues = Object.values(QUEUES).map(
  (name) => new Queue(name, { connection: probeRedis, prefix: config.KAIROS_QUEUE_PREFIX }),
);

await runWorkerService({
  service: 'scheduler',
  logger,
  healthPort: config.SCHEDULER_HEALTH_PORT,
  metricsToken: config.KAIROS_METRICS_TOKEN,
  checks: { postgres: () => db.pool.query('SELECT 1'), redis: () => probeRedis.ping() },
  queues: observedQueues,
  start: () => scheduler.start(),
  stop: () => scheduler.close(),
  cleanup: async () => {
    await Promise.all(observedQueues.map((queue) => queue.close()));
    probeRedis.disconnect();
    await db.close();
  },
  startedDetails: {
    concurrency: config.SCHEDULER_CONCURRENCY,
    reconcileIntervalMs: config.SCHEDULER_RECONCILE_INTERVAL_MS,
  },
});
