/**
 * The baselines each Kairos figure is read beside, each in processes of its own against the same
 * target: got's ceiling (bench/ceiling.ts), the floor, bare BullMQ + got (bench/floor.ts), and the
 * reference shape (bench/skeleton.ts, with its steps of Kairos's own parts).
 */
import type { ChildProcess } from 'node:child_process';
import type { Redis } from 'ioredis';
import { CALL_SLOTS as EXECUTOR_CALL_SLOTS } from '../services/executor/src/config.js';
import { benchRedis, deleteKeys, insertEndpoints, setup, single, teardown } from './environment.js';
import { cpuPerExecution, perExecution, type BaselineFigures, type Wakeups } from './figures.js';
import {
  benchId,
  coreUseFrom,
  cpuMs,
  cpuOf,
  hostSpeedDuring,
  scriptName,
  sleep,
  startScript,
  summarize,
  wakeupsOfGroups,
  type Target,
} from './lib.js';
import { MASTER_KEY_HEX, QUICK, WARMUP_MS, WINDOW_MS } from './settings.js';

/**
 * The floor at `rate` due/s (bench/floor.ts in its own process): its lateness (arrival − due), the calls
 * that arrived per second in the window, and the CPU ms one of its jobs costs by process (floor, Redis,
 * target).
 */
export async function floorScenario(rate: number, target: Target, redis: Redis): Promise<BaselineFigures> {
  const prefix = `{kb-floor-${benchId()}}`;
  const child = startScript('floor.ts', {
    FLOOR_REDIS_URL: benchRedis.url,
    FLOOR_PREFIX: prefix,
    FLOOR_TARGET: target.url,
    FLOOR_COUNT: String(rate),
    FLOOR_RUN_MS: String(WARMUP_MS + WINDOW_MS + 1000),
  });
  try {
    const { startAt } = await messageFrom<{ startAt: number }>(child, 'the floor process');
    const processes = { floor: [child.pid], redis: [benchRedis.pid], target: [target.pid] };
    return await windowFrom(startAt, async () => processes, target);
  } finally {
    await stopScript(child);
    await deleteKeys(prefix, redis);
  }
}

/** Which of bench/skeleton.ts's rows: the stored plan, calls in a worker thread, Kairos's parts (SKELETON_KAIROS). */
export interface SkeletonOptions {
  plan: boolean;
  callThread?: boolean;
  kairos?: 'call' | 'call,admission' | 'call,admission,execute';
}

/** The environment that picks a skeleton row (bench/skeleton.ts reads it; lib.ts scriptName names it). */
export const skeletonVariant = (options: SkeletonOptions) => ({
  SKELETON_PLAN: options.plan ? '1' : '0',
  SKELETON_CALL_THREAD: options.callThread ? '1' : '0',
  SKELETON_KAIROS: options.kairos ?? '',
});

/** The profile's name of a skeleton row's executor under BENCH_CPU_PROF. */
export const skeletonExecutorProfile = (options: SkeletonOptions) =>
  scriptName('skeleton.ts', { ...skeletonVariant(options), SKELETON_ROLE: 'executor' });

/**
 * The reference shape (bench/skeleton.ts: its executor and scheduler in processes of their own,
 * Kairos's read and record statements, SKELETON_PLAN with its recompute's too), `endpoints` at 1 s:
 * what the shape with a durable run delivers before Kairos's own work, beside the floor and the
 * ceiling of the same pair.
 */
export async function skeletonScenario(
  endpoints: number,
  target: Target,
  redis: Redis,
  options: SkeletonOptions,
): Promise<BaselineFigures> {
  const env = await setup(`skeleton_${options.plan ? 'plan' : 'least'}`);
  const common = {
    SKELETON_REDIS_URL: benchRedis.url,
    SKELETON_PREFIX: env.prefix,
    SKELETON_DATABASE_URL: env.url,
    ...skeletonVariant(options),
    SKELETON_MASTER_KEY: MASTER_KEY_HEX,
  };
  const children: ChildProcess[] = [];
  try {
    await insertEndpoints(env.db, endpoints, target.url, false);
    const executor = startScript('skeleton.ts', {
      ...common,
      SKELETON_ROLE: 'executor',
      SKELETON_TARGET: target.url,
      SKELETON_CALLS: String(EXECUTOR_CALL_SLOTS),
    });
    children.push(executor);
    await messageFrom(executor, 'the skeleton executor');
    const scheduler = startScript('skeleton.ts', {
      ...common,
      SKELETON_ROLE: 'scheduler',
      SKELETON_RUN_MS: String(WARMUP_MS + WINDOW_MS + 1000),
    });
    children.push(scheduler);
    const { startAt } = await messageFrom<{ startAt: number }>(scheduler, 'the skeleton scheduler');
    // The backends are read when the window opens: the scripts' pools connect once runs fall due.
    const processes = async () => {
      const { rows: backends } = await env.db.pool.query<{ pid: number }>(
        `SELECT pid FROM pg_stat_activity WHERE datname = $1`,
        [env.name],
      );
      return {
        executor: [executor.pid],
        scheduler: [scheduler.pid],
        redis: [benchRedis.pid],
        postgres: backends.map((backend) => backend.pid),
        target: [target.pid],
      };
    };
    return await windowFrom(startAt, processes, target);
  } finally {
    for (const child of children) await stopScript(child);
    await teardown(env, single(redis));
  }
}

