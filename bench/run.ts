/**
 * `pnpm bench`: Kairos as a user gets it (issue #14), each figure next to a baseline measured in the
 * same run, every process on its own:
 *
 *  1. the outside view, at `pnpm start`'s defaults (no concurrency override, no model configured): a
 *     target in its own process records each request's arrival and X-Service-Run-Id; lateness =
 *     arrival − the run's scheduledAt (read from PostgreSQL by run id). Floor: bare BullMQ delayed jobs
 *     and a got worker in Kairos's shape (bench/floor.ts). Ceiling: got's raw request rate against the
 *     same target (bench/ceiling.ts). AI scheduling off, and on with no model configured; beside them,
 *     what a durable run costs PostgreSQL at the least (durableRunCost: the run's row alone), and the
 *     card's shape at its least (bench/skeleton.ts), without and with the stored planned run;
 *  2. round trips per execution: Redis commands (INFO commandstats of the benchmark's own
 *     redis-server) and PostgreSQL statements and round trips (a counting relay, lib.ts);
 *  3. the tuned runs (scheduler concurrency 100, executor 200), labelled as such;
 *  4. change-to-effect latency: API call (one-shot hint) → the new delayed job exists in Redis;
 *  5. BENCH_ENDPOINTS (default 100,000) registered endpoints: Redis memory per endpoint and the
 *     reconcile time after losing every key (issue #15 asks for 1,000,000);
 *  6. lateness by dispatch lead (SCHEDULER_DISPATCH_LEAD_MS: BENCH_LEADS, default 0,100,200,300; at BENCH_LEAD_RATE due/s, default 1,000);
 *  7. sustained throughput by executor concurrency (BENCH_CONCURRENCY, default 25,50,100,200);
 *  8. (BENCH_ONLY=cluster, not in the default set) the sustained scenario on a local Redis Cluster
 *     (three masters, three replicas: test/redis-cluster.ts) with KAIROS_QUEUE_SHARDS 1 and 3: on two
 *     cores the point is correctness and each shard's cost (commands per execution, per master), not
 *     speed-up;
 *  9. (BENCH_ONLY=ab, not in the default set) two settings of the services at saturation, alternated
 *     BENCH_ROUNDS times (BENCH_AB_A, BENCH_AB_B: where the part runs, in main);
 * 10. (BENCH_ONLY=priority, not in the default set) a diagnostic: the executor's main thread raised to
 *     SCHED_FIFO in alternate windows of one running set of services (priorityDiagnostic).
 *
 * Results are printed and written to a git-ignored results-latest file in this folder (bench/results.md keeps the dated
 * history, edited by hand). Knobs: BENCH_ONLY=outside|skeleton|rt|lead|concurrency|tuned|change|scale|cluster|ab|priority
 * (comma-separated; cluster, ab and priority run only when named; skeleton alone runs the ceiling, the floor, both skeletons, the planned one with its
 * calls in a worker thread, the planned one with Kairos's parts rung by rung, and Kairos; BENCH_ROUNDS times, forward and
 * backward in turn; with BENCH_CPU_PROF it sets Kairos's executor beside the shape's and executePlannedRun's rung beside the one before it),
 * BENCH_SKELETON_LOAD (with BENCH_ONLY=skeleton: every row at that many endpoints instead of saturation),
 * BENCH_RATES (lateness rates, default 500,1000), BENCH_SUSTAINED (the sustained scenarios' least endpoints at 1 s,
 * default 3000; more where got's ceiling is higher: sustainedLoad),
 * BENCH_WINDOW_MS, BENCH_QUICK=1 (shorter windows), BENCH_REDIS_URL (else a private redis-server), BENCH_PG_URL
 * (the PostgreSQL server whose databases the benchmark makes; else postgresql://postgres@127.0.0.1:5432),
 * BENCH_CPU_PROF=<dir> and BENCH_TRACE_GC=<dir> (V8 CPU profiles, V8's --trace-gc lines: bench/lib.ts).
 */
import { execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { QUEUES, createRedisConnection, parseDueJobId, shardPrefix, type RedisConnection } from '@kairos/queue';
import { createDatabase, type Database } from '@kairos/db';
import { createAccount, insertRunRows, recordScheduledRuns, type RunOutcome } from '@kairos/db/system';
import { createLogger } from '@kairos/runtime';
import { Queue, QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import { DUE_JOBS_PER_CALL_SLOT } from '../services/executor/src/call-slots.js';
import { CALL_SLOTS as EXECUTOR_CALL_SLOTS } from '../services/executor/src/config.js';
import { DueQueue } from '../services/scheduler/src/due-queue.js';
import { Reconciler } from '../services/scheduler/src/reconcile.js';
import { startRedisCluster, type RedisCluster } from '../test/redis-cluster.js';
import { runOutcome } from '../test/runs-fixtures.js';
import {
  PG_BASE,
  ROOT,
  benchId,
  cpuMs,
  cpuOf,
  wakeupsOfGroups,
  dropDatabase,
  dropTemplate,
  freePort,
  freshDatabase,
  hostSpeedDuring,
  coreUseFrom,
  type CoreUse,
  sleep,
  startPgCounter,
  startRedis,
  scriptName,
  startScript,
  startServices,
  startTarget,
  summarize,
  type ServiceSet,
  type Target,
} from './lib.js';
import { compareCosts, costsPerExecution, type CostRow } from './profile-diff.js';
import { BENCH_RESPONSE_RULES } from './rule-shape.js';

const QUICK = process.env.BENCH_QUICK === '1';
const ONLY = process.env.BENCH_ONLY?.split(',');
/** Parts run only when named: the cluster's, and the diagnostics and A/B windows (BENCH_ONLY=priority, ab). */
const ONLY_WHEN_NAMED = ['cluster', 'priority', 'ab'];
const runs = (part: string) => (!ONLY && !ONLY_WHEN_NAMED.includes(part)) || (ONLY?.includes(part) ?? false);
const MASTER_KEY_HEX = 'a'.repeat(64);
const WINDOW_MS = Number(process.env.BENCH_WINDOW_MS ?? (QUICK ? 4000 : 10_000));
const WARMUP_MS = QUICK ? 3000 : 5000;
const SUSTAINED = Number(process.env.BENCH_SUSTAINED ?? 3000);
/**
 * The sustained scenario's endpoints (at 1 s each) beside a ceiling of `ceilingRate` req/s: at least
 * SUSTAINED, and at least the ceiling rounded up to 500, so the load offered is more than Kairos can
 * deliver on any host and delivered/s is its capacity. On a host where got's ceiling was 8,395 req/s,
 * 3,000 endpoints delivered 3,031/s, the whole load offered: 36 % of the ceiling was the scenario's
 * cap, not Kairos's.
 */
const sustainedLoad = (ceilingRate: number) => Math.max(SUSTAINED, Math.ceil(ceilingRate / 500) * 500);
/** Sustained AI off / AI on windows, alternated (BENCH_PAIRS). */
const PAIRS = Number(process.env.BENCH_PAIRS ?? (QUICK ? 1 : 2));
/** BENCH_ONLY=skeleton alone: its rows run this many times, forward and backward in turn (session 23's ladder of Kairos's parts). */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);
const lines: string[] = [];
const report = (line: string) => {
  console.log(line);
  lines.push(line);
};
/** The Redis every scenario uses (main sets it: BENCH_REDIS_URL or a private redis-server). */
let redisUrl = '';
/** The private redis-server's process (its CPU is read around each window); undefined with BENCH_REDIS_URL. */
let redisPid: number | undefined;
/** `pnpm start` runs these (the api is idle in these scenarios and left out). */
const servicesOf = (executors = process.env.BENCH_EXECUTORS) => [
  'scheduler',
  'executor',
  'planner',
  // BENCH_EXECUTORS=2…: more executor processes (not the defaults: label such a run as tuned).
  ...Array.from({ length: Number(executors ?? 1) - 1 }, (_, index) => `executor#${index + 2}`),
];
const SERVICES = servicesOf();
/** The tuned settings of the first benchmark (bench/results.md, 2026-11-21). */
const TUNED = { EXECUTOR_CONCURRENCY: '200', SCHEDULER_CONCURRENCY: '100' };

interface Env {
  name: string;
  url: string;
  prefix: string;
  db: Database;
  env: NodeJS.ProcessEnv;
}

/**
 * A scenario's database and the services' environment: only what `pnpm start` itself sets or a
 * deployment must (database, Redis, a master key, the target's address allowed), plus a key prefix
 * of its own and ephemeral health ports. No model: ANTHROPIC_API_KEY is emptied.
 */
export async function setup(
  name: string,
  overrides: NodeJS.ProcessEnv = {},
  prefix = `{kb-${benchId()}}`,
): Promise<Env> {
  const dbName = `kairos_bench_${name}`;
  const url = await freshDatabase(dbName);
  return {
    name: dbName,
    url,
    prefix,
    db: createDatabase({ url, poolMax: 8 }),
    env: {
      DATABASE_URL: url,
      REDIS_URL: redisUrl,
      KAIROS_QUEUE_PREFIX: prefix,
      KAIROS_MASTER_KEY: MASTER_KEY_HEX,
      KAIROS_ALLOWED_TARGET_CIDRS: '127.0.0.1/32',
      ANTHROPIC_API_KEY: '',
      KAIROS_SILENT_LOGS: process.env.BENCH_LOGS ? 'false' : 'true',
      SCHEDULER_HEALTH_PORT: '0',
      EXECUTOR_HEALTH_PORT: '0',
      PLANNER_HEALTH_PORT: '0',
      ...overrides,
    },
  };
}

/**
 * The Redis a scenario runs on: one server, or a cluster (`connection` a Cluster one, `nodes` its
 * masters: INFO and SCAN are per node).
 */
interface BenchRedis {
  connection: RedisConnection;
  nodes: () => Promise<Redis[]>;
}
const single = (redis: Redis): BenchRedis => ({ connection: redis, nodes: async () => [redis] });

async function teardown(env: Env, redis: BenchRedis): Promise<void> {
  await env.db.close();
  for (const node of await redis.nodes()) await deleteKeys(env.prefix, node);
  await dropDatabase(env.name);
}

/** What FLUSHALL does to Kairos, limited to this run's prefix (and its shards' `{prefix-k}`). */
async function deleteKeys(prefix: string, redis: Redis): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix.slice(0, -1)}*`, 'COUNT', 10_000);
    cursor = next;
    // One DEL per key: on a cluster node the keys of one page may sit in different slots.
    for (const key of keys) await redis.del(key);
  } while (cursor !== '0');
}

/**
 * `count` endpoints on a 1 s interval whose first runs spread evenly over one second; with
 * BENCH_RULES=1 each carries three successWhen conditions and two rules (bench/rule-shape.ts).
 */
export async function insertEndpoints(db: Database, count: number, targetUrl: string, ai: boolean): Promise<string[]> {
  const rules = process.env.BENCH_RULES === '1' ? BENCH_RESPONSE_RULES : null;
  const { account } = await createAccount(
    db,
    { email: `bench-${benchId()}@example.test`, tier: 'enterprise' },
    { masterKey: Buffer.from(MASTER_KEY_HEX, 'hex') },
  );
  // AI scheduling is on by default for a new account (prisma/schema.prisma).
  if (!ai) await db.pool.query(`UPDATE accounts SET "aiSchedulingEnabled" = false WHERE id = $1`, [account.id]);
  const { rows: jobs } = await db.pool.query<{ id: string }>(
    `INSERT INTO jobs (id, "accountId", name, status, "updatedAt") VALUES (gen_random_uuid(), $1, 'bench', 'active', now()) RETURNING id`,
    [account.id],
  );
  const { rows } = await db.pool.query<{ id: string }>(
    `INSERT INTO endpoints (id, "accountId", "jobId", name, url, method, "baselineIntervalMs", "createdAt", "updatedAt",
                            "successWhen", rules)
     SELECT gen_random_uuid(), $1, $2, 'e' || i, $3, 'GET', 1000,
            now() + interval '2 seconds' + (i * interval '1 millisecond' * 1000 / $4), now(), $5::jsonb, $6::jsonb
       FROM generate_series(0, $4 - 1) AS i
     RETURNING id`,
    [
      account.id,
      jobs[0]!.id,
      targetUrl,
      count,
      rules && JSON.stringify(rules.successWhen),
      rules && JSON.stringify(rules.rules),
    ],
  );
  return rows.map((row) => row.id);
}

export async function announce(prefix: string, redis: RedisConnection, endpointIds: string[]): Promise<void> {
  const queue = new Queue(QUEUES.scheduleChanges, { connection: redis, prefix });
  for (let i = 0; i < endpointIds.length; i += 500) {
    await queue.addBulk(
      endpointIds.slice(i, i + 500).map((id) => ({ name: 'change', data: { endpointIds: [id], reason: 'bench' } })),
    );
  }
  await queue.close();
}

type Summary = ReturnType<typeof summarize>;

/** Context switches and read/write system calls per delivered execution, by process. */
type Wakeups = Record<string, { switches: number; syscalls: number }>;

/** Per execution, the wake-up counts between two readings (lib.ts wakeupsOfGroups). */
const perExecution = (before: Wakeups, after: Wakeups, executions: number): Wakeups =>
  Object.fromEntries(
    Object.keys(after).map((name) => [
      name,
      {
        switches: (after[name]!.switches - before[name]!.switches) / executions,
        syscalls: (after[name]!.syscalls - before[name]!.syscalls) / executions,
      },
    ]),
  );

/** CPU ms per execution by process between two readings (lib.ts cpuOf). */
const cpuPerExecution = (before: Record<string, number>, after: Record<string, number>, executions: number) =>
  Object.fromEntries(Object.keys(after).map((name) => [name, (after[name]! - before[name]!) / executions]));

/**
 * Two settings in turn, the first going first in even rounds (0, 2, …) and the second in odd ones, so a host
 * that slows or speeds up over a run is not charged to one of them.
 */
const inTurn = <T>(round: number, first: T, second: T): [T, T] => (round % 2 === 0 ? [first, second] : [second, first]);

/** A skeleton or Kairos row at saturation in words: its rate, share of the ceiling, CPU, wake-ups and core use. */
const rowText = (figures: FloorFigures | KairosFigures, ceilingRate: number) =>
  `${figures.delivered.toFixed(0)}/s, ${pct(figures.delivered / ceilingRate)} of the ceiling (${cpuLine(figures.cpu)}; ` +
  `context switches / read and write calls per execution: ${wakeupLine(figures.wakeups)}; ` +
  `the executor's threads, ms per second: ${coreUseText(figures.coreUse)})`;

/** Wake-ups per execution in words: `executor 2.1 / 3.4` (context switches / read and write calls). */
const wakeupLine = (wakeups: Wakeups) =>
  Object.entries(wakeups)
    .map(([name, { switches, syscalls }]) => `${name} ${switches.toFixed(2)} / ${syscalls.toFixed(2)}`)
    .join(', ');

interface KairosFigures {
  lateness: Summary;
  /** Calls that arrived at the target per second of the window. */
  delivered: number;
  /** Redis commands per delivered execution (every command, those run inside scripts included). */
  redisCommands: number;
  /** EVALSHA / EVAL per delivered execution (one per script run). */
  redisScripts: number;
  /** Redis commands per delivered execution on each node (one entry on a single server). */
  redisCommandsPerNode: number[];
  /** Redis commands per delivered execution by command name (those run inside scripts included). */
  redisByCommand: Record<string, number>;
  /** PostgreSQL transactions committed per recorded run (pg_stat_database; tableCounters says why per run). */
  pgTransactions: number;
  /** With countPg: statements (Q + E messages) and round trips (Q + S) per execution. */
  pgStatements?: number;
  pgRoundTrips?: number;
  /** Row updates of `endpoints` per execution, and the share PostgreSQL made HOT (no index entries written). */
  endpointUpdates: { perExecution: number; hot: number };
  /** CPU ms per delivered execution by process (/proc/<pid>/stat over the window; lib.ts cpuOf). */
  cpu: Record<string, number>;
  /** Context switches and read/write system calls per delivered execution by process (lib.ts wakeupsOfGroups). */
  wakeups: Wakeups;
  /** The host's speed in the window: the µs of wall time a fixed task took, median (lib.ts hostSpeedDuring). */
  hostTaskUs: number;
  /** The calling process's main thread on a core and waiting for one, its other threads, and the cores' busy share (lib.ts coreUseFrom). */
  coreUse: CoreUse;
  /**
   * Mean ms a due job spent in each phase of the executor's processor over the window (the executor's
   * kairos_execution_phase_seconds; one executor only, else empty); the call holds a call slot.
   */
  slotPhases: Record<string, number>;
  /** The executor's call slots (kairos_executor_concurrency_limit: EXECUTOR_CONCURRENCY as it runs). */
  slots: number;
}

/** kairos_execution_phase_seconds from an executor's /metrics: sum (s) and count by phase. */
async function executionPhases(
  port: number | undefined,
): Promise<{ slots: number; phases: Record<string, { sum: number; count: number }> }> {
  const phases: Record<string, { sum: number; count: number }> = {};
  if (port === undefined) return { slots: Number.NaN, phases };
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const slots = Number(/^kairos_executor_concurrency_limit(?:\{[^}]*\})? (\S+)$/m.exec(text)?.[1]);
  for (const [, part, phase, value] of text.matchAll(
    /^kairos_execution_phase_seconds_(sum|count)\{[^}]*\bphase="(\w+)"[^}]*\} (\S+)$/gm,
  )) {
    const entry = (phases[phase!] ??= { sum: 0, count: 0 });
    entry[part as 'sum' | 'count'] = Number(value);
  }
  return { slots, phases };
}

