/**
 * Benchmark plumbing: a fresh database, the real built services as child processes, a local target
 * server in its own process, percentiles. Everything targets 127.0.0.1 and every loop is bounded.
 */
import { spawn, spawnSync, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readFileSync, readdirSync } from 'node:fs';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const PG_BASE = process.env.BENCH_PG_URL ?? 'postgresql://postgres@127.0.0.1:5432';
export const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

export function summarize(values: number[]): { n: number; min: number; p50: number; p99: number; max: number } {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    n: sorted.length,
    min: sorted[0] ?? NaN,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1] ?? NaN,
  };
}

let template: Promise<string> | undefined;

/** A migrated database: the migrations run once into a template, each scenario gets a copy (≈0.3 s, not ≈4 s). */
export async function freshDatabase(name: string): Promise<string> {
  template ??= migratedTemplate(`kairos_bench_template_${benchId()}`);
  const source = await template;
  const admin = new pg.Client({ connectionString: `${PG_BASE}/postgres` });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await admin.query(`CREATE DATABASE "${name}" TEMPLATE "${source}"`);
  await admin.end();
  return `${PG_BASE}/${name}`;
}

/** Drops the template made by freshDatabase (end of the benchmark). */
export async function dropTemplate(): Promise<void> {
  if (!template) return;
  const name = await template;
  const admin = new pg.Client({ connectionString: `${PG_BASE}/postgres` });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await admin.end();
}

