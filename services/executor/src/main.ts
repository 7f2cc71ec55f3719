import { createDatabase } from '@kairos/db';
import { createRedisConnection } from '@kairos/queue';
import { createLogger, resolveMasterKey } from '@kairos/runtime';
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
  poolMax: Math.min(Math.ceil(config.EXECUTOR_CONCURRENCY / 2) + 5, 60),
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

const shutdown = (signal: string) => {
  logger.info('shutting down: finishing in-flight executions', { signal });
  executor
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

await executor.start();
logger.info('executor started', { concurrency: config.EXECUTOR_CONCURRENCY });