/** Redis calls so far on each node, in total and by script (INFO commandstats). */
async function redisCalls(
  redis: BenchRedis,
): Promise<{ total: number; scripts: number; perNode: number[]; byCommand: Record<string, number> }> {
  let total = 0;
  let scripts = 0;
  const perNode: number[] = [];
  const byCommand: Record<string, number> = {};
  for (const node of await redis.nodes()) {
    const info = await node.info('commandstats');
    let calls = 0;
    for (const match of info.matchAll(/cmdstat_([^:]+):calls=(\d+)/g)) {
      // The benchmark's own INFO / CONFIG calls are not the services' (nor a cluster's own CLUSTER calls).
      if (['info', 'config', 'scan', 'del', 'cluster'].includes(match[1]!)) continue;
      calls += Number(match[2]);
      byCommand[match[1]!] = (byCommand[match[1]!] ?? 0) + Number(match[2]);
      if (match[1] === 'evalsha' || match[1] === 'eval') scripts += Number(match[2]);
    }
    total += calls;
    perNode.push(calls);
  }
  return { total, scripts, perNode, byCommand };
}

/**
 * Updates of `endpoints` rows so far, how many were HOT, and runs inserted (every partition), from
 * pg_stat_user_tables. Backends publish these counters up to a second late, like the transaction
 * counts, so per-execution figures from them are divided by the runs inserted over the same interval.
 */
async function tableCounters(db: Database): Promise<{ updates: number; hot: number; runsInserted: number }> {
  const { rows } = await db.pool.query<{ updates: string; hot: string; runs: string }>(
    `SELECT sum(n_tup_upd) FILTER (WHERE relname = 'endpoints') AS updates,
            sum(n_tup_hot_upd) FILTER (WHERE relname = 'endpoints') AS hot,
            sum(n_tup_ins) FILTER (WHERE relname LIKE 'runs%') AS runs
       FROM pg_stat_user_tables`,
  );
  return {
    updates: Number(rows[0]?.updates ?? 0),
    hot: Number(rows[0]?.hot ?? 0),
    runsInserted: Number(rows[0]?.runs ?? 0),
  };
}

async function pgTransactions(db: Database, name: string): Promise<number> {
  const { rows } = await db.pool.query<{ n: string }>(
    `SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = $1`,
    [name],
  );
  return Number(rows[0]!.n);
}

/**
 * Every process an execution costs CPU in: the services, Redis (a private server: on a cluster the nodes
 * are not this benchmark's children and are left out), the target, and the PostgreSQL backends serving the
 * scenario's database (the benchmark's own pool among them: idle in the window).
 */
