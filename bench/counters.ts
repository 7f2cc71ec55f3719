/**
 * The counters a window is read from, before and after: the executor's phase histogram, Redis's
 * commands, PostgreSQL's transactions and row counters, and the processes whose CPU is counted.
 */
import type { Database } from '@kairos/db';
import { benchRedis, type BenchRedis, type Env } from './environment.js';
import type { ServiceSet, Target } from './lib.js';

/** kairos_execution_phase_seconds from an executor's /metrics: sum (s) and count by phase. */
export async function executionPhases(
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
export async function redisCalls(
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
 * Updates of `endpoints` rows so far, how many were HOT, runs inserted (every partition), from
 * pg_stat_user_tables, and the server's WAL position in bytes (pg_current_wal_lsn). Backends publish
 * the row counters up to a second late, like the transaction counts, so per-execution figures from
 * them are divided by the runs inserted over the same interval. The WAL position is the whole
 * server's: on a PostgreSQL shared with other work (BENCH_PG_URL's default) it counts theirs too.
 */
export async function tableCounters(
  db: Database,
): Promise<{ updates: number; hot: number; runsInserted: number; walBytes: number }> {
  const { rows } = await db.pool.query<{ updates: string; hot: string; runs: string; wal: string }>(
    `SELECT sum(n_tup_upd) FILTER (WHERE relname = 'endpoints') AS updates,
            sum(n_tup_hot_upd) FILTER (WHERE relname = 'endpoints') AS hot,
            sum(n_tup_ins) FILTER (WHERE relname LIKE 'runs%') AS runs,
            pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0') AS wal
       FROM pg_stat_user_tables`,
  );
  return {
    updates: Number(rows[0]?.updates ?? 0),
    hot: Number(rows[0]?.hot ?? 0),
    runsInserted: Number(rows[0]?.runs ?? 0),
    walBytes: Number(rows[0]?.wal ?? 0),
  };
}

export async function pgTransactions(db: Database, name: string): Promise<number> {
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
export async function processesOf(
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
    redis: [benchRedis.pid],
    postgres: backends.map((backend) => backend.pid),
    target: [target.pid],
  };
}