/** The first IPC message of a bench script (its start), or an error when it exits first. */
export function messageFrom<T>(child: ChildProcess, name: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    child.once('message', (message) => resolve(message as T));
    child.once('exit', () => reject(new Error(`${name} exited before it started`)));
  });
}

/** Asks a bench script to stop ('stop' over IPC), killing it after 10 s. */
export function stopScript(child: ChildProcess): Promise<void> {
  return new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    if (child.connected) child.send('stop');
    else child.kill('SIGKILL');
  });
}

/**
 * A baseline's window, WARMUP_MS after its first due time: lateness (arrival − due), the calls that
 * arrived per second, and the CPU ms one of them cost each process group.
 */
export async function windowFrom(
  startAt: number,
  processesAt: () => Promise<Record<string, (number | undefined)[]>>,
  target: Target,
): Promise<BaselineFigures> {
  const from = startAt + WARMUP_MS;
  const to = from + WINDOW_MS;
  await sleep(from - Date.now());
  const processes = await processesAt();
  const cpuBefore = cpuOf(processes);
  const wakeupsBefore = wakeupsOfGroups(processes);
  // The calling process: the floor's, or the shape's executor.
  const cores = coreUseFrom((processes.floor ?? processes.executor)?.[0]);
  const hostTaskUs = await hostSpeedDuring(to - Date.now());
  const coreUse = cores();
  const cpuAfter = cpuOf(processes);
  const wakeupsAfter = wakeupsOfGroups(processes);
  await sleep(to + 1500 - Date.now());
  const seen = await target.take();
  const lateness = seen.dues.flatMap((due, index) => (due >= from && due < to ? [seen.arrivals[index]! - due] : []));
  const arrived = seen.arrivals.filter((arrival) => arrival >= from && arrival < to).length;
  // Per job delivered in the window: at saturation fewer arrive than fall due.
  const jobs = Math.max(1, arrived);
  return {
    lateness: summarize(lateness),
    delivered: arrived / (WINDOW_MS / 1000),
    cpu: cpuPerExecution(cpuBefore, cpuAfter, jobs),
    wakeups: perExecution(wakeupsBefore, wakeupsAfter, jobs),
    hostTaskUs,
    coreUse,
  };
}

/**
 * got's raw ceiling against the target (bench/ceiling.ts in its own process): requests per second,
 * and the CPU ms one request costs got and the target.
 */
export async function ceiling(
  target: Target,
): Promise<{ rate: number; gotCpuMs: number; targetCpuMs: number; hostTaskUs: number; wakeups: Wakeups }> {
  const targetBefore = cpuMs(target.pid);
  const targetWakeupsBefore = wakeupsOfGroups({ target: [target.pid] });
  const windowMs = QUICK ? 3000 : 5000;
  const child = startScript('ceiling.ts', { CEILING_TARGET: target.url, CEILING_MS: String(windowMs) });
  let output = '';
  let gotWakeups: Wakeups = {};
  child.stdout!.on('data', (data: Buffer) => {
    output += data.toString();
    // got's process prints its figures as it ends: its wake-ups so far are the whole run's (warm-up too).
    gotWakeups = wakeupsOfGroups({ got: [child.pid] });
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  // The host's speed in the ceiling's measured window (after its 1 s warm-up, bench/ceiling.ts), as in
  // every other window: a ceiling measured while the host ran slowly flatters the pair's ratio
  // (2026-11-25: 2,642 req/s before one pair, 3,370–4,395 before the others).
  const [hostTaskUs] = await Promise.all([sleep(1000).then(() => hostSpeedDuring(windowMs)), exited]);
  const targetCpu = cpuMs(target.pid) - targetBefore;
  const targetWakeups = wakeupsOfGroups({ target: [target.pid] });
  await target.take();
  const { rate, sent, gotCpuMsPerRequest } = JSON.parse(output.trim()) as {
    rate: number;
    sent: number;
    gotCpuMsPerRequest: number;
  };
  const zero = { got: { switches: 0, syscalls: 0 }, target: targetWakeupsBefore.target! };
  const wakeups = perExecution(zero, { ...gotWakeups, ...targetWakeups }, sent);
  return { rate, gotCpuMs: gotCpuMsPerRequest, targetCpuMs: targetCpu / sent, hostTaskUs, wakeups };
}

/** got's ceiling as one measurement gives it (ceiling). */
export type Ceiling = Awaited<ReturnType<typeof ceiling>>;