async function processesOf(
  env: Env,
  names: string[],
  services: ServiceSet,
  target: Target,
): Promise<Record<string, (number | undefined)[]>> {
  const { rows: backends } = await env.db.pool.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity WHERE datname = $1`,
    [env.name],
  );
  return {
    ...Object.fromEntries(names.map((name, index) => [name, [services.children[index]?.pid]])),
    redis: [redisPid],
    postgres: backends.map((backend) => backend.pid),
    target: [target.pid],
  };
}

/**
 * Kairos from outside: `endpoints` endpoints on a 1 s interval (so `endpoints` due per second), the
 * services as child processes, the calls timed at the target.
 */
async function kairosScenario(
  label: string,
  endpoints: number,
  target: Target,
  redis: BenchRedis,
  options: { ai: boolean; overrides?: NodeJS.ProcessEnv; countPg?: boolean; prefix?: string },
): Promise<KairosFigures> {
  const counter = options.countPg ? await startPgCounter() : undefined;
  const env = await setup(label, options.overrides, options.prefix);
  if (counter) env.env.DATABASE_URL = `postgresql://postgres@127.0.0.1:${counter.port}/${env.name}`;
  // The executor's operations port, to read its slot phases (one executor: the port is per process).
  // BENCH_EXECUTORS in a scenario's overrides (BENCH_ONLY=ab) runs that many executor processes in it.
  const serviceNames = servicesOf(options.overrides?.BENCH_EXECUTORS);
  const executors = serviceNames.filter((name) => name.startsWith('executor')).length;
  const metricsPort = executors === 1 ? await freePort() : undefined;
  if (metricsPort !== undefined) env.env.EXECUTOR_HEALTH_PORT = String(metricsPort);
  const services = startServices(serviceNames, env.env);
  try {
    await sleep(2000);
    const ids = await insertEndpoints(env.db, endpoints, target.url, options.ai);
    await announce(env.prefix, redis.connection, ids);
    await untilFlowing(target);
    await sleep(WARMUP_MS);
    await target.take();
    const callsBefore = await redisCalls(redis);
    const xactsBefore = await pgTransactions(env.db, env.name);
    const tablesBefore = await tableCounters(env.db);
    const processes = await processesOf(env, serviceNames, services, target);
    const phasesBefore = await executionPhases(metricsPort);
    const cpuBefore = cpuOf(processes);
    const wakeupsBefore = wakeupsOfGroups(processes);
    counter?.reset();
    const from = Date.now();
    const cores = coreUseFrom(services.children[serviceNames.indexOf('executor')]?.pid);
    const hostTaskUs = await hostSpeedDuring(WINDOW_MS);
    const coreUse = cores();
    const to = Date.now();
    const cpuAfter = cpuOf(processes);
    const wakeupsAfter = wakeupsOfGroups(processes);
    const phasesAfter = await executionPhases(metricsPort);
    const callsAfter = await redisCalls(redis);
    const pgCounts = counter ? { ...counter.counts } : undefined;
    await sleep(1500);
    const xactsAfter = await pgTransactions(env.db, env.name);
    const tablesAfter = await tableCounters(env.db);
    const seen = await target.take();
    const arrivalOf = new Map<string, number>();
    let delivered = 0;
    seen.runIds.forEach((runId, index) => {
      const arrival = seen.arrivals[index]!;
      if (arrival >= from && arrival < to) delivered += 1;
      if (!arrivalOf.has(runId)) arrivalOf.set(runId, arrival);
    });
    const { rows } = await env.db.pool.query<{ id: string; scheduledAt: Date }>(
      `SELECT id, "scheduledAt" FROM runs WHERE id = ANY($1::uuid[]) AND "scheduledAt" >= $2 AND "scheduledAt" < $3`,
      [[...arrivalOf.keys()].filter((id) => /^[0-9a-f-]{36}$/.test(id)), new Date(from), new Date(to - 1000)],
    );
    const executions = Math.max(1, delivered);
    const recorded = Math.max(1, tablesAfter.runsInserted - tablesBefore.runsInserted);
    return {
      lateness: summarize(rows.map((row) => arrivalOf.get(row.id)! - row.scheduledAt.getTime())),
      delivered: delivered / (WINDOW_MS / 1000),
      redisCommands: (callsAfter.total - callsBefore.total) / executions,
      redisScripts: (callsAfter.scripts - callsBefore.scripts) / executions,
      redisByCommand: Object.fromEntries(
        Object.entries(callsAfter.byCommand).map(([name, calls]) => [
          name,
          (calls - (callsBefore.byCommand[name] ?? 0)) / executions,
        ]),
      ),
      redisCommandsPerNode: callsAfter.perNode.map(
        (calls, index) => (calls - callsBefore.perNode[index]!) / executions,
      ),
      // Read 1.5 s after the window (the counters lag): per run recorded in the same interval.
      pgTransactions: (xactsAfter - xactsBefore) / recorded,
      endpointUpdates: {
        perExecution: (tablesAfter.updates - tablesBefore.updates) / recorded,
        hot: (tablesAfter.hot - tablesBefore.hot) / Math.max(1, tablesAfter.updates - tablesBefore.updates),
      },
      cpu: cpuPerExecution(cpuBefore, cpuAfter, executions),
      wakeups: perExecution(wakeupsBefore, wakeupsAfter, executions),
      slotPhases: Object.fromEntries(
        Object.entries(phasesAfter.phases).map(([phase, { sum, count }]) => {
          const before = phasesBefore.phases[phase] ?? { sum: 0, count: 0 };
          return [phase, (1000 * (sum - before.sum)) / Math.max(1, count - before.count)];
        }),
      ),
      slots: phasesAfter.slots,
      hostTaskUs,
      coreUse,
      ...(pgCounts
        ? {
            pgStatements: ((pgCounts.Q ?? 0) + (pgCounts.E ?? 0)) / executions,
            pgRoundTrips: ((pgCounts.Q ?? 0) + (pgCounts.S ?? 0)) / executions,
          }
        : {}),
    };
  } finally {
    await services.stop();
    await teardown(env, redis);
    counter?.stop();
  }
}

/**
 * Waits (at most 90 s) until calls arrive at the target in two seconds running: on a loaded machine the
 * services take seconds to start, and the warm-up starts from there.
 */
async function untilFlowing(target: Target): Promise<void> {
  let running = 0;
  for (let second = 0; second < 90 && running < 2; second += 1) {
    await sleep(1000);
    running = (await target.take()).runIds.length > 0 ? running + 1 : 0;
  }
  if (running < 2) throw new Error('no call reached the target within 90 s');
}

/**
 * The floor at `rate` due/s (bench/floor.ts in its own process): its lateness (arrival − due), the calls
 * that arrived per second in the window, and the CPU ms one of its jobs costs by process (floor, Redis,
 * target).
 */
interface FloorFigures {
  lateness: Summary;
  delivered: number;
  cpu: Record<string, number>;
  /** Context switches and read/write system calls per job by process (lib.ts wakeupsOfGroups). */
  wakeups: Wakeups;
  /** The host's speed in the window: the µs of wall time a fixed task took, median (lib.ts hostSpeedDuring). */
  hostTaskUs: number;
  /** The calling process's main thread on a core and waiting for one, its other threads, and the cores' busy share (lib.ts coreUseFrom). */
  coreUse: CoreUse;
}

/** What reportExecutorCosts needs of one window: its rate and its span (CoreUse.windowUs). */
type WindowFigures = Pick<FloorFigures, 'delivered' | 'coreUse'>;

async function floorScenario(rate: number, target: Target, redis: Redis): Promise<FloorFigures> {
  const prefix = `{kb-floor-${benchId()}}`;
  const child = startScript('floor.ts', {
    FLOOR_REDIS_URL: redisUrl,
    FLOOR_PREFIX: prefix,
    FLOOR_TARGET: target.url,
    FLOOR_COUNT: String(rate),
    FLOOR_RUN_MS: String(WARMUP_MS + WINDOW_MS + 1000),
  });
  try {
    const { startAt } = await messageFrom<{ startAt: number }>(child, 'the floor process');
    const processes = { floor: [child.pid], redis: [redisPid], target: [target.pid] };
    return await windowFrom(startAt, async () => processes, target);
  } finally {
    await stopScript(child);
    await deleteKeys(prefix, redis);
  }
}

/** Which of bench/skeleton.ts's rows: the stored plan, calls in a worker thread, Kairos's parts (SKELETON_KAIROS). */
interface SkeletonOptions {
  plan: boolean;
  callThread?: boolean;
  kairos?: 'call' | 'call,admission' | 'call,admission,execute';
}

/** The environment that picks a skeleton row (bench/skeleton.ts reads it; lib.ts scriptName names it). */
const skeletonVariant = (options: SkeletonOptions) => ({
  SKELETON_PLAN: options.plan ? '1' : '0',
  SKELETON_CALL_THREAD: options.callThread ? '1' : '0',
  SKELETON_KAIROS: options.kairos ?? '',
});

/** The profile's name of a skeleton row's executor under BENCH_CPU_PROF. */
const skeletonExecutorProfile = (options: SkeletonOptions) =>
  scriptName('skeleton.ts', { ...skeletonVariant(options), SKELETON_ROLE: 'executor' });

/**
 * The card's shape at its least at saturation (bench/skeleton.ts: its executor and scheduler in processes
 * of their own, Kairos's read and record statements, SKELETON_PLAN with its recompute's too), `endpoints`
 * at 1 s: what the shape with a durable run delivers before Kairos's own work, beside the floor and the
 * ceiling of the same pair.
 */
async function skeletonScenario(
  endpoints: number,
  target: Target,
  redis: Redis,
  options: SkeletonOptions,
): Promise<FloorFigures> {
  const env = await setup(`skeleton_${options.plan ? 'plan' : 'least'}`);
  const common = {
    SKELETON_REDIS_URL: redisUrl,
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
        redis: [redisPid],
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
function messageFrom<T>(child: ChildProcess, name: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    child.once('message', (message) => resolve(message as T));
    child.once('exit', () => reject(new Error(`${name} exited before it started`)));
  });
}

