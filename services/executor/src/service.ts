import { createDatabase } from '@kairos/db';
import { QUEUES, createRedisConnection, openQueueProbe, queueShardsOf, redisTargetOf } from '@kairos/queue';
import { createLogger, loadConfigOrExit, resolveMasterKey, runWorkerService } from '@kairos/runtime';
import { loadExecutorConfig } from './config.js';
import { Executor } from './queue-workers.js';

const config = loadConfigOrExit(() => loadExecutorConfig());
const logger = createLogger('executor', config.LOG_LEVEL);
const masterKey = loadConfigOrExit(() =>
  resolveMasterKey({
    value: config.KAIROS_MASTER_KEY,
    file: config.KAIROS_MASTER_KEY_FILE,
    nodeEnv: config.NODE_ENV,
    warn: (message) => logger.warn(message),
  }),
);
const db = createDatabase({
  url: config.DATABASE_URL,
  // 18 at the default 200 slots: the per-run statements go in batches (two admission and two record
  // batches at once at most), so the pool grows far slower than the slots.
  poolMax: config.DATABASE_POOL_MAX ?? Math.min(Math.ceil(config.EXECUTOR_CONCURRENCY / 16) + 5, 30),
});
const executor = new Executor({
  db,
  connect: () => createRedisConnection(redisTargetOf(config)),
  prefix: config.KAIROS_QUEUE_PREFIX,
  shards: queueShardsOf(config),
  ...(config.KAIROS_EXECUTOR_SHARDS ? { consumeShards: config.KAIROS_EXECUTOR_SHARDS } : {}),
  logger,
  concurrency: config.EXECUTOR_CONCURRENCY,
  responseMemoryMb: config.EXECUTOR_RESPONSE_MEMORY_MB,
  planNextRun: config.EXECUTOR_PLAN_NEXT_RUN,
  egress: { allowPrivateTargets: config.KAIROS_ALLOW_PRIVATE_TARGETS, allowCidrs: config.KAIROS_ALLOWED_TARGET_CIDRS },
  masterKey,
  notifications: {
    smtp: config.KAIROS_SMTP_URL ? { url: config.KAIROS_SMTP_URL, from: config.KAIROS_SMTP_FROM } : null,
    retryBaseMs: config.KAIROS_NOTIFICATION_RETRY_BASE_MS,
  },
});

const { probeRedis, queues: observedQueues } = openQueueProbe(config, [QUEUES.due, QUEUES.testRuns]);

await runWorkerService({
  service: 'executor',
  logger,
  healthPort: config.EXECUTOR_HEALTH_PORT,
  metricsToken: config.KAIROS_METRICS_TOKEN,
  checks: { postgres: () => db.pool.query('SELECT 1'), redis: () => probeRedis.ping() },
  queues: observedQueues,
  start: () => executor.start(),
  /**
   * A rolling restart: the workers take no new job and in-flight executions finish within
   * EXECUTOR_SHUTDOWN_TIMEOUT_MS; past it they are handed back to the queue under their run ids
   * (another executor retries them) and the process exits without waiting.
   */
  stop: async () => {
    const startedAtMs = Date.now();
    logger.info('shutting down: finishing in-flight executions', {
      inFlight: executor.inFlightCount,
      timeoutMs: config.EXECUTOR_SHUTDOWN_TIMEOUT_MS,
    });
    const { released } = await executor.close({ timeoutMs: config.EXECUTOR_SHUTDOWN_TIMEOUT_MS });
    logger.info('executor stopped', { released, durationMs: Date.now() - startedAtMs });
    return { exitNow: released > 0 };
  },
  cleanup: async () => {
    await Promise.all(observedQueues.map((queue) => queue.close()));
    probeRedis.disconnect();
    await db.close();
  },
  startedDetails: {
    concurrency: config.EXECUTOR_CONCURRENCY,
    responseMemoryMb: config.EXECUTOR_RESPONSE_MEMORY_MB,
    queueShards: config.KAIROS_QUEUE_SHARDS,
    consumedShards: config.KAIROS_EXECUTOR_SHARDS ?? 'all',
  },
});
