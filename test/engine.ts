/**
 * The scheduling engine in-process for a test file: a real Scheduler and Executor on the api
 * harness's database and Redis prefix (the same code `pnpm start` runs, minus process wiring).
 * Egress to loopback is allowed (test targets are 127.0.0.1 servers).
 */
import { createRedisConnection } from '@kairos/queue';
import { createLogger } from '@kairos/runtime';
import type { Redis } from 'ioredis';
import { Executor } from '../services/executor/src/executor.js';
import { Scheduler } from '../services/scheduler/src/scheduler.js';
import type { ApiHarness } from './api.js';
import { REDIS_URL } from './env.mjs';

export interface EngineOptions {
  redisUrl?: string;
  reconcileIntervalMs?: number;
  dirtyGraceMs?: number;
  executorConcurrency?: number;
  /** Start no executor (tests that inspect the queue). */
  withoutExecutor?: boolean;
}

export interface Engine {
  scheduler: Scheduler;
  executor: Executor | null;
  connect(): Redis;
  close(): Promise<void>;
}

export async function startEngine(harness: ApiHarness, options: EngineOptions = {}): Promise<Engine> {
  // KAIROS_TEST_LOGS=debug shows the engine's logs while debugging a test.
  const logger = createLogger('engine-test', process.env.KAIROS_TEST_LOGS ?? 'error');
  logger.silent = !process.env.KAIROS_TEST_LOGS;
  const connect = () => createRedisConnection(options.redisUrl ?? REDIS_URL);
  const scheduler = new Scheduler({
    db: harness.db,
    connect,
    prefix: harness.queuePrefix,
    logger,
    concurrency: 20,
    reconcileIntervalMs: options.reconcileIntervalMs ?? 60_000,
    dirtyGraceMs: options.dirtyGraceMs ?? 5_000,
  });
  const executor = options.withoutExecutor
    ? null
    : new Executor({
        db: harness.db,
        connect,
        prefix: harness.queuePrefix,
        logger,
        concurrency: options.executorConcurrency ?? 20,
        egress: { allowPrivateTargets: false, allowCidrs: ['127.0.0.0/8'] },
        masterKey: harness.masterKey,
      });
  await scheduler.start();
  await executor?.start();
  return {
    scheduler,
    executor,
    connect,
    async close() {
      await executor?.close();
      await scheduler.close();
    },
  };
}

/** Polls until `probe` returns a truthy value or the deadline passes (bounded waits only). */
export async function waitFor<T>(
  probe: () => Promise<T | null | undefined | false>,
  timeoutMs: number,
  what: string,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
