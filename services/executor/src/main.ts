import { createDatabase } from '@kairos/db';
import { QUEUES, createRedisConnection } from '@kairos/queue';
import { createLogger, resolveMasterKey, startServiceHealth } from '@kairos/runtime';
import { Queue } from 'bullmq';
import { loadExecutorConfig, type ExecutorConfig } from './config.js';
import { Executor } from './executor.js';

let config: ExecutorConfig;
let masterKey: Buffer;
const logger = createLogger('executor', process.env.LOG_LEVEL ?? 'info');
try {
  config = loadExecutorConfig();
  masterKey = resolveMasterKey({
    value: config.KAIROS_MASTER_KEY,
    nodeEnv: process.env.NODE_ENV,
    warn: (message) => logger.warn(message),
  });
} catch (error) {
  console.error((error as Error).message);
  process.exit(78);
}
const db = createDatabase({
  url: config.DATABASE_URL,
  poolMax: config.DATABASE_POOL_MAX ?? Math.min(Math.ceil(config.EXECUTOR_CONCURRENCY / 8) + 5, 30),
});
const executor = new Executor({
  db,
  connect: () => createRedisConnection(config.REDIS_URL),
  prefix: config.KAIROS_QUEUE_PREFIX,
  logger,
  concurrency: config.EXECUTOR_CONCURRENCY,
  egress: { allowPrivateTargets: config.KAIROS_ALLOW_PRIVATE_TARGETS, allowCidrs: config.KAIROS_ALLOWED_TARGET_CIDRS },
  masterKey,
});

// Probes and queue counts use their own fail-fast connection: a probe must answer "unavailable",
// not wait for Redis to come back.
const probeRedis = createRedisConnection(config.REDIS_URL, { maxRetriesPerRequest: 1 });
probeRedis.on('error', () => undefined);
const observedQueues = [QUEUES.due, QUEUES.testRuns].map(
  (name) => new Queue(name, { connection: probeRedis, prefix: config.KAIROS_QUEUE_PREFIX }),
);
let started = false;
const health = await startServiceHealth({
  service: 'executor',
  port: config.EXECUTOR_HEALTH_PORT,
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

/**
 * SIGTERM (a rolling restart): readiness turns 503, the workers take no new job, in-flight
 * executions finish within EXECUTOR_SHUTDOWN_TIMEOUT_MS; past it they are handed back to the queue
 * under their run ids (another executor retries them) and the process exits without waiting.
 */
const shutdown = (signal: string) => {
  const startedAtMs = Date.now();
  health.markShuttingDown();
  logger.info('shutting down: finishing in-flight executions', {
    signal,
    inFlight: executor.inFlightCount,
    timeoutMs: config.EXECUTOR_SHUTDOWN_TIMEOUT_MS,
  });
  executor
    .close({ timeoutMs: config.EXECUTOR_SHUTDOWN_TIMEOUT_MS })
    .then(async ({ released }) => {
      logger.info('executor stopped', { released, durationMs: Date.now() - startedAtMs });
      if (released > 0) process.exit(0);
      await Promise.all(observedQueues.map((queue) => queue.close()));
      probeRedis.disconnect();
      await health.close();
      await db.close();
    })
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

await executor.start();
started = true;
logger.info('executor started', { concurrency: config.EXECUTOR_CONCURRENCY });
