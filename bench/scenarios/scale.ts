/**
 * BENCH_ONLY=scale: BENCH_ENDPOINTS registered endpoints (default 100,000; 10,000 with BENCH_QUICK),
 * each with a planned run an hour ahead: the Redis memory their due jobs take, and how long the
 * reconcile sweep takes to re-add every due job, from a cold start and after every key is deleted.
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { createAccount } from '@kairos/db/system';
import { createLogger } from '@kairos/runtime';
import { Redis } from 'ioredis';
import { DueQueue } from '../../services/scheduler/src/due-queue.js';
import { Reconciler } from '../../services/scheduler/src/reconcile.js';
import { benchRedis, deleteKeys, setup, single, teardown, type Bench } from '../environment.js';
import { benchId } from '../lib.js';
import { report, thousands } from '../report.js';
import { MASTER_KEY_HEX, QUICK } from '../settings.js';

export async function run({ redis }: Bench): Promise<void> {
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
    const producer = new Redis(benchRedis.url, { maxRetriesPerRequest: null });
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
