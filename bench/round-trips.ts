/**
 * `pnpm bench:round-trips`: what one execution costs Redis and PostgreSQL (docs/capacity.md).
 *
 * The real scheduler and executor (built, as child processes) run 200 endpoints on a 1 s interval
 * against a local keep-alive target, on a private redis-server (free loopback port, no persistence)
 * and a fresh database, so no other traffic is counted. Over a 20 s window: Redis's INFO
 * commandstats deltas (commands run, scripts included) and PostgreSQL's pg_stat_database /
 * pg_stat_user_tables deltas (transactions, rows written per table), divided by the runs recorded
 * in the window. Then the runs table's size per row, indexes included (pg_total_relation_size over
 * its partitions). Bounded: ~45 s, 200 endpoints. AI scheduling off, or on with
 * ROUND_TRIPS_AI=on (then the planner runs too, with no model configured, as `pnpm start` does).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { createDatabase } from '@kairos/db';
import { Redis } from 'ioredis';
import { dropDatabase, dropTemplate, sleep, startServices, startTarget } from './lib.js';
import { announce, insertEndpoints, setup } from './environment.js';

/** ROUND_TRIPS_ENDPOINTS: fewer on a loaded machine, so that every due run is recorded (counts per execution
 * depend on the rate: idle polling is shared by fewer runs when the engine falls behind). */
const ENDPOINTS = Number(process.env.ROUND_TRIPS_ENDPOINTS ?? 200);
const AI = process.env.ROUND_TRIPS_AI === 'on';
const WARMUP_MS = 6000;
const WINDOW_MS = 20_000;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function commandStats(redis: Redis): Promise<Map<string, number>> {
  const info = await redis.info('commandstats');
  const stats = new Map<string, number>();
  for (const match of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) stats.set(match[1]!, Number(match[2]));
  return stats;
}

interface PgCounters {
  xact: number;
  byTable: Map<string, { ins: number; upd: number; del: number }>;
}

async function pgCounters(db: ReturnType<typeof createDatabase>): Promise<PgCounters> {
  // Stats reach the shared counters within a second of a transaction's end (PostgreSQL 15).
  await db.pool.query('SELECT pg_stat_force_next_flush()');
  const database = await db.pool.query<{ xact: string }>(
    `SELECT xact_commit AS xact FROM pg_stat_database WHERE datname = current_database()`,
  );
  const tables = await db.pool.query<{ name: string; ins: string; upd: string; del: string }>(
    `SELECT CASE WHEN relname LIKE 'runs\\_%' THEN 'runs' ELSE relname END AS name,
            sum(n_tup_ins) AS ins, sum(n_tup_upd) AS upd, sum(n_tup_del) AS del
       FROM pg_stat_user_tables GROUP BY 1`,
  );
  return {
    xact: Number(database.rows[0]!.xact),
    byTable: new Map(tables.rows.map((row) => [row.name, { ins: +row.ins, upd: +row.upd, del: +row.del }])),
  };
}

/** CPU seconds (user + system) a process has used so far; 0 when it is gone. */
function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in USER_HZ (100)
  } catch {
    return 0;
  }
}

