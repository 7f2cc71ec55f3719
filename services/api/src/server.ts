/**
 * The api service: builds its dependencies from the environment, serves, and shuts down cleanly
 * on SIGTERM/SIGINT (stop accepting, finish in-flight requests, close pools).
 */
import type { AddressInfo } from 'node:net';
import { createDatabase } from '@kairos/db';
import { createRedisConnection, redisTargetOf } from '@kairos/queue';
import { createApp } from './app.js';
import { ApiKeyAuthenticator } from './auth/authenticate.js';
import { announceLocalSignIn } from './auth/local-admin.js';
import { configuredProviders } from './auth/providers.js';
import { loadApiConfig, type ApiConfig } from './config.js';
import { createHttpServer } from './http/http-server.js';
import { createLogger, type Logger } from '@kairos/runtime';
import { metrics, resolveMasterKey, stopTracing } from '@kairos/runtime';
import { createScheduleNotifier } from './schedule-notifier.js';
import { createTestNow } from './test-now.js';

export interface RunningApi {
  url: string;
  close(): Promise<void>;
}

export async function startApi(
  config: ApiConfig,
  logger: Logger = createLogger('api', config.LOG_LEVEL),
  masterKey: Buffer = resolveMasterKeyFromConfig(config, logger),
): Promise<RunningApi> {
  const db = createDatabase({ url: config.DATABASE_URL });
  // Producers fail fast when Redis is down (a lost notification is repaired by the reconcile sweep).
  const redis = createRedisConnection(redisTargetOf(config), {
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    lazyConnect: true,
  });
  redis.on('error', (error) => logger.warn('redis connection error', { error: error.message }));
  await redis.connect();
  const notifier = createScheduleNotifier(db, redis, config.KAIROS_QUEUE_PREFIX, (error) =>
    logger.warn('schedule change not published; the reconcile sweep will repair it', { error: error.message }),
  );
  const apiKeys = new ApiKeyAuthenticator(db, config.KAIROS_AUTH_CACHE_SECONDS * 1000);
  const testNow = createTestNow({
    connection: redis,
    eventsConnection: createRedisConnection(redisTargetOf(config)),
    prefix: config.KAIROS_QUEUE_PREFIX,
    onError: (message, meta) => logger.warn(message, meta),
  });
  const { app, close: closeApp } = createApp({
    config,
    db,
    redis,
    logger,
    notifier,
    apiKeys,
    testNow,
    masterKey,
    now: () => new Date(),
  });

  const server = createHttpServer(app).listen(config.PORT, config.HOST);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  logger.info('api listening', { port, node: process.versions.node });
  if (configuredProviders(config).length === 0) {
    // No identity provider: a one-time sign-in link for the local admin (auth/local-admin.ts).
    await announceLocalSignIn(db, {
      email: config.KAIROS_ADMIN_EMAIL,
      masterKey,
      baseUrl: config.KAIROS_PUBLIC_URL ?? `http://localhost:${port}`,
      now: new Date(),
    }).catch((error: Error) => logger.error('local admin sign-in link not created', { error: error.message }));
  }

  return {
    url,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await closed;
      await closeApp();
      await notifier.close();
      await testNow.close();
      redis.disconnect();
      await db.close();
    },
  };
}

export async function main(): Promise<void> {
  let config: ApiConfig;
  try {
    config = loadApiConfig();
  } catch (error) {
    console.error((error as Error).message);
    process.exit(78);
  }
  const logger = createLogger('api', config.LOG_LEVEL);
  metrics.registry.setDefaultLabels({ service: 'api' });
  let masterKey: Buffer;
  try {
    masterKey = resolveMasterKeyFromConfig(config, logger);
  } catch (error) {
    console.error((error as Error).message);
    process.exit(78);
  }
  const api = await startApi(config, logger, masterKey);
  const shutdown = (signal: string) => {
    logger.info('shutting down', { signal });
    api
      .close()
      .then(stopTracing)
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
}

function resolveMasterKeyFromConfig(config: ApiConfig, logger: Logger): Buffer {
  return resolveMasterKey({
    value: config.KAIROS_MASTER_KEY,
    file: config.KAIROS_MASTER_KEY_FILE,
    nodeEnv: config.NODE_ENV,
    warn: (message) => logger.warn(message),
  });
}