/** Asks a bench script to stop ('stop' over IPC), killing it after 10 s. */
function stopScript(child: ChildProcess): Promise<void> {
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
async function windowFrom(
  startAt: number,
  processesAt: () => Promise<Record<string, (number | undefined)[]>>,
  target: Target,
): Promise<FloorFigures> {
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
async function ceiling(
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
  // every other window: a ceiling measured while the host ran slowly flatters the pair's ratio (session
  // 17: 2,642 req/s before one pair, 3,370–4,395 before the others).
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

const sumOf = (values: number[]): number => values.reduce((sum, value) => sum + value, 0);
const meanOf = (values: number[]): number => sumOf(values) / values.length;

/** The mean of several runs' figures (delivered, round trips, CPU); lateness from the first. */
function meanFigures(runs: KairosFigures[]): KairosFigures {
  const mean = (pick: (run: KairosFigures) => number) => meanOf(runs.map(pick));
  return {
    ...runs[0]!,
    delivered: mean((run) => run.delivered),
    redisCommands: mean((run) => run.redisCommands),
    redisScripts: mean((run) => run.redisScripts),
    pgTransactions: mean((run) => run.pgTransactions),
    hostTaskUs: mean((run) => run.hostTaskUs),
    coreUse: meanCoreUse(runs),
    cpu: Object.fromEntries(Object.keys(runs[0]!.cpu).map((name) => [name, mean((run) => run.cpu[name]!)])),
    wakeups: meanWakeups(runs),
    slotPhases: Object.fromEntries(
      Object.keys(runs[0]!.slotPhases).map((phase) => [phase, mean((run) => run.slotPhases[phase] ?? 0)]),
    ),
  };
}

/** The mean of the floor's saturated runs. */
function meanFloor(runs: FloorFigures[]): FloorFigures {
  return {
    lateness: runs.at(-1)!.lateness,
    delivered: meanOf(runs.map((run) => run.delivered)),
    cpu: Object.fromEntries(Object.keys(runs[0]!.cpu).map((name) => [name, meanOf(runs.map((run) => run.cpu[name]!))])),
    wakeups: meanWakeups(runs),
    hostTaskUs: meanOf(runs.map((run) => run.hostTaskUs)),
    coreUse: meanCoreUse(runs),
  };
}

/** The mean of several windows' wake-ups per execution, process by process. */
const meanWakeups = (runs: { wakeups: Wakeups }[]): Wakeups =>
  Object.fromEntries(
    Object.keys(runs[0]!.wakeups).map((name) => [
      name,
      {
        switches: meanOf(runs.map((run) => run.wakeups[name]!.switches)),
        syscalls: meanOf(runs.map((run) => run.wakeups[name]!.syscalls)),
      },
    ]),
  );

/** A window's CoreUse as printed: main thread on a core / waiting, other threads, the cores' busy share. */
const coreUseText = (use: CoreUse): string =>
  Number.isNaN(use.runMsPerS)
    ? `n/a (cores ${(100 * use.coresBusy).toFixed(0)} %)`
    : `${use.runMsPerS.toFixed(0)} / ${use.waitMsPerS.toFixed(0)}, other threads ${use.otherThreadsMsPerS.toFixed(0)} ` +
      `(cores ${(100 * use.coresBusy).toFixed(0)} %)`;

const meanCoreUse = (runs: { coreUse: CoreUse }[]): CoreUse => ({
  runMsPerS: meanOf(runs.map((run) => run.coreUse.runMsPerS)),
  waitMsPerS: meanOf(runs.map((run) => run.coreUse.waitMsPerS)),
  otherThreadsMsPerS: meanOf(runs.map((run) => run.coreUse.otherThreadsMsPerS)),
  coresBusy: meanOf(runs.map((run) => run.coreUse.coresBusy)),
  // From the first window's start to the last one's end, the gaps between them included: a span to print,
  // not one to cut a profile to (reportExecutorCosts takes one window's).
  windowUs: [runs[0]!.coreUse.windowUs[0], runs.at(-1)!.coreUse.windowUs[1]],
});

/** CPU ms of every process together (a figure's `cpu`). */
const cpuTotal = (cpu: Record<string, number>): number => sumOf(Object.values(cpu));

/** PostgreSQL's CPU per run for a durable run alone and for Kairos's record statement (durableRunCost). */
interface DurableRunFigures {
  /** The run's row alone (insertRunRows), in batches of DURABLE_BATCH. */
  runRowMs: number;
  /** The record statement: the row and its endpoint's state (recordScheduledRuns), in the same batches. */
  recordMs: number;
}

/** The record batches' size at saturation: 3,400 runs/s at 0.06 PostgreSQL transactions per run. */
const DURABLE_BATCH = 50;

/**
 * What recording a run costs PostgreSQL at the least: 5,000 endpoints' runs written 12 times over one
 * connection, its backend's CPU read from /proc, the run rows alone and then Kairos's record statement,
 * alternated twice (the second of each counts: the first warms the plan and the pages). The rest of
 * PostgreSQL's share of an execution at saturation is the admission's read, the scheduler's recompute
 * and their commits.
 */
async function durableRunCost(): Promise<DurableRunFigures> {
  const name = 'kairos_bench_durable';
  const url = await freshDatabase(name);
  const db = createDatabase({ url, poolMax: 1 });
  try {
    const endpointIds = await insertEndpoints(db, 5000, 'http://127.0.0.1:9/', false);
    const { rows } = await db.pool.query<{ pid: number; accountId: string }>(
      `SELECT pg_backend_pid() AS pid, "accountId" FROM endpoints LIMIT 1`,
    );
    const { pid, accountId } = rows[0]!;
    let from = Date.now() + 60_000;
    const measure = async (write: (runs: RunOutcome[]) => Promise<unknown>): Promise<number> => {
      const before = cpuMs(pid);
      let written = 0;
      for (let round = 0; round < 12; round += 1, from += 1000) {
        for (let index = 0; index < endpointIds.length; index += DURABLE_BATCH) {
          const at = new Date(from);
          // A 200 with a small JSON body, as the benchmark's target answers.
          const runs = endpointIds.slice(index, index + DURABLE_BATCH).map((endpointId) => ({
            ...runOutcome({ accountId, endpointId }, at),
            responseBody: { ok: true },
            responseFormat: 'json',
            responseSizeBytes: 11,
          }));
          await write(runs);
          written += runs.length;
        }
      }
      return (cpuMs(pid) - before) / written;
    };
    const figures = { runRowMs: 0, recordMs: 0 };
    for (let pass = 0; pass < 2; pass += 1) {
      figures.runRowMs = await measure((runs) => insertRunRows(db, runs));
      figures.recordMs = await measure((runs) => recordScheduledRuns(db, runs));
    }
    return figures;
  } finally {
    await db.close();
    await dropDatabase(name);
  }
}

/** One executor's profile for reportExecutorCosts: its file's stem (lib.ts startScript), its window, its name in the table. */
interface ProfiledExecutor {
  profile: string;
  window: WindowFigures;
  label: string;
}

/**
 * BENCH_CPU_PROF with BENCH_ONLY=skeleton: one executor's main thread beside another's (Kairos's beside the
 * shape's with its stored plan; a rung of the ladder beside the one before it), µs per execution by what
 * ran it (profile-diff.ts), from the profiles of the last windows.
 */
function reportExecutorCosts(dir: string, a: ProfiledExecutor, b: ProfiledExecutor): void {
  const [aPath, bPath] = [a, b].map(({ profile }) => join(dir, `${profile}.cpuprofile`));
  if (!existsSync(aPath!) || !existsSync(bPath!)) {
    report(`(no profiles ${a.profile} and ${b.profile} in ${dir}: their comparison is left out)`);
    return;
  }
  const rows = compareCosts(
    costsPerExecution(aPath!, a.window.delivered, a.window.coreUse.windowUs),
    costsPerExecution(bPath!, b.window.delivered, b.window.coreUse.windowUs),
  );
  report(
    `## The executor's main thread per execution by what ran it (µs; V8 CPU profiles, the measurement windows; ${a.label} at ${a.window.delivered.toFixed(0)}/s, ${b.label} at ${b.window.delivered.toFixed(0)}/s)`,
  );
  report('');
  report(`| cost | ${a.label} | ${b.label} | difference |`);
  report('|---|---|---|---|');
  const sum = (side: 'a' | 'b', from: CostRow[]) => from.reduce((total, row) => total + row[side], 0);
  const shown = rows.filter((row) => Math.abs(row.a - row.b) >= 1 || row.a >= 10);
  const rest = rows.filter((row) => !shown.includes(row));
  const line = (cost: string, a: number, b: number) =>
    report(`| ${cost} | ${a.toFixed(1)} | ${b.toFixed(1)} | ${(a - b >= 0 ? '+' : '') + (a - b).toFixed(1)} |`);
  for (const row of shown) line(row.cost, row.a, row.b);
  line(`the rest (${rest.length} more, each under 1 µs apart)`, sum('a', rest), sum('b', rest));
  line('**all**', sum('a', rows), sum('b', rows));
  report('');
  // Batched work (PostgreSQL statements, Redis scripts) costs less per execution in fuller batches,
  // and the faster process fills them more: a difference there is partly the rate's.
  report(
    "Node's modules are charged to the library or Kairos code that called them (a socket write to ioredis, pg or got; node:crypto under signing to packages/core). Batched work costs less per execution in fuller batches: at different rates part of a difference in pg, ioredis and bullmq is the rate's.",
  );
  report('');
}

/**
 * Where the CPU of one execution goes at saturation, beside what one request costs got and the target
 * at the ceiling: the sum bounds the rate two cores can hold (2,000 CPU-ms per second), whatever the
 * concurrency settings.
 */
function reportCpu(
  off: KairosFigures,
  on: KairosFigures,
  raw: { rate: number; gotCpuMs: number; targetCpuMs: number },
  floor: FloorFigures,
  offered: number[],
  durable: DurableRunFigures,
  planned: FloorFigures,
) {
  const total = (figures: KairosFigures) => cpuTotal(figures.cpu);
  const budgetMs = (cpus().length * 1000) / (0.7 * raw.rate);
  report(
    `## CPU per delivered execution at saturation (ms; ${offered.map(thousands).join(', ')} endpoints at 1 s; got's figures are the mean of the ceiling runs)`,
  );
  report('');
  report('| process | AI off | AI on, no model |');
  report('|---|---|---|');
  for (const name of Object.keys(off.cpu))
    report(`| ${name} | ${off.cpu[name]!.toFixed(3)} | ${on.cpu[name]!.toFixed(3)} |`);
  report(`| **all** | **${total(off).toFixed(3)}** | **${total(on).toFixed(3)}** |`);
  report('');
  report(
    `At the ceiling one request costs got ${raw.gotCpuMs.toFixed(3)} ms and the target ${raw.targetCpuMs.toFixed(3)} ms of CPU. ` +
      `${cpus().length} cores give ${cpus().length * 1000} CPU-ms per second: at ${total(off).toFixed(3)} ms per execution they hold at most ` +
      `${((cpus().length * 1000) / total(off)).toFixed(0)} executions/s; 70 % of the ceiling (${(0.7 * raw.rate).toFixed(0)}/s) needs ≤ ${budgetMs.toFixed(3)} ms ` +
      `for everything, the target's ${raw.targetCpuMs.toFixed(3)} ms included.`,
  );
  // The executor is bound by how long an execution holds one of its call slots (the call:
  // services/executor/src/call-slots.ts) as much as by CPU: at most EXECUTOR_CONCURRENCY / (slot time)
  // executions per second (Little's law). Its due workers take DUE_JOBS_PER_CALL_SLOT as many jobs, which
  // also spend admission, the wait (for the run's time, then for a slot) and the record in the processor.
  const phases = Object.entries(off.slotPhases);
  if (phases.length > 0) {
    const jobMs = sumOf(Object.values(off.slotPhases));
    const slotMs = off.slotPhases.call ?? 0;
    report(
      `A due job spent ${jobMs.toFixed(1)} ms in the executor's processor on average (AI off: ${phases.map(([phase, ms]) => `${phase} ${ms.toFixed(1)}`).join(', ')} ms; ` +
        `kairos_execution_phase_seconds; the wait includes waiting for a call slot), of which it held a call slot ${slotMs.toFixed(1)} ms: ` +
        `${off.slots} call slots so held carry at most ${((off.slots * 1000) / slotMs).toFixed(0)} executions/s, and ${DUE_JOBS_PER_CALL_SLOT * off.slots} due jobs ` +
        `at most ${((DUE_JOBS_PER_CALL_SLOT * off.slots * 1000) / jobMs).toFixed(0)}/s (BullMQ's own moves before and after the processor are not in it).`,
    );
  }
  // What the prescribed shape costs before Kairos adds anything: a BullMQ delayed job per call and got
  // (no PostgreSQL, no lock, no quota), at saturation in the floor's own windows.
  const parts = Object.entries(floor.cpu).map(([name, value]) => `${name} ${value.toFixed(3)}`);
  const floorTotal = cpuTotal(floor.cpu);
  // A durable run at the least: the floor plus the run's row in PostgreSQL, beside the budget; the rest
  // of Kairos's cost is its own work (lock, quota, the endpoint's state, the recompute, metrics).
  const durableMs = floorTotal + durable.runRowMs;
  report(
    `Bare BullMQ + got at saturation (${floor.delivered.toFixed(0)} jobs/s) costs ${floorTotal.toFixed(3)} ms per job (${parts.join(', ')}). ` +
      `A durable run adds at least its row in PostgreSQL: ${durable.runRowMs.toFixed(3)} ms in batches of ${DURABLE_BATCH} ` +
      `(${durable.recordMs.toFixed(3)} ms with its endpoint's state, Kairos's record statement; PostgreSQL's whole share of a Kairos execution ` +
      `is ${off.cpu.postgres!.toFixed(3)} ms with the admission's read and the scheduler's recompute). The floor with the run's row costs ` +
      `${durableMs.toFixed(3)} ms against the ${budgetMs.toFixed(3)} ms that 70 % of the ceiling allows, which leaves ` +
      `${(budgetMs - durableMs).toFixed(3)} ms for Kairos's own work; Kairos costs ${moreOrLess(total(off) - durableMs)} than the two.`,
  );
  // The floor is not the shape's least cost: its worker adds each next job itself, one round trip per
  // call, where the shape's scheduler adds a batch's in one write. The skeleton is the shape as built,
  // durable, before Kairos's own work; Kairos minus it, by process, is that work.
  const extra = Object.keys(off.cpu).map((name) => `${name} ${(off.cpu[name]! - (planned.cpu[name] ?? 0)).toFixed(3)}`);
  report(
    `The card's shape at its least with the planned run stored (bench/skeleton.ts, ${planned.delivered.toFixed(0)} executions/s) costs ` +
      `${cpuTotal(planned.cpu).toFixed(3)} ms per execution (${cpuLine(planned.cpu)}), ${(budgetMs - cpuTotal(planned.cpu)).toFixed(3)} ms ` +
      `inside the budget. Kairos costs ${moreOrLess(total(off) - cpuTotal(planned.cpu))} (by process: ${extra.join(', ')}).`,
  );
  // The budget above counts every core-millisecond, but the durable rows have kept the cores at most
  // 85–93 % busy (the highest share of each of sessions 24–27; /proc/stat, every process's): their
  // executor's main thread, runnable nearly all of each second, waits for a core 22–34 % of it.
  // Neither a session (autogroup) of its own (session 27: 97.9 % of the rate) nor a second executor
  // process (cores 99 % busy, 10–22 % more CPU per execution; session 24) gives that share back;
  // SCHED_FIFO did (+9–12 %; session 24) and needs CAP_SYS_NICE. So the budget that holds is the one
  // at the share the cores gave.
  const busiest = Math.max(off.coreUse.coresBusy, planned.coreUse.coresBusy);
  const heldMs = budgetMs * busiest;
  const ofHeld = (ms: number) => `${ms.toFixed(3)} ms, ${pct(ms / heldMs)} of it`;
  report(
    `The cores were ${pct(off.coreUse.coresBusy)} busy in Kairos's windows and ${pct(planned.coreUse.coresBusy)} in the shape's with its stored plan; ` +
      `at ${pct(busiest)} busy, 70 % of the ceiling allows ${heldMs.toFixed(3)} ms per execution: the shape with its stored plan costs ` +
      `${ofHeld(cpuTotal(planned.cpu))}, Kairos ${ofHeld(total(off))}.`,
  );
  report('');
}

const thousands = (value: number) => value.toLocaleString('en');
/** A CPU difference in words: `0.120 ms more`, `0.031 ms less`. */
const moreOrLess = (ms: number) => `${Math.abs(ms).toFixed(3)} ms ${ms < 0 ? 'less' : 'more'}`;
/** CPU ms per job by process and in all (a figure's `cpu`). */
const cpuLine = (cpu: Record<string, number>) =>
  `${Object.entries(cpu)
    .map(([name, value]) => `${name} ${value.toFixed(3)}`)
    .join(', ')}; all ${cpuTotal(cpu).toFixed(3)} ms per job`;
const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(value < 10 ? 1 : 0) : '–');
const pct = (value: number) => `${(value * 100).toFixed(0)} %`;
/**
 * A share compared with a target, to one decimal: the whole-percent figure printed a 69.98 % mean
 * as "70 %" beside "≥ 70 %" (session 16's first run), a miss that read as met.
 */
const pctAgainst = (value: number) => `${(value * 100).toFixed(1)} %`;
/** Each target row says whether its target held, from the figures it prints. */
const verdict = (met: boolean) => (met ? 'met' : '**missed**');

async function changeToEffect(targetUrl: string, redis: Redis): Promise<ReturnType<typeof summarize>> {
  const env = await setup('change');
  const services = startServices(['api', 'scheduler', 'executor'], { ...env.env, PORT: '3917' });
  const samples = QUICK ? 50 : 200;
  try {
    const { apiKey } = await createAccount(
      env.db,
      { email: `bench-${benchId()}@example.test`, tier: 'enterprise', apiKeyName: 'bench' },
      { masterKey: Buffer.from(MASTER_KEY_HEX, 'hex') },
    );
    const base = 'http://127.0.0.1:3917';
    for (
      let i = 0;
      i < 100 &&
      !(await fetch(`${base}/readyz`)
        .then((r) => r.ok)
        .catch(() => false));
      i += 1
    )
      await sleep(100);
    const headers = { 'x-api-key': apiKey!.raw, 'content-type': 'application/json' };
    const job = (await (
      await fetch(`${base}/api/jobs`, { method: 'POST', headers, body: JSON.stringify({ name: 'change' }) })
    ).json()) as { id: string };
    const endpointIds: string[] = [];
    for (let i = 0; i < samples; i += 1) {
      const response = await fetch(`${base}/api/jobs/${job.id}/endpoints`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ name: `c${i}`, url: targetUrl, method: 'GET', baselineIntervalMs: 3_600_000 }),
      });
      if (!response.ok) throw new Error(`endpoint not created: ${response.status} ${await response.text()}`);
      endpointIds.push(((await response.json()) as { id: string }).id);
    }
    await sleep(2000);
    const events = new QueueEvents(QUEUES.due, {
      connection: new Redis(redisUrl, { maxRetriesPerRequest: null }),
      prefix: env.prefix,
    });
    await events.waitUntilReady();
    const seen = new Map<string, number>();
    events.on('delayed', ({ jobId }) => {
      const endpointId = parseDueJobId(jobId)?.endpointId;
      if (endpointId && !seen.has(endpointId)) seen.set(endpointId, performance.now());
    });
    const latencies: number[] = [];
    for (const endpointId of endpointIds) {
      // The account's rate limit (1,200 requests a minute) can refuse a call: wait and redo it.
      let startedAt = 0;
      for (let attempt = 0; attempt < 5; attempt += 1) {
        seen.delete(endpointId);
        startedAt = performance.now();
        const response = await fetch(`${base}/api/endpoints/${endpointId}/hints/oneshot`, {
          method: 'POST',
          headers,
          body: JSON.stringify({
            nextRunAt: new Date(Date.now() + 600_000).toISOString(),
            ttlMinutes: 30,
            reason: 'bench',
          }),
        });
        if (response.status !== 429) {
          if (!response.ok) throw new Error(`one-shot hint refused: ${response.status} ${await response.text()}`);
          break;
        }
        await sleep(Number(response.headers.get('retry-after') ?? 1) * 1000);
      }
      for (let i = 0; i < 2000 && !seen.has(endpointId); i += 1) await sleep(1);
      if (seen.has(endpointId)) latencies.push(seen.get(endpointId)! - startedAt);
    }
    await events.close();
    return summarize(latencies);
  } finally {
    await services.stop();
    await teardown(env, single(redis));
  }
}

