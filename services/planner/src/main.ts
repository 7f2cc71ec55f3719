import { createDatabase } from '@kairos/db';
import { createRedisConnection } from '@kairos/queue';
import { createLogger, startServiceHealth } from '@kairos/runtime';
import { loadPlannerConfig, type PlannerConfig } from './config.js';
import { Planner } from './planner.js';

let config: PlannerConfig;
try {
  config = loadPlannerConfig();
} catch (error) {
  console.error((error as Error).message);
  process.exit(78);
}
const logger = createLogger('planner', config.LOG_LEVEL);
const db = createDatabase({ url: config.DATABASE_URL, poolMax: Math.min(config.PLANNER_CONCURRENCY * 2 + 3, 40) });
const planner = new Planner({
  db,
  connect: () => createRedisConnection(config.REDIS_URL),
  prefix: config.KAIROS_QUEUE_PREFIX,
  logger,
  model: config.ANTHROPIC_API_KEY
    ? {
        apiKey: config.ANTHROPIC_API_KEY,
        baseURL: config.ANTHROPIC_BASE_URL,
        model: config.PLANNER_MODEL,
        maxRetries: config.PLANNER_MODEL_MAX_RETRIES,
      }
    : null,
  concurrency: config.PLANNER_CONCURRENCY,
  minAnalysisIntervalMs: config.PLANNER_MIN_ANALYSIS_INTERVAL_MS,
  timeoutMs: config.PLANNER_TIMEOUT_MS,
  maxSteps: config.PLANNER_MAX_STEPS,
});

// Probes use their own fail-fast connection. Without an API key the planner is still ready: it
// drains its queue (degraded mode), which is what keeps that queue from growing.
const probeRedis = createRedisConnection(config.REDIS_URL, { maxRetriesPerRequest: 1 });
probeRedis.on('error', () => undefined);
let started = false;
const health = await startServiceHealth({
  service: 'planner',
  port: config.PLANNER_HEALTH_PORT,
  checks: {
    postgres: () => db.pool.query('SELECT 1'),
    redis: () => probeRedis.ping(),
    workers: async () => {
      if (!started) throw new Error('workers not started');
    },
  },
  metricsToken: config.KAIROS_METRICS_TOKEN,
  logger,
});

const shutdown = (signal: string) => {
  logger.info('shutting down', { signal });
  health.markShuttingDown();
  planner
    .close()
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

await planner.start();
started = true;
logger.info('planner started', {
  model: planner.isEnabled ? config.PLANNER_MODEL : null,
  concurrency: config.PLANNER_CONCURRENCY,
  minAnalysisIntervalMs: config.PLANNER_MIN_ANALYSIS_INTERVAL_MS,
});
