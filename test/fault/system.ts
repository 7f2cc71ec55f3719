/**
 * The whole system as `pnpm start` runs it, isolated for the fault suite: a private PostgreSQL
 * cluster and Redis (stores.ts), the target server, and scripts/start.mjs supervising the four
 * services from source (no build needed on a fresh clone) on free ports. stop() removes everything,
 * also after a failed start.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { startTarget, type Target } from './load.js';
import { answers200, exitOf, freePorts, killAll, serviceChildren, waitFor } from './processes.js';
import { startPostgres, startRedis, type PrivatePostgres, type PrivateRedis } from './stores.js';

const ROOT = join(import.meta.dirname, '../..');
export const SERVICES = ['api', 'scheduler', 'executor', 'planner'] as const;
export type ServiceName = (typeof SERVICES)[number];
export const MASTER_KEY_HEX = 'f'.repeat(64);
/** The supervisor's output kept for a failure message (the tail is what explains it). */
const OUTPUT_KEPT_CHARS = 20_000;

export interface System {
  postgres: PrivatePostgres;
  redis: PrivateRedis;
  target: Target;
  databaseUrl: string;
  /** The port answering /readyz for each service (the api's own PORT for the api). */
  healthPorts: Record<ServiceName, number>;
  /** The current pid of each service process under the supervisor. */
  pids(): Map<string, number>;
  isReady(service: ServiceName): Promise<boolean>;
  output(): string;
  stop(): Promise<void>;
}

export async function startSystem(): Promise<System> {
  const cleanups: (() => Promise<void> | void)[] = [];
  const seenPids = new Set<number>();
  let start: ChildProcess | undefined;
  let output = '';
  const stop = async () => {
    if (start) {
      start.kill('SIGTERM');
      await exitOf(start, 60_000);
    }
    killAll(seenPids);
    for (const cleanup of cleanups.reverse()) await Promise.resolve(cleanup()).catch(() => undefined);
  };
  try {
    const postgres = await startPostgres();
    cleanups.push(() => postgres.stop());
    const redis = await startRedis();
    cleanups.push(() => redis.stop());
    const target = await startTarget();
    cleanups.push(() => target.stop());
    const [api, scheduler, executor, planner] = (await freePorts(4)) as [number, number, number, number];
    const healthPorts = { api, scheduler, executor, planner };
    const databaseUrl = `${postgres.baseUrl}/kairos`;
    start = spawn(process.execPath, [join(ROOT, 'scripts/start.mjs')], {
      cwd: ROOT,
      env: {
        ...process.env,
        NODE_OPTIONS: '',
        KAIROS_START_FROM_SOURCE: 'true',
        DATABASE_URL: databaseUrl,
        REDIS_URL: redis.url,
        KAIROS_MASTER_KEY: MASTER_KEY_HEX,
        KAIROS_ALLOW_PRIVATE_TARGETS: 'true',
        KAIROS_WEB_DIR: '',
        LOG_LEVEL: 'warn',
        HOST: '127.0.0.1',
        PORT: String(healthPorts.api),
        SCHEDULER_HEALTH_PORT: String(healthPorts.scheduler),
        EXECUTOR_HEALTH_PORT: String(healthPorts.executor),
        PLANNER_HEALTH_PORT: String(healthPorts.planner),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const keep = (data: Buffer) => (output = (output + data.toString()).slice(-OUTPUT_KEPT_CHARS));
    start.stdout!.on('data', keep);
    start.stderr!.on('data', keep);
    const startPid = start.pid!;
    const pids = () => {
      const children = serviceChildren(startPid);
      for (const pid of children.values()) seenPids.add(pid);
      return children;
    };
    const isReady = (service: ServiceName) => answers200(healthPorts[service], '/readyz').catch(() => false);
    await waitFor(
      'the four services to be ready',
      async () => {
        if (pids().size < SERVICES.length) return false;
        for (const service of SERVICES) if (!(await isReady(service))) return false;
        return true;
      },
      150_000,
      500,
    ).catch((error: Error) => {
      throw new Error(`${error.message}\n--- start.mjs output ---\n${output.slice(-4000)}`);
    });
    return { postgres, redis, target, databaseUrl, healthPorts, pids, isReady, output: () => output, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