async function processCpu(db: ReturnType<typeof createDatabase>, pids: Record<string, number>) {
  const backends = await db.pool.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`,
  );
  const cpu: Record<string, number> = {};
  for (const [name, pid] of Object.entries(pids)) cpu[name] = cpuSeconds(pid);
  cpu["postgres (this database's backends)"] = backends.rows.reduce((sum, { pid }) => sum + cpuSeconds(pid), 0);
  return cpu;
}

async function main(): Promise<void> {
  const port = await freePort();
  const redisServer = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--hz', '100'],
    { stdio: 'ignore' },
  );
  const redisUrl = `redis://127.0.0.1:${port}`;
  const target = await startTarget();
  // The benchmark's own setup (fresh database, service environment), on the private Redis.
  const { db, prefix, env, name } = await setup('round_trips');
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 3 });
  const services = startServices(AI ? ['scheduler', 'executor', 'planner'] : ['scheduler', 'executor'], {
    ...env,
    REDIS_URL: redisUrl,
    KAIROS_SILENT_LOGS: 'true',
  });
  try {
    await sleep(1500);
    const ids = await insertEndpoints(db, ENDPOINTS, `http://127.0.0.1:${target.port}/`, AI);
    await announce(prefix, redis, ids);
    await sleep(WARMUP_MS);
    const pids = {
      scheduler: services.children[0]!.pid!,
      executor: services.children[1]!.pid!,
      'redis-server': redisServer.pid!,
    };
    const [redisBefore, pgBefore, cpuBefore] = [
      await commandStats(redis),
      await pgCounters(db),
      await processCpu(db, pids),
    ];
    await sleep(WINDOW_MS);
    const [redisAfter, pgAfter, cpuAfter] = [
      await commandStats(redis),
      await pgCounters(db),
      await processCpu(db, pids),
    ];
    const runs = pgAfter.byTable.get('runs')!.ins - pgBefore.byTable.get('runs')!.ins;
    const lines: string[] = [
      `executions recorded in ${WINDOW_MS / 1000} s: ${runs} (${(runs / (WINDOW_MS / 1000)).toFixed(0)}/s), AI scheduling ${AI ? 'on (no model)' : 'off'}`,
    ];

    const redisDeltas = [...redisAfter]
      .map(([command, calls]) => [command, calls - (redisBefore.get(command) ?? 0)] as const)
      .filter(([command, calls]) => calls > 0 && !['info', 'commandstats'].includes(command))
      .sort((a, b) => b[1] - a[1]);
    const redisTotal = redisDeltas.reduce((sum, [, calls]) => sum + calls, 0);
    lines.push(`Redis commands per execution (scripts' inner commands included): ${(redisTotal / runs).toFixed(1)}`);
    for (const [command, calls] of redisDeltas) lines.push(`  ${command}: ${(calls / runs).toFixed(2)}`);

    for (const [name, after] of Object.entries(cpuAfter)) {
      const cpuMs = ((after - cpuBefore[name]!) * 1000) / runs;
      lines.push(
        `CPU ${name}: ${cpuMs.toFixed(3)} ms per execution (${(1000 / cpuMs).toFixed(0)} executions/s per core)`,
      );
    }
    lines.push(`PostgreSQL transactions per execution: ${((pgAfter.xact - pgBefore.xact) / runs).toFixed(3)}`);
    for (const [table, after] of pgAfter.byTable) {
      const before = pgBefore.byTable.get(table) ?? { ins: 0, upd: 0, del: 0 };
      const [ins, upd, del] = [after.ins - before.ins, after.upd - before.upd, after.del - before.del];
      if (ins + upd + del === 0) continue;
      lines.push(
        `  ${table}: ${(ins / runs).toFixed(3)} inserted, ${(upd / runs).toFixed(3)} updated, ${(del / runs).toFixed(3)} deleted per execution`,
      );
    }

    await services.stop();
    await db.pool.query('VACUUM ANALYZE runs');
    const size = await db.pool.query<{ rows: string; bytes: string; heap: string }>(
      `SELECT (SELECT count(*) FROM runs) AS rows,
              sum(pg_total_relation_size(inhrelid)) AS bytes, sum(pg_relation_size(inhrelid)) AS heap
         FROM pg_inherits WHERE inhparent = 'runs'::regclass`,
    );
    const { rows: total, bytes, heap } = size.rows[0]!;
    lines.push(
      `runs on disk: ${total} rows, ${(Number(bytes) / Number(total)).toFixed(0)} bytes per run with indexes ` +
        `(${(Number(heap) / Number(total)).toFixed(0)} heap), response body {"ok":true}`,
    );
    console.log(lines.join('\n'));
  } finally {
    await services.stop();
    await db.close();
    redis.disconnect();
    target.stop();
    redisServer.kill('SIGTERM');
    // The run's database and the migrated template it was copied from are throw-away.
    await dropDatabase(name);
    await dropTemplate();
  }
}

await main();
