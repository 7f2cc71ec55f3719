/**
 * The process wiring every worker service (scheduler, executor, planner) shares: configuration that
 * stops the process with a clear message, the health server (/healthz, /readyz, /metrics), and a
 * graceful shutdown on SIGTERM/SIGINT — readiness turns 503, the workers stop taking jobs and finish
 * in-flight work, connections close, the process exits 0 (1 if shutting down failed).
 */
import { startServiceHealth } from './health-server.js';
import type { Logger } from './logger.js';
import type { QueueCountSource } from './metrics.js';
import { stopTracing } from './tracing.js';

/** Loads a service's configuration, or prints what is wrong and exits 78 (EX_CONFIG). */
export function loadConfigOrExit<T>(load: () => T): T {
  try {
    return load();
  } catch (error) {
    console.error((error as Error).message);
    process.exit(78);
  }
}

export interface WorkerServiceOptions {
  service: string;
  logger: Logger;
  healthPort: number;
  metricsToken: string | undefined;
  /** Readiness checks besides "workers started" (e.g. postgres, redis). */
  checks: Record<string, () => Promise<unknown>>;
  /** Queues whose depth this process reports on /metrics. */
  queues?: QueueCountSource[];
  start(): Promise<void>;
  /** Stops taking work and finishes what is in flight; `exitNow` skips the remaining cleanup. */
  stop(signal: string): Promise<{ exitNow?: boolean } | void>;
  /** Closes what the service opened besides its workers (pools, probe connections, queues). */
  cleanup(): Promise<void>;
  startedDetails?: Record<string, unknown>;
}

export async function runWorkerService(options: WorkerServiceOptions): Promise<void> {
  const { service, logger } = options;
  let started = false;
  const health = await startServiceHealth({
    service,
    port: options.healthPort,
    checks: {
      ...options.checks,
      workers: async () => {
        if (!started) throw new Error('workers not started');
      },
    },
    queues: options.queues ?? [],
    metricsToken: options.metricsToken,
    logger,
  });

  const shutdown = async (signal: string) => {
    logger.info('shutting down', { signal });
    health.markShuttingDown();
    const outcome = await options.stop(signal);
    if (outcome?.exitNow) {
      await stopTracing();
      process.exit(0);
    }
    await options.cleanup();
    await health.close();
    await stopTracing();
  };
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      shutdown(signal).then(
        () => process.exit(0),
        (error: Error) => {
          logger.error('shutdown failed', { error: error.message });
          process.exit(1);
        },
      );
    });
  }

  await options.start();
  started = true;
  logger.info(`${service} started`, { ...options.startedDetails, node: process.versions.node });
}