/**
 * Where a due job's bytes are (MEMORY USAGE): its hash (key included; mean of 1,000 jobs from the
 * delayed set) and its member of the delayed set, with the hash's encoding (listpack: compact).
 */
async function memoryBreakdown(redis: Redis, dueQueue: DueQueue, count: number) {
  const ids = await redis.zrange(dueQueue.queue.toKey('delayed'), '0', '999');
  let hashBytes = 0;
  for (const id of ids) hashBytes += Number(await redis.memory('USAGE', dueQueue.queue.toKey(id)));
  const delayedBytes = Number(await redis.memory('USAGE', dueQueue.queue.toKey('delayed'), 'SAMPLES', '0'));
  return {
    hashBytes: hashBytes / Math.max(1, ids.length),
    delayedBytes: delayedBytes / count,
    encoding: String(await redis.object('ENCODING', dueQueue.queue.toKey(ids[0]!))),
  };
}

async function reconcileScale(redis: Redis): Promise<{
  endpoints: number;
  insertMs: number;
  memoryBytes: number;
  firstMs: number;
  afterFlushMs: number;
  /**
   * CPU seconds during the sweep after the flush: redis-server's (INFO cpu), this process's (the
   * reconciler) and its PostgreSQL backends' (/proc/<pid>/stat: PostgreSQL on this machine only).
   */
  afterFlushCpu: { redisS: number; reconcilerS: number; postgresS: number };
  hashBytes: number;
  delayedBytes: number;
  encoding: string;
}> {
  const count = Number(process.env.BENCH_ENDPOINTS ?? (QUICK ? 10_000 : 100_000));
  const env = await setup('scale');
  try {
    const { account } = await createAccount(
      env.db,
      { email: `bench-${benchId()}@example.test` },
      { masterKey: Buffer.from(MASTER_KEY_HEX, 'hex') },
    );
    const { rows: jobs } = await env.db.pool.query<{ id: string }>(
      `INSERT INTO jobs (id, "accountId", name, status, "updatedAt") VALUES (gen_random_uuid(), $1, 'scale', 'active', now()) RETURNING id`,
      [account.id],
    );
    const inserting = performance.now();
    await env.db.pool.query(
      `INSERT INTO endpoints (id, "accountId", "jobId", name, url, method, "baselineIntervalMs", "updatedAt",
                              "nextRunAt", "nextRunId", "nextRunSource", "scheduleVersion")
       SELECT gen_random_uuid(), $1, $2, 'e' || i, 'http://127.0.0.1:9/', 'GET', 3600000, now(),
              now() + interval '1 hour' + (i * interval '1 millisecond' * 36), gen_random_uuid(), 'baseline-interval', 1
         FROM generate_series(1, $3) AS i`,
      [account.id, jobs[0]!.id, count],
    );
    await env.db.pool.query('ANALYZE endpoints');
    const insertMs = performance.now() - inserting;
    const logger = createLogger('bench', 'error');
    logger.silent = true;
    const producer = new Redis(redisUrl, { maxRetriesPerRequest: null });
    const dueQueue = new DueQueue(producer, env.prefix);
    const reconciler = new Reconciler({
      db: env.db,
      dueQueue,
      logger,
      recompute: async () => undefined,
      intervalMs: 60_000,
      dirtyGraceMs: 5000,
      now: () => new Date(),
    });
    const memory = async () => Number(/used_memory:(\d+)/.exec(await redis.info('memory'))![1]);
    const before = await memory();
    let started = performance.now();
    const first = await reconciler.sweep();
    const firstMs = performance.now() - started;
    const memoryBytes = (await memory()) - before;
    if (first.restored !== count) throw new Error(`restored ${first.restored} of ${count}`);
    const breakdown = await memoryBreakdown(redis, dueQueue, count);
    // Printed at once too: at 1,000,000 endpoints on a loaded machine the second sweep takes minutes more.
    console.log(
      `first sweep of ${count}: ${(firstMs / 1000).toFixed(1)} s, ${(memoryBytes / count).toFixed(0)} B/endpoint`,
      breakdown,
    );
    await deleteKeys(env.prefix, redis);
    const redisCpuS = async () => {
      const info = await redis.info('cpu');
      return Number(/used_cpu_user:([\d.]+)/.exec(info)![1]) + Number(/used_cpu_sys:([\d.]+)/.exec(info)![1]);
    };
    const postgresCpuS = async () => {
      const { rows } = await env.db.pool.query<{ pid: number }>(
        'SELECT pid FROM pg_stat_activity WHERE datname = current_database()',
      );
      let ticks = 0;
      for (const { pid } of rows) {
        // Fields 14 and 15 (utime, stime, in clock ticks of 1/100 s) after the ") " ending the name.
        try {
          const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
          ticks += Number(fields[11] ?? 0) + Number(fields[12] ?? 0);
        } catch {
          // A backend that ended, or PostgreSQL on another machine: not counted.
        }
      }
      return ticks / 100;
    };
    const [redisCpuBefore, ownCpuBefore, postgresCpuBefore] = [
      await redisCpuS(),
      process.cpuUsage(),
      await postgresCpuS(),
    ];
    started = performance.now();
    const second = await reconciler.sweep();
    const afterFlushMs = performance.now() - started;
    const ownCpu = process.cpuUsage(ownCpuBefore);
    const afterFlushCpu = {
      redisS: (await redisCpuS()) - redisCpuBefore,
      reconcilerS: (ownCpu.user + ownCpu.system) / 1e6,
      postgresS: (await postgresCpuS()) - postgresCpuBefore,
    };
    if (second.restored !== count) throw new Error(`after the flush restored ${second.restored} of ${count}`);
    await dueQueue.close();
    producer.disconnect();
    return { endpoints: count, insertMs, memoryBytes, firstMs, afterFlushMs, afterFlushCpu, ...breakdown };
  } finally {
    await teardown(env, single(redis));
  }
}

