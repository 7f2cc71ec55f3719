import { createDatabase } from '@kairos/db';
import { QUEUES, createRedisConnection, openQueueProbe, queueShardsOf, redisTargetOf } from '@kairos/queue';
import { createLogger, loadConfigOrExit, runWorkerService } from '@kairos/runtime';
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
  connect: () => createRedisConnection(redisTargetOf(config)),
  prefix: config.KAIROS_QUEUE_PREFIX,
  shards: queueShardsOf(config),
  logger,
  concurrency: config.SCHEDULER_CONCURRENCY,
  dispatchLeadMs: config.SCHEDULER_DISPATCH_LEAD_MS,
  reconcileIntervalMs: config.SCHEDULER_RECONCILE_INTERVAL_MS,
  dirtyGraceMs: config.SCHEDULER_DIRTY_GRACE_MS,
  retentionIntervalMs: config.SCHEDULER_RETENTION_INTERVAL_MS,
});

// The scheduler reports every queue's depth (it always runs, so the KEDA triggers of the executor
// and planner pools never lose their input).
const { probeRedis, queues: observedQueues } = openQueueProbe(config, Object.values(QUEUES));

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
    dispatchLeadMs: config.SCHEDULER_DISPATCH_LEAD_MS,
    queueShards: config.KAIROS_QUEUE_SHARDS,
  },
});
