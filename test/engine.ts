/**
 * The scheduling engine in-process for a test file: a real Scheduler and Executor on the api
 * harness's database and Redis prefix (the same code `pnpm start` runs, minus process wiring).
 * Egress to loopback is allowed (test targets are 127.0.0.1 servers). This harness (like test/api.ts)
 * may import services: it composes them as scripts/start.mjs does; tests under services/<name>/
 * reach another service only through it.
 */
import { createRedisConnection, type QueueShards, type RedisConnection, type RedisTarget } from '@kairos/queue';
import { createLogger, metrics } from '@kairos/runtime';
import { Executor, type ExecutorOptions } from '../services/executor/src/queue-workers.js';
import type { EgressPolicy } from '../services/executor/src/http/index.js';
import { Scheduler } from '../services/scheduler/src/scheduler.js';
import type { ApiHarness } from './api.js';
import { REDIS_URL } from './env.mjs';

export type { Executor } from '../services/executor/src/queue-workers.js';
export type { PlannedRun } from '@kairos/db/system';

export interface EngineOptions {
  redisUrl?: string;
  /** A Redis Cluster instead (test/redis-cluster.ts); wins over redisUrl. */
  redisCluster?: RedisTarget;
  /** Queue shards (packages/queue/src/shards.ts); default one. */
  shards?: QueueShards;
  /** Another queue prefix than the harness's (the api then does not reach this engine). */
  queuePrefix?: string;
  reconcileIntervalMs?: number;
  dirtyGraceMs?: number;
  /** The scheduler's dispatch lead (SCHEDULER_DISPATCH_LEAD_MS); default its default. */
  dispatchLeadMs?: number;
  executorConcurrency?: number;
  /** The executor's response memory (EXECUTOR_RESPONSE_MEMORY_MB); default its default. */
  executorResponseMemoryMb?: number;
  /** Start no executor (tests that inspect the queue). */
  withoutExecutor?: boolean;
  /** The executor's notification delivery settings (SMTP, retry base, sweep interval). */
  notifications?: ExecutorOptions['notifications'];
}

export interface Engine {
  scheduler: Scheduler;
  executor: Executor | null;
  connect(): RedisConnection;
  close(): Promise<void>;
}

export async function startEngine(harness: ApiHarness, options: EngineOptions = {}): Promise<Engine> {
  const logger = engineLogger();
  const target = options.redisCluster ?? { url: options.redisUrl ?? REDIS_URL };
  const connect = () => createRedisConnection(target);
  const scheduler = new Scheduler({
    db: harness.db,
    connect,
    prefix: options.queuePrefix ?? harness.queuePrefix,
    ...(options.shards ? { shards: options.shards } : {}),
    logger,
    concurrency: 20,
    ...(options.dispatchLeadMs === undefined ? {} : { dispatchLeadMs: options.dispatchLeadMs }),
    reconcileIntervalMs: options.reconcileIntervalMs ?? 60_000,
    dirtyGraceMs: options.dirtyGraceMs ?? 5_000,
  });
  await scheduler.start();
  const executor = options.withoutExecutor
    ? null
    : await startExecutor(harness, {
        redisUrl: options.redisUrl,
        ...(options.redisCluster ? { redisCluster: options.redisCluster } : {}),
        ...(options.shards ? { shards: options.shards } : {}),
        ...(options.queuePrefix ? { queuePrefix: options.queuePrefix } : {}),
        concurrency: options.executorConcurrency ?? 20,
        ...(options.executorResponseMemoryMb ? { responseMemoryMb: options.executorResponseMemoryMb } : {}),
        egress: { allowPrivateTargets: false, allowCidrs: ['127.0.0.0/8'] },
        ...(options.notifications ? { notifications: options.notifications } : {}),
      });
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

export interface StartExecutorOptions {
  redisUrl?: string;
  redisCluster?: RedisTarget;
  shards?: QueueShards;
  consumeShards?: number[];
  queuePrefix?: string;
  concurrency: number;
  responseMemoryMb?: number;
  egress: EgressPolicy;
  notifications?: ExecutorOptions['notifications'];
}

/** An executor alone on the harness's database and Redis prefix (started; `close()` it). */
export async function startExecutor(harness: ApiHarness, options: StartExecutorOptions): Promise<Executor> {
  const executor = new Executor({
    db: harness.db,
    connect: () => createRedisConnection(options.redisCluster ?? { url: options.redisUrl ?? REDIS_URL }),
    prefix: options.queuePrefix ?? harness.queuePrefix,
    ...(options.shards ? { shards: options.shards } : {}),
    ...(options.consumeShards ? { consumeShards: options.consumeShards } : {}),
    logger: engineLogger(),
    concurrency: options.concurrency,
    ...(options.responseMemoryMb ? { responseMemoryMb: options.responseMemoryMb } : {}),
    egress: options.egress,
    masterKey: harness.masterKey,
    ...(options.notifications ? { notifications: options.notifications } : {}),
  });
  await executor.start();
  return executor;
}

/** KAIROS_TEST_LOGS=debug shows the engine's logs while debugging a test. */
function engineLogger() {
  const logger = createLogger('engine-test', process.env.KAIROS_TEST_LOGS ?? 'error');
  logger.silent = !process.env.KAIROS_TEST_LOGS;
  return logger;
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

/**
 * Due jobs this process's executors skipped for `reason` so far (kairos_executions_skipped_total):
 * read before and after a scenario, the difference is what that scenario cost.
 */
export async function skippedRuns(reason: string): Promise<number> {
  const { values } = await metrics.executionsSkipped.get();
  return values.find((value) => value.labels.reason === reason)?.value ?? 0;
}