/**
 * The sustained scenario on a local Redis Cluster (three masters, three replicas) with 1 and 3 queue
 * shards. The prefix is chosen so the three shards' hash tags sit on three different masters (as an
 * operator places them: docs/operations.md "Queue shards and Redis Cluster").
 */
async function clusterScenarios(target: Target): Promise<void> {
  const cluster: RedisCluster = await startRedisCluster();
  const connection = createRedisConnection({ url: '', clusterNodes: cluster.nodes });
  const redis: BenchRedis = {
    connection,
    nodes: async () => (await cluster.masters()).map((port) => cluster.node(port)),
  };
  try {
    const masters = await cluster.masters();
    let prefix = '';
    for (let attempt = 0; attempt < 500 && !prefix; attempt += 1) {
      const candidate = `{kb-${benchId()}}`;
      const owners = await Promise.all([0, 1, 2].map((shard) => cluster.masterOf(shardPrefix(candidate, shard))));
      if (new Set(owners).size === masters.length) prefix = candidate;
    }
    report(`## Redis Cluster (3 masters + 3 replicas on loopback), ${thousands(SUSTAINED)} endpoints at 1 s`);
    report('');
    report('| queue shards | delivered/s | lateness p50 / p99 | Redis commands per execution | per master |');
    report('|---|---|---|---|---|');
    for (const shards of [1, 3]) {
      const figures = await kairosScenario(`cluster_${shards}`, SUSTAINED, target, redis, {
        ai: false,
        prefix,
        overrides: { REDIS_CLUSTER_NODES: cluster.nodes, KAIROS_QUEUE_SHARDS: String(shards) },
      });
      report(
        `| ${shards} | ${figures.delivered.toFixed(0)} | ${ms(figures.lateness.p50)} / ${ms(figures.lateness.p99)} ms | ` +
          `${figures.redisCommands.toFixed(1)} | ${figures.redisCommandsPerNode.map((calls) => calls.toFixed(1)).join(' / ')} |`,
      );
    }
    report('');
  } finally {
    connection.disconnect();
    cluster.stop();
  }
}

/**
 * BENCH_ONLY=priority, a diagnostic (never what `pnpm start` does): one set of services at saturation, its
 * executor's main thread alternated between the scheduling it starts with and SCHED_FIFO (`chrt`, which
 * needs CAP_SYS_NICE), BENCH_ROUNDS pairs of windows. At saturation that thread is runnable nearly all of
 * each second, yet on a core for only ≈ 70 % of it while the cores idle ≈ 14 % (session 24): it waits for the
 * co-located processes it feeds. The raised windows say what that wait costs; they are not a default, as
 * a real-time thread at 90 % of a core starves the machine's other work on it.
 */
async function priorityDiagnostic(target: Target, redis: Redis): Promise<void> {
  const load = sustainedLoad((await ceiling(target)).rate);
  const env = await setup('priority');
  const services = startServices(SERVICES, env.env);
  const executorPid = services.children[SERVICES.indexOf('executor')]!.pid!;
  const schedule = (realtime: boolean) =>
    execFileSync('chrt', realtime ? ['-f', '-p', '1', String(executorPid)] : ['-o', '-p', '0', String(executorPid)]);
  report(
    `## The executor's main thread raised to SCHED_FIFO (a diagnostic; ${thousands(load)} endpoints at 1 s, defaults)`,
  );
  report('');
  try {
    await sleep(2000);
    await announce(env.prefix, redis, await insertEndpoints(env.db, load, target.url, false));
    await untilFlowing(target);
    await sleep(WARMUP_MS);
    const delivered: Record<'plain' | 'raised', number[]> = { plain: [], raised: [] };
    for (let round = 1; round <= ROUNDS; round += 1) {
      for (const realtime of inTurn(round - 1, false, true)) {
        schedule(realtime);
        await sleep(2000);
        await target.take();
        const processes = await processesOf(env, SERVICES, services, target);
        const cpuBefore = cpuOf(processes);
        const from = Date.now();
        const cores = coreUseFrom(executorPid);
        await sleep(WINDOW_MS);
        const coreUse = cores();
        const cpuAfter = cpuOf(processes);
        const arrivals = (await target.take()).arrivals.filter((at) => at >= from && at < from + WINDOW_MS).length;
        const perSecond = arrivals / (WINDOW_MS / 1000);
        delivered[realtime ? 'raised' : 'plain'].push(perSecond);
        const cpu = cpuPerExecution(cpuBefore, cpuAfter, Math.max(1, arrivals));
        report(
          `round ${round}, ${realtime ? 'SCHED_FIFO' : 'as started'}: ${perSecond.toFixed(0)}/s (${cpuLine(cpu)}; ` +
            `the executor's threads, ms per second: ${coreUseText(coreUse)})`,
        );
      }
    }
    const ratios = delivered.raised.map((raised, index) => raised / delivered.plain[index]!);
    report('');
    report(
      `Raised against as started, round by round: ${ratios.map(pct).join(', ')}; mean ${pctAgainst(meanOf(ratios))}.`,
    );
    report('');
  } catch (error) {
    report(`Not measured: ${(error as Error).message.split('\n')[0]} (chrt needs CAP_SYS_NICE).`);
    report('');
  } finally {
    await services.stop();
    await teardown(env, single(redis));
  }
}