async function migratedTemplate(name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: `${PG_BASE}/postgres` });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const migrate = spawnSync('node', [join(ROOT, 'scripts/prisma.mjs'), 'deploy'], {
    env: { ...process.env, DATABASE_URL: `${PG_BASE}/${name}` },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (migrate.status !== 0) throw new Error('migrations failed');
  return name;
}

/** Drops a scenario's database. */
export async function dropDatabase(name: string): Promise<void> {
  const admin = new pg.Client({ connectionString: `${PG_BASE}/postgres` });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await admin.end();
}

export interface ServiceSet {
  children: ChildProcess[];
  stop(): Promise<void>;
}

/** The stem of a process's profile and GC-trace files: its name, a service's instance mark `#` as `-`. */
const fileStem = (name: string): string => name.replace('#', '-');

/** BENCH_CPU_PROF=<dir>: each service process writes a V8 CPU profile there when it exits. */
const cpuProfileArgs = (name: string): string[] =>
  process.env.BENCH_CPU_PROF
    ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`, `--cpu-prof-name=${fileStem(name)}.cpuprofile`]
    : [];

/**
 * BENCH_TRACE_GC=<dir>: each service and script but got's ceiling (whose stdout is its figures) runs with
 * V8's --trace-gc, its stdout, where V8 writes those lines, in <dir>/<name>.gc. Read there (2026-11-27):
 * the executors' scavenges promote ≈ 9 MB every 150–200 ms at saturation, Kairos's and the shape's alike.
 */
const openGcTrace = (name: string): number | undefined =>
  process.env.BENCH_TRACE_GC && name !== 'ceiling'
    ? openSync(join(process.env.BENCH_TRACE_GC, `${fileStem(name)}.gc`), 'w')
    : undefined;

type Stdio = 'ignore' | 'pipe' | 'inherit' | 'ipc' | number;

/** Spawns a Node process with the knobs above (its stdout to the GC trace when there is one). */
function spawnNode(name: string, args: string[], options: SpawnOptions & { stdio: Stdio[] }): ChildProcess {
  const trace = openGcTrace(name);
  const child = spawn(
    process.execPath,
    [...cpuProfileArgs(name), ...(trace === undefined ? [] : ['--trace-gc']), ...args],
    {
      ...options,
      stdio: options.stdio.map((stream, fd) => (fd === 1 && trace !== undefined ? trace : stream)),
    },
  );
  // The child holds its own copy of the file.
  if (trace !== undefined) closeSync(trace);
  return child;
}

/** Starts built services (services/<name>/dist/main.js) with the given environment. */
export function startServices(names: string[], env: NodeJS.ProcessEnv): ServiceSet {
  const children = names.map((name) =>
    // --enable-source-maps as scripts/start.mjs and the images run them: measured as `pnpm start` runs.
    spawnNode(
      name,
      [
        '--enable-source-maps',
        // BENCH_NODE_ARGS, or BENCH_NODE_ARGS_<SERVICE> for one (in a scenario's overrides, BENCH_ONLY=ab):
        // Node's or V8's flags for a measured variant.
        ...(env[`BENCH_NODE_ARGS_${name.replace(/#\d+$/, '').toUpperCase()}`] ?? env.BENCH_NODE_ARGS ?? '')
          .split(' ')
          .filter(Boolean),
        // BENCH_ROOT (in a scenario's overrides, BENCH_ONLY=ab): another checkout's build, e.g. an earlier
        // commit's, run against this tree's schema (migrations are expand-then-contract: docs/operations/upgrades.md).
        join(env.BENCH_ROOT ?? ROOT, 'services', name.replace(/#\d+$/, ''), 'dist/main.js'),
      ],
      {
        env: { ...process.env, ...env, LOG_LEVEL: 'warn' },
        stdio: ['ignore', 'ignore', 'inherit'],
      },
    ),
  );
  return {
    children,
    async stop() {
      await Promise.all(
        children.map(
          (child) =>
            new Promise<void>((resolve) => {
              if (child.exitCode !== null) return resolve();
              const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
              child.once('exit', () => {
                clearTimeout(timer);
                resolve();
              });
              child.kill('SIGTERM');
            }),
        ),
      );
    },
  };
}

/** What the target saw: each request's run id, arrival (epoch ms, sub-ms) and, from the floor, its due time. */
export interface Arrivals {
  runIds: string[];
  arrivals: number[];
  /** X-Bench-Due (the floor's own due time), NaN for Kairos's calls (their scheduledAt is in PostgreSQL). */
  dues: number[];
}

export interface Target {
  port: number;
  /** The target's process (its CPU time is read around a window). */
  pid: number | undefined;
  url: string;
  /** Hands over what arrived since the last call and forgets it. */
  take(): Promise<Arrivals>;
  stop(): void;
}

/**
 * The target a user would point Kairos at, in its own process: node:http keep-alive, answers 200
 * with a small JSON body, and records each request's arrival time and X-Service-Run-Id (the
 * outside view). The arrival is stamped when the request's headers are parsed.
 */
export async function startTarget(): Promise<Target> {
  const source = `
    const http = require('node:http');
    let runIds = [], arrivals = [], dues = [];
    const server = http.createServer((req, res) => {
      arrivals.push(performance.timeOrigin + performance.now());
      runIds.push(req.headers['x-service-run-id'] ?? '');
      dues.push(Number(req.headers['x-bench-due'] ?? NaN));
      req.resume();
      req.on('end', () => { res.writeHead(200, {'content-type':'application/json'}); res.end('{"ok":true}'); });
    });
    server.keepAliveTimeout = 60000;
    process.on('message', () => { process.send({ runIds, arrivals, dues }); runIds = []; arrivals = []; dues = []; });
    server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));`;
  const child = spawn(process.execPath, ['-e', source], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const port = await new Promise<number>((resolve) =>
    child.once('message', (message) => resolve((message as { port: number }).port)),
  );
  return {
    port,
    pid: child.pid,
    url: `http://127.0.0.1:${port}/`,
    take: () =>
      new Promise<Arrivals>((resolve) => {
        child.once('message', (message) => resolve(message as Arrivals));
        child.send('take');
      }),
    stop: () => child.kill('SIGKILL'),
  };
}

/**
 * A bench script's process name, and so its profile's under BENCH_CPU_PROF (`<dir>/<name>.cpuprofile`; no `#`
 * to replace, unlike a service's): the script, its role (SKELETON_ROLE) and its variant (SKELETON_PLAN,
 * SKELETON_CALL_THREAD, SKELETON_KAIROS), so that one variant's profile does not overwrite another's.
 */
export function scriptName(script: string, env: NodeJS.ProcessEnv): string {
  const variant = [
    env.SKELETON_PLAN === '1' && 'plan',
    env.SKELETON_CALL_THREAD === '1' && 'thread',
    env.SKELETON_KAIROS && `kairos-${env.SKELETON_KAIROS.replace(/,/g, '-')}`,
  ];
  return [script.replace(/\.ts$/, ''), env.SKELETON_ROLE, ...variant].filter(Boolean).join('-');
}

/**
 * Runs bench/<script>.ts through tsx as a child process with `env`; `ipc` for scripts that talk back.
 * Profiled like the services under BENCH_CPU_PROF, under its scriptName.
 */
export function startScript(script: string, env: NodeJS.ProcessEnv): ChildProcess {
  const name = scriptName(script, env);
  const args = ['--conditions=source', '--import', 'tsx', join(ROOT, 'bench', script)];
  return spawnNode(name, args, {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
}

/**
 * A throw-away redis-server on a free port for the whole benchmark (no persistence, hz 100): its
 * INFO commandstats and used_memory belong to the benchmark alone, whatever else runs on the machine.
 */
export async function startRedis(): Promise<{ url: string; pid: number | undefined; stop(): void }> {
  const port = await freePort();
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--hz', '100'],
    { stdio: 'ignore' },
  );
  const { Redis } = await import('ioredis');
  const probe = new Redis(`redis://127.0.0.1:${port}`, { lazyConnect: true, maxRetriesPerRequest: 0 });
  // Refused until redis-server listens: each refusal is an attempt, not an unhandled error event.
  probe.on('error', () => undefined);
  for (let attempt = 0; attempt < 50; attempt += 1) {
    if (
      await probe.connect().then(
        () => true,
        () => false,
      )
    )
      break;
    await sleep(100);
  }
  probe.disconnect();
  return { url: `redis://127.0.0.1:${port}`, pid: child.pid, stop: () => child.kill('SIGKILL') };
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * A TCP relay in front of PostgreSQL that counts the frontend messages of the wire protocol: `Q`
 * (simple query) and `E` (execute) are statements, `Q` and `S` (sync) are round trips. The services
 * connect through it in the round-trip scenario only (it adds a hop).
 */
export async function startPgCounter(): Promise<{
  port: number;
  counts: Record<string, number>;
  reset(): void;
  stop(): void;
}> {
  const upstream = new URL(PG_BASE);
  const counts: Record<string, number> = {};
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const server = connect(Number(upstream.port || 5432), upstream.hostname);
    sockets.add(client).add(server);
    let started = false;
    let header = Buffer.alloc(0);
    let skip = 0;
    client.on('data', (chunk: Buffer) => {
      let i = 0;
      while (i < chunk.length) {
        if (skip > 0) {
          const n = Math.min(skip, chunk.length - i);
          skip -= n;
          i += n;
          continue;
        }
        const need = started ? 5 : 4;
        const take = Math.min(need - header.length, chunk.length - i);
        header = Buffer.concat([header, chunk.subarray(i, i + take)]);
        i += take;
        if (header.length < need) continue;
        if (started) {
          const type = String.fromCharCode(header[0]!);
          counts[type] = (counts[type] ?? 0) + 1;
          skip = header.readInt32BE(1) - 4;
        } else {
          skip = header.readInt32BE(0) - 4; // the startup message has no type byte
          started = true;
        }
        header = Buffer.alloc(0);
      }
      server.write(chunk);
    });
    server.pipe(client);
    const close = () => {
      client.destroy();
      server.destroy();
      sockets.delete(client);
      sockets.delete(server);
    };
    client.on('close', close).on('error', close);
    server.on('close', close).on('error', close);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    counts,
    reset: () => {
      for (const key of Object.keys(counts)) delete counts[key];
    },
    stop: () => {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}

/** Clock ticks per second of /proc/<pid>/stat's CPU times (getconf CLK_TCK; 100 on Linux). */
const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

/**
 * CPU time (user + system) process `pid` has used so far, ms, from /proc/<pid>/stat; 0 when it is
 * gone. Read before and after a window, its difference is what the process spent in it.
 */
export function cpuMs(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces), counted from 3: utime is 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}

/** CPU ms per named group of processes (a group: e.g. every PostgreSQL backend of one database). */
export const cpuOf = (groups: Record<string, (number | undefined)[]>): Record<string, number> =>
  Object.fromEntries(
    Object.entries(groups).map(([name, pids]) => [name, pids.reduce<number>((sum, pid) => sum + cpuMs(pid), 0)]),
  );

/** A process's context switches (every thread's, voluntary and not) and read and write system calls so far. */
function wakeupsOf(pid: number | undefined): { switches: number; syscalls: number } {
  if (pid === undefined) return { switches: 0, syscalls: 0 };
  let switches = 0;
  try {
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      const status = readFileSync(`/proc/${pid}/task/${task}/status`, 'utf8');
      for (const match of status.matchAll(/^(?:non)?voluntary_ctxt_switches:\s+(\d+)$/gm)) switches += Number(match[1]);
    }
    const io = readFileSync(`/proc/${pid}/io`, 'utf8');
    const count = (name: string) => Number(new RegExp(`^${name}: (\\d+)$`, 'm').exec(io)?.[1] ?? 0);
    return { switches, syscalls: count('syscr') + count('syscw') };
  } catch {
    return { switches, syscalls: 0 };
  }
}

/**
 * Context switches and read/write system calls per named group of processes (as cpuOf). On this kind of
 * machine (a microVM under nested virtualisation) a wake-up costs far more than the work it carries: a
 * plain node:http target spent 0.28 CPU-ms a request at 300 requests a second and 0.09 at 1,100, when
 * requests arrive several to a wake-up (2026-11-28), so these say where an execution's wake-ups are.
 */
export const wakeupsOfGroups = (
  groups: Record<string, (number | undefined)[]>,
): Record<string, { switches: number; syscalls: number }> =>
  Object.fromEntries(
    Object.entries(groups).map(([name, pids]) => [
      name,
      pids.reduce(
        (sum, pid) => {
          const one = wakeupsOf(pid);
          return { switches: sum.switches + one.switches, syscalls: sum.syscalls + one.syscalls };
        },
        { switches: 0, syscalls: 0 },
      ),
    ]),
  );

/**
 * How a process's threads and the machine's cores spent a window: the main thread's ms per second on a
 * core and waiting in the run queue for one (/proc/<pid>/task/<pid>/schedstat, ns; NaN where the kernel
 * keeps no schedstat), its other threads' ms per second on a core (V8's workers, which collect garbage
 * beside the main thread, libuv's pool, and any worker thread of its own, as the shape's call thread), and
 * the share of the cores' time not idle (/proc/stat, every process's). A thread that is on a core and
 * waiting for one nearly every millisecond wants a whole core and does not get it: the cores, not the
 * thread's own work or a lock, bound it (2026-11-25: Kairos's executor at saturation 0.64–0.66 s on a
 * core and 0.32–0.33 s waiting each second, the cores ≈ 90 % busy).
 */
export interface CoreUse {
  runMsPerS: number;
  waitMsPerS: number;
  otherThreadsMsPerS: number;
  coresBusy: number;
  /** The window, in µs of the monotonic clock that V8's CPU profiles count in (profile-diff.ts cuts them to it). */
  windowUs: [number, number];
}

/** Now in µs of the monotonic clock (CLOCK_MONOTONIC: a V8 CPU profile's startTime is on it too). */
const monotonicUs = (): number => Number(process.hrtime.bigint() / 1000n);

/** Starts a CoreUse window for `pid`'s threads; the returned function ends it. */
export function coreUseFrom(pid: number | undefined): () => CoreUse {
  const schedstat = (task: string): [number, number] => {
    try {
      const [run, wait] = readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ').map(Number);
      return [run! / 1e6, wait! / 1e6];
    } catch {
      return [NaN, NaN];
    }
  };
  // Every thread's time on a core but the main thread's; a thread that ended in the window is left out,
  // also one that ended between listing the threads and reading its schedstat (NaN would void the sum).
  const others = (): Map<string, number> => {
    try {
      const tasks = readdirSync(`/proc/${pid}/task`).filter((task) => task !== String(pid));
      return new Map(
        tasks.map((task): [string, number] => [task, schedstat(task)[0]]).filter(([, ms]) => !Number.isNaN(ms)),
      );
    } catch {
      return new Map();
    }
  };
  // cpu  user nice system idle iowait irq softirq steal (ticks)
  const cores = (): [number, number] => {
    const ticks = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
    return [ticks[3]! + ticks[4]!, ticks.reduce((sum, tick) => sum + tick, 0)];
  };
  const [runBefore, waitBefore] = schedstat(String(pid));
  const othersBefore = others();
  const [idleBefore, totalBefore] = cores();
  const fromUs = monotonicUs();
  return () => {
    const toUs = monotonicUs();
    const seconds = (toUs - fromUs) / 1e6;
    const [run, wait] = schedstat(String(pid));
    let otherMs = 0;
    for (const [task, ms] of others()) otherMs += ms - (othersBefore.get(task) ?? 0);
    const [idle, total] = cores();
    return {
      runMsPerS: (run - runBefore) / seconds,
      waitMsPerS: (wait - waitBefore) / seconds,
      otherThreadsMsPerS: otherMs / seconds,
      coresBusy: 1 - (idle - idleBefore) / Math.max(1, total - totalBefore),
      windowUs: [fromUs, toUs],
    };
  };
}

export const benchId = () => randomBytes(3).toString('hex');

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The host's speed while a window runs: the benchmark's own thread runs a fixed task every 250 ms and
 * times it, and the median is the window's figure in µs (on 2026-11-25 1,139–1,160 in most windows,
 * 1,288–1,661 in the slow ones). The processes' own CPU per execution cannot tell a slow host from a
 * slow Kairos: less batching raises every process's cost per execution too (that day one AI-off
 * window read 48 % of got's ceiling where the floor read 93 % in the same pair, every process
 * costlier). Wall time, because the thread's CPU clock ticks in 4 ms steps here; a sample that waited
 * for a core is an outlier the median leaves out. The task takes ≈ 0.4 % of a core.
 */
export async function hostSpeedDuring(ms: number): Promise<number> {
  const samples: number[] = [];
  const until = Date.now() + ms;
  while (Date.now() < until) {
    const before = performance.now();
    fixedTask();
    samples.push(Math.round((performance.now() - before) * 1000));
    await sleep(Math.min(250, Math.max(0, until - Date.now())));
  }
  return samples.sort((a, b) => a - b)[Math.floor(samples.length / 2)] ?? NaN;
}

/** The same work on every call: sort a fixed pseudo-random array and round-trip it through JSON. */
function fixedTask(): number {
  let seed = 1;
  const values = Array.from({ length: 4000 }, () => (seed = (seed * 16807) % 2147483647));
  return (JSON.parse(JSON.stringify(values.sort((a, b) => a - b))) as number[]).length;
}
