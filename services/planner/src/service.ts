import { createDatabase } from '@kairos/db';
import { createProbeConnection, createRedisConnection, queueShardsOf, redisTargetOf } from '@kairos/queue';
import { createLogger, loadConfigOrExit, runWorkerService } from '@kairos/runtime';
import { loadPlannerConfig, modelSettingsOf } from './config.js';
import { Planner } from './planner.js';

const config = loadConfigOrExit(() => loadPlannerConfig());
const logger = createLogger('planner', config.LOG_LEVEL);
const db = createDatabase({
  url: config.DATABASE_URL,
  poolMax: config.DATABASE_POOL_MAX ?? Math.min(config.PLANNER_CONCURRENCY * 2 + 3, 40),
});
const planner = new Planner({
  db,
  connect: () => createRedisConnection(redisTargetOf(config)),
  prefix: config.KAIROS_QUEUE_PREFIX,
  shards: queueShardsOf(config),
  logger,
  model: modelSettingsOf(config),
  concurrency: config.PLANNER_CONCURRENCY,
  minAnalysisIntervalMs: config.PLANNER_MIN_ANALYSIS_INTERVAL_MS,
  timeoutMs: config.PLANNER_TIMEOUT_MS,
  maxSteps: config.PLANNER_MAX_STEPS,
  modelPause: {
    failuresInARow: config.PLANNER_MODEL_PAUSE_AFTER_FAILURES,
    firstPauseMs: config.PLANNER_MODEL_PAUSE_MS,
    longestPauseMs: Math.max(config.PLANNER_MODEL_PAUSE_MS, config.PLANNER_MODEL_PAUSE_MAX_MS),
  },
});

// Without an API key the planner is still ready: it drains its queue (degraded mode), which is
// what keeps that queue from growing.
const probeRedis = createProbeConnection(redisTargetOf(config));

await runWorkerService({
  service: 'planner',
  logger,
  healthPort: config.PLANNER_HEALTH_PORT,
  metricsToken: config.KAIROS_METRICS_TOKEN,
  checks: { postgres: () => db.pool.query('SELECT 1'), redis: () => probeRedis.ping() },
  start: () => planner.start(),
  stop: () => planner.close(),
  cleanup: async () => {
    probeRedis.disconnect();
    await db.close();
  },
  startedDetails: {
    model: planner.isEnabled ? config.PLANNER_MODEL : null,
    concurrency: config.PLANNER_CONCURRENCY,
    minAnalysisIntervalMs: config.PLANNER_MIN_ANALYSIS_INTERVAL_MS,
  },
});