async function main(): Promise<void> {
  const own = process.env.BENCH_REDIS_URL ? undefined : await startRedis();
  redisUrl = process.env.BENCH_REDIS_URL ?? own!.url;
  redisPid = own?.pid;
  const redis = new Redis(redisUrl);
  await redis.config('SET', 'hz', '100');
  const target = await startTarget();
  report(`# Kairos benchmark — ${new Date().toISOString()}`);
  report('');
  report(
    `Machine: ${cpus().length} cores (${cpus()[0]?.model ?? 'cpu'}), Node ${process.version}, load average at start ${loadavg()[0]!.toFixed(1)}; ` +
      `Redis ${own ? 'a private redis-server' : redisUrl} (hz 100), PostgreSQL ${PG_BASE}. ` +
      'The machine is shared with other work: compare each figure with its baseline from the same run, not across runs.' +
      (QUICK ? ' QUICK mode.' : ''),
  );
  report(
    `Services as child processes, as \`pnpm start\` runs them (${SERVICES.join(', ')}; defaults: no concurrency override, no model configured); ` +
      `target: node:http keep-alive on 127.0.0.1 in its own process; windows of ${WINDOW_MS / 1000} s after ${WARMUP_MS / 1000} s of warm-up.`,
  );
  report('');
  const rates = (process.env.BENCH_RATES ?? '500,1000').split(',').map(Number);
  try {
    if (runs('outside')) {
      const rows: string[] = [];
      // CPU-ms per second of the process that makes the calls, in each lateness window. At 1,000 due/s,
      // in 30 s windows on a slow day of this host (got's ceiling 1,811–2,756 req/s), the executor's event
      // loop was 96–99 % busy (performance.eventLoopUtilization) and the floor's 90–93 %: lateness there
      // is mostly the wait for that one thread, so the figure says how near it ran to a whole core.
      const busy: string[] = [];
      for (const rate of rates) {
        const kairos = await kairosScenario(`outside_${rate}`, rate, target, single(redis), { ai: false });
        const floor = await floorScenario(rate, target, redis);
        busy.push(
          `at ${thousands(rate)} due/s the executor ${Math.round(kairos.cpu.executor! * kairos.delivered)} ` +
            `(the floor's process ${Math.round(floor.cpu.floor! * floor.delivered)})`,
        );
        const p50Over = kairos.lateness.p50 - floor.lateness.p50;
        const p99Ratio = kairos.lateness.p99 / floor.lateness.p99;
        rows.push(
          `| lateness at ${rate} due/s, p50 / p99 (n ${kairos.lateness.n}) | ${ms(kairos.lateness.p50)} / ${ms(kairos.lateness.p99)} ms | ` +
            `bare BullMQ + got: ${ms(floor.lateness.p50)} / ${ms(floor.lateness.p99)} ms (n ${floor.lateness.n}) | ` +
            `p50 floor ${p50Over >= 0 ? '+' : '−'} ${ms(Math.abs(p50Over))} ms (≤ + 5), p99 ${p99Ratio.toFixed(2)}× floor (≤ 2×): ` +
            `${verdict(p50Over <= 5 && kairos.lateness.p99 <= 2 * floor.lateness.p99)} |`,
        );
      }
      // AI off and on alternate, PAIRS times each: one 10 s window of each differed by up to 30 % in
      // either direction on this shared machine (AI on at 84 % and 116 % of AI off, same code).
      // got's ceiling is measured beside each pair (before it, and after the last), and each pair's AI-off
      // figure is compared with its own ceilings (below): on this shared host got's CPU per request moved between 0.30 and 0.57 ms across
      // runs of the same code (ceilings of 2,036 to 4,203 req/s), so a ceiling from another moment
      // than the Kairos window made the ratio swing between 35 % and 74 %.
      const offRuns: KairosFigures[] = [];
      const onRuns: KairosFigures[] = [];
      const ceilings: Awaited<ReturnType<typeof ceiling>>[] = [];
      // The floor at saturation beside each pair: what bare BullMQ + got delivers, in the same moment as
      // the pair's ceiling. Twice the pair's load: 3,000 endpoints left the floor idle 25 % of the
      // time (0.48 ms per job on two cores).
      const floorRuns: FloorFigures[] = [];
      // The card's shape at its least (bench/skeleton.ts), without and with the stored planned run, at
      // the pair's load: what the shape with a durable run delivers before Kairos's own work.
      const leastRuns: FloorFigures[] = [];
      const plannedRuns: FloorFigures[] = [];
      const offered: number[] = [];
      for (let pair = 0; pair < PAIRS; pair += 1) {
        ceilings.push(await ceiling(target));
        offered.push(sustainedLoad(ceilings[pair]!.rate));
        // AI off and on in turn (session 25: AI on at 79.7 % of AI off in a run where AI off always went
        // first, its AI-on windows read 1,490 and 1,735 µs by the host-speed gauge, AI off's 1,112 and 1,597).
        for (const ai of inTurn(pair, false, true)) {
          const runs = ai ? onRuns : offRuns;
          runs.push(
            await kairosScenario(ai ? 'sustained_on' : 'sustained_off', offered[pair]!, target, single(redis), { ai }),
          );
        }
        floorRuns.push(await floorScenario(2 * offered[pair]!, target, redis));
        leastRuns.push(await skeletonScenario(offered[pair]!, target, redis, { plan: false }));
        plannedRuns.push(await skeletonScenario(offered[pair]!, target, redis, { plan: true }));
      }
      // Once more after the last pair, and each pair is compared with the higher of the ceilings measured
      // before and after it: a ceiling measured in a slow moment flatters its pair, never the reverse
      // (session 17: 2,014 req/s before one pair against 3,894 before the other, 5 minutes apart, and
      // that pair read 102 % of it; 2,642 against 3,370 in another run).
      ceilings.push(await ceiling(target));
      const pairCeilings = offRuns.map((_, pair) => Math.max(ceilings[pair]!.rate, ceilings[pair + 1]!.rate));
      const [off, on] = [meanFigures(offRuns), meanFigures(onRuns)];
      const raw = {
        rate: meanOf(ceilings.map((run) => run.rate)),
        gotCpuMs: meanOf(ceilings.map((run) => run.gotCpuMs)),
        targetCpuMs: meanOf(ceilings.map((run) => run.targetCpuMs)),
      };
      const ratios = offRuns.map((run, index) => run.delivered / pairCeilings[index]!);
      const floorRatios = floorRuns.map((run, index) => run.delivered / pairCeilings[index]!);
      const each = (values: number[], format: (value: number) => string = (value) => value.toFixed(0)) =>
        values.map(format).join(', ');
      rows.push(
        `| sustained delivered executions/s (${each(offered, thousands)} endpoints at 1 s; mean of ${each(offRuns.map((run) => run.delivered))}) | ${off.delivered.toFixed(0)}/s | ` +
          `got's raw ceiling before each pair and after the last: ${each(ceilings.map((run) => run.rate))} req/s (a pair against the higher of its two) | ${pctAgainst(meanOf(ratios))} of the ceiling (pairs: ${each(ratios, pct)}; ≥ 70 %): ${verdict(meanOf(ratios) >= 0.7)} |`,
      );
      rows.push(
        `| bare BullMQ + got at saturation (${each(offered, (load) => thousands(2 * load))} jobs at 1 s; ${each(floorRuns.map((run) => run.delivered))}) | ` +
          `Kairos: ${pct(off.delivered / meanOf(floorRuns.map((run) => run.delivered)))} of it | ` +
          `the floor alone: ${pct(meanOf(floorRatios))} of the ceiling (pairs: ${each(floorRatios, pct)}) | what the 70 % target leaves for a durable run |`,
      );
      for (const [label, runs] of [
        ['the shape at its least: read, call, record, announce, next due job (bench/skeleton.ts)', leastRuns],
        ['the same with the planned run stored first (the recompute statement)', plannedRuns],
      ] as const) {
        const ratios = runs.map((run, index) => run.delivered / pairCeilings[index]!);
        rows.push(
          `| ${label}: delivered/s (${each(offered, thousands)} endpoints; ${each(runs.map((run) => run.delivered))}) | ` +
            `Kairos: ${pct(off.delivered / meanOf(runs.map((run) => run.delivered)))} of it | ` +
            `${pct(meanOf(ratios))} of the ceiling (pairs: ${each(ratios, pct)}) | the target in the card's shape, before Kairos's own work |`,
        );
      }
      rows.push(
        `| AI scheduling on, no model: delivered/s (${each(offered, thousands)} endpoints; mean of ${each(onRuns.map((run) => run.delivered))}) | ${on.delivered.toFixed(0)}/s | ` +
          `AI off: ${off.delivered.toFixed(0)}/s | ${pctAgainst(on.delivered / off.delivered)} of AI off (≥ 90 %): ${verdict(on.delivered >= 0.9 * off.delivered)} |`,
      );
      report('## Outside view at `pnpm start` defaults (issue #14)');
      report('');
      report('| figure | Kairos (defaults) | baseline in the same run | against the target |');
      report('|---|---|---|---|');
      for (const row of rows) report(row);
      report('');
      report(
        `CPU-ms per second of the calling process in the lateness windows (a core gives 1,000): ${busy.join('; ')}.`,
      );
      const gauge = (runs: { hostTaskUs: number }[]) => each(runs.map((run) => run.hostTaskUs));
      report(
        `The host's speed by window (µs of wall time one fixed task took in the benchmark's thread, median; pair by pair; higher is slower): ` +
          `got's ceiling ${gauge(ceilings)}, Kairos AI off ${gauge(offRuns)}, AI on ${gauge(onRuns)}, bare BullMQ + got ${gauge(floorRuns)}, ` +
          `the shape at its least ${gauge(leastRuns)}, with its stored plan ${gauge(plannedRuns)}.`,
      );
      const threads = (runs: { coreUse: CoreUse }[]) => runs.map(({ coreUse }) => coreUseText(coreUse)).join(', ');
      report(
        `The calling process's main thread by window, ms per second on a core / waiting for one (/proc schedstat), its other threads' ms per second on a core (V8's garbage-collecting workers, libuv's pool), and the cores' busy share (/proc/stat); pair by pair: ` +
          `Kairos AI off ${threads(offRuns)}, AI on ${threads(onRuns)}, bare BullMQ + got ${threads(floorRuns)}, ` +
          `the shape at its least ${threads(leastRuns)}, with its stored plan ${threads(plannedRuns)}.`,
      );
      report(
        `Round trips at ${each(offered, thousands)} endpoints: Redis commands per execution ${off.redisCommands.toFixed(1)} (AI on ${on.redisCommands.toFixed(1)}), ` +
          `scripts ${off.redisScripts.toFixed(2)} (${on.redisScripts.toFixed(2)}), PostgreSQL transactions ${off.pgTransactions.toFixed(2)} (${on.pgTransactions.toFixed(2)}).`,
      );
      report('');
      reportCpu(off, on, raw, meanFloor(floorRuns), offered, await durableRunCost(), meanFloor(plannedRuns));
      report('');
    }
    if (runs('skeleton') && !runs('outside')) {
      // The shape at its least alone (the outside part runs it beside each pair): for work on the gap.
      const raw = await ceiling(target);
      // BENCH_SKELETON_LOAD: endpoints at 1 s for every row instead of saturation (CPU per execution at one rate).
      const load = Number(process.env.BENCH_SKELETON_LOAD ?? sustainedLoad(raw.rate));
      const floor = await floorScenario(2 * load, target, redis);
      report(
        `got's ceiling ${raw.rate.toFixed(0)} req/s (context switches / read and write calls per request: ${wakeupLine(raw.wakeups)}); ` +
          `the floor ${floor.delivered.toFixed(0)}/s (${cpuLine(floor.cpu)}; ${wakeupLine(floor.wakeups)})`,
      );
      // The third: the same with the calls in a worker thread, the executor's second thread (session 13).
      // Then Kairos's own parts put into the shape rung by rung (bench/skeleton.ts SKELETON_KAIROS), and
      // Kairos itself: what is left between the last rung and Kairos is services/executor/src/executor.ts
      // around executePlannedRun. One 10 s window of a row moved by up to 20 % on this host with the same
      // code (session 23), so BENCH_ROUNDS runs every row that many times, in turn, each round numbered.
      let planned: FloorFigures | undefined;
      let kairos: KairosFigures | undefined;
      const rungs = new Map<string, FloorFigures>();
      const rows = [
        ['', { plan: false }],
        [', planned run stored', { plan: true }],
        [', planned run stored, calls in a worker thread', { plan: true, callThread: true }],
        [", planned run stored, Kairos's call (signed, services/executor/src/http)", { plan: true, kairos: 'call' }],
        [
          ", planned run stored, Kairos's call, admission and recorder (skip rules, running lock, quota, stash)",
          { plan: true, kairos: 'call,admission' },
        ],
        [
          ", planned run stored, all three run by Kairos's executePlannedRun (call slots, retries' entry, phase metrics)",
          { plan: true, kairos: 'call,admission,execute' },
        ],
        ['Kairos, AI off', null],
      ] as const;
      for (let round = 1; round <= ROUNDS; round += 1) {
        const label = ROUNDS > 1 ? `round ${round}: ` : '';
        // Forward in odd rounds, backward in even ones, so that a rung is not always run just after the
        // rung it is compared with (a row may pay for the writes of the one before it still being flushed
        // and vacuumed). Session 26's four rounds: executePlannedRun's rung read 87–94 % of the admission
        // rung either way round, so the order was not that step's cost.
        for (const [variant, options] of round % 2 === 1 ? rows : [...rows].reverse()) {
          if (options === null) {
            kairos = await kairosScenario('sustained_off', load, target, single(redis), { ai: false });
            report(`${label}${variant}: ${rowText(kairos, raw.rate)}`);
            continue;
          }
          const figures = await skeletonScenario(load, target, redis, options);
          if (options.plan && !('callThread' in options) && !('kairos' in options)) planned = figures;
          if ('kairos' in options) rungs.set(options.kairos, figures);
          report(`${label}the shape at its least${variant}: ${rowText(figures, raw.rate)}`);
        }
      }
      report('');
      // A profile is written per process and each round's overwrites the one before: the figures it is cut
      // to and divided by are the last round's too.
      const dir = process.env.BENCH_CPU_PROF;
      if (dir && planned && kairos) {
        reportExecutorCosts(
          dir,
          { profile: 'executor', window: kairos, label: "Kairos's executor" },
          { profile: skeletonExecutorProfile({ plan: true }), window: planned, label: "the shape's" },
        );
      }
      // The ladder's step that no single function explains (session 23: executePlannedRun's own CPU is
      // ≈ 3 µs per execution, the step ≈ 10 %): the rung beside the one before it, by what ran it.
      const admitted = rungs.get('call,admission');
      const executed = rungs.get('call,admission,execute');
      if (dir && admitted && executed) {
        reportExecutorCosts(
          dir,
          {
            profile: skeletonExecutorProfile({ plan: true, kairos: 'call,admission,execute' }),
            window: executed,
            label: 'executePlannedRun',
          },
          {
            profile: skeletonExecutorProfile({ plan: true, kairos: 'call,admission' }),
            window: admitted,
            label: 'admission and recorder',
          },
        );
      }
    }
    if (runs('rt')) {
      report('## Round trips per delivered execution (defaults, 500 due/s; PostgreSQL through a counting relay)');
      report('');
      report(
        '| AI scheduling | Redis commands (in scripts too) | of which scripts | PG statements | PG round trips | PG transactions |',
      );
      report('|---|---|---|---|---|---|');
      const byCommand: string[] = [];
      for (const ai of [false, true]) {
        const figures = await kairosScenario(`rt_${ai ? 'on' : 'off'}`, 500, target, single(redis), {
          ai,
          countPg: true,
        });
        report(
          `| ${ai ? 'on, no model' : 'off'} | ${figures.redisCommands.toFixed(1)} | ${figures.redisScripts.toFixed(2)} | ${figures.pgStatements!.toFixed(2)} | ${figures.pgRoundTrips!.toFixed(2)} | ${figures.pgTransactions.toFixed(2)} |`,
        );
        const top = Object.entries(figures.redisByCommand)
          .filter(([, perExecution]) => perExecution >= 0.05)
          .sort((a, b) => b[1] - a[1]);
        byCommand.push(
          `AI ${ai ? 'on' : 'off'}: ${top.map(([name, n]) => `${name} ${n.toFixed(2)}`).join(', ')}; ` +
            `endpoint row updates per execution ${figures.endpointUpdates.perExecution.toFixed(2)}, ${pct(figures.endpointUpdates.hot)} of them HOT`,
        );
      }
      report('');
      report('Redis commands per execution by name (≥ 0.05):');
      report('');
      for (const line of byCommand) report(`- ${line}`);
      report('');
    }
    if (runs('lead')) {
      // The dispatch lead's default is chosen from this (packages/core/src/schedule/dispatch-lead.ts).
      const leads = (process.env.BENCH_LEADS ?? '0,100,200,300').split(',').map(Number);
      const rate = Number(process.env.BENCH_LEAD_RATE ?? 1000);
      report(
        `## Lateness by dispatch lead (SCHEDULER_DISPATCH_LEAD_MS; ${rate} due/s, other settings at their defaults)`,
      );
      report('');
      report('| lead, ms | lateness p50 | p99 | max | never early (min ≥ 0) |');
      report('|---|---|---|---|---|');
      for (const lead of leads) {
        const figures = await kairosScenario(`lead_${lead}`, rate, target, single(redis), {
          ai: false,
          overrides: { SCHEDULER_DISPATCH_LEAD_MS: String(lead) },
        });
        report(
          `| ${lead} | ${ms(figures.lateness.p50)} | ${ms(figures.lateness.p99)} | ${ms(figures.lateness.max)} | ${figures.lateness.min >= 0 ? 'yes' : `no (${ms(figures.lateness.min)})`} |`,
        );
      }
      report('');
    }
    if (runs('priority')) await priorityDiagnostic(target, redis);
    if (runs('ab')) {
      // Two settings of the services, alternated (A B, then B A, BENCH_ROUNDS times): one 10 s window
      // moved by up to 20 % on this host with the same code (session 23), so a change is judged on
      // rounds, each A beside its B. BENCH_AB_A / BENCH_AB_B: `NAME=value` overrides of the services'
      // environment, `;`-separated, and three of the benchmark's own: BENCH_NODE_ARGS (Node's and V8's flags
      // for every service; NODE_OPTIONS refuses V8's heap flags) or BENCH_NODE_ARGS_<SERVICE> for one
      // (lib.ts startServices), and BENCH_EXECUTORS. Not the defaults when an override is set: label such a
      // run as tuned.
      const settingsOf = (text: string | undefined): NodeJS.ProcessEnv =>
        Object.fromEntries(
          (text ?? '')
            .split(';')
            .filter(Boolean)
            .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
        );
      const variants = { A: settingsOf(process.env.BENCH_AB_A), B: settingsOf(process.env.BENCH_AB_B) };
      // BENCH_AB_LOAD: endpoints at 1 s (a fixed rate below saturation) instead of saturation.
      const load = Number(process.env.BENCH_AB_LOAD ?? sustainedLoad((await ceiling(target)).rate));
      report(
        `## A/B at ${process.env.BENCH_AB_LOAD ? 'a fixed rate' : 'saturation'} (${thousands(load)} endpoints at 1 s; A ${JSON.stringify(variants.A)}, B ${JSON.stringify(variants.B)})`,
      );
      report('');
      const delivered: Record<'A' | 'B', number[]> = { A: [], B: [] };
      for (let round = 1; round <= ROUNDS; round += 1) {
        for (const name of inTurn(round - 1, 'A' as const, 'B' as const)) {
          const figures = await kairosScenario(`ab_${name.toLowerCase()}`, load, target, single(redis), {
            ai: false,
            overrides: variants[name],
          });
          delivered[name].push(figures.delivered);
          report(
            `round ${round} ${name}: ${figures.delivered.toFixed(0)}/s, lateness p50 / p99 ${ms(figures.lateness.p50)} / ${ms(figures.lateness.p99)} ms ` +
              `(${cpuLine(figures.cpu)}; host ${figures.hostTaskUs} µs; ` +
              `context switches / read and write calls per execution: ${wakeupLine(figures.wakeups)}; ` +
              `slot phases ms ${Object.entries(figures.slotPhases)
                .map(([phase, value]) => `${phase} ${value.toFixed(1)}`)
                .join(', ')}; ` +
              `the executor's threads, ms per second: ${coreUseText(figures.coreUse)})`,
          );
        }
      }
      const ratios = delivered.B.map((b, index) => b / delivered.A[index]!);
      report('');
      report(
        `B against A, round by round: ${ratios.map(pct).join(', ')}; mean ${pctAgainst(meanOf(ratios))} ` +
          `(A ${meanOf(delivered.A).toFixed(0)}/s, B ${meanOf(delivered.B).toFixed(0)}/s)`,
      );
      report('');
    }
    if (runs('concurrency')) {
      // The executor's default concurrency is chosen from this (services/executor/src/config.ts).
      const levels = (process.env.BENCH_CONCURRENCY ?? '25,50,100,200').split(',');
      const load = sustainedLoad((await ceiling(target)).rate);
      report(
        `## Executor concurrency (EXECUTOR_CONCURRENCY; ${thousands(load)} endpoints at 1 s, other settings at their defaults)`,
      );
      report('');
      report(
        '| executor concurrency | delivered/s | lateness p50 | p99 | CPU ms per execution | of which the executor |',
      );
      report('|---|---|---|---|---|---|');
      for (const level of levels) {
        const figures = await kairosScenario(`concurrency_${level}`, load, target, single(redis), {
          ai: false,
          overrides: { EXECUTOR_CONCURRENCY: level },
        });
        report(
          `| ${level} | ${figures.delivered.toFixed(0)} | ${ms(figures.lateness.p50)} | ${ms(figures.lateness.p99)} | ${cpuTotal(figures.cpu).toFixed(3)} | ${figures.cpu.executor!.toFixed(3)} |`,
        );
      }
      report('');
    }
    if (runs('tuned')) {
      report('## Tuned runs (not the defaults: scheduler concurrency 100, executor 200; AI scheduling off)');
      report('');
      report('| due/s | lateness p50 | p99 | max | delivered/s |');
      report('|---|---|---|---|---|');
      for (const rate of [1000, SUSTAINED]) {
        const tuned = await kairosScenario(`tuned_${rate}`, rate, target, single(redis), {
          ai: false,
          overrides: TUNED,
        });
        report(
          `| ${rate} | ${ms(tuned.lateness.p50)} | ${ms(tuned.lateness.p99)} | ${ms(tuned.lateness.max)} | ${tuned.delivered.toFixed(0)} |`,
        );
      }
      report('');
    }
    if (runs('change')) {
      const change = await changeToEffect(target.url, redis);
      report('## Change to effect (POST one-shot hint → new delayed job in Redis), ms');
      report('');
      report(
        `- n ${change.n}: p50 ${change.p50.toFixed(1)}, p99 ${change.p99.toFixed(1)}, max ${change.max.toFixed(1)}`,
      );
      report('');
    }
    if (runs('scale')) {
      const scale = await reconcileScale(redis);
      report(`## ${thousands(scale.endpoints)} registered endpoints`);
      report('');
      report(`- registered by one INSERT … SELECT generate_series: ${(scale.insertMs / 1000).toFixed(1)} s`);
      report(
        `- Redis memory for their delayed jobs: ${(scale.memoryBytes / 1024 / 1024).toFixed(1)} MiB (${(scale.memoryBytes / scale.endpoints).toFixed(0)} bytes per endpoint)`,
      );
      report(
        `- of which (MEMORY USAGE) a due job's hash ${scale.hashBytes.toFixed(0)} bytes (${scale.encoding}), its member of the delayed set ${scale.delayedBytes.toFixed(0)} bytes`,
      );
      report(`- reconcile, cold start (every job missing): ${(scale.firstMs / 1000).toFixed(1)} s`);
      report(
        `- reconcile after losing every Redis key (FLUSHALL equivalent, by prefix): ${(scale.afterFlushMs / 1000).toFixed(1)} s`,
      );
      report(
        `- CPU during that sweep: redis-server ${scale.afterFlushCpu.redisS.toFixed(1)} s, the reconciler (this process) ${scale.afterFlushCpu.reconcilerS.toFixed(1)} s, its PostgreSQL backends ${scale.afterFlushCpu.postgresS.toFixed(1)} s; load average ${loadavg()[0]!.toFixed(1)} at the end`,
      );
      report('');
    }
    if (runs('cluster')) await clusterScenarios(target);
  } finally {
    target.stop();
    redis.disconnect();
    own?.stop();
    await dropTemplate();
  }
  writeFileSync(join(ROOT, 'bench/results-latest.md'), `${lines.join('\n')}\n`);
}

// Run only as the entry point: bench/round-trips.ts imports setup, insertEndpoints and announce.
if (import.meta.url === `file://${process.argv[1]}`) {
  main().then(
    () => process.exit(0),
    (error: Error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
