/**
 * `pnpm bench`: the engine's figures on this machine, each next to a baseline measured in the same run.
 *
 *  1. dispatch lag (startedAt − scheduledAt) at 200, 1,000 and 3,000 due executions per second, all
 *     services as child processes + a local target; baseline: a bare BullMQ delayed queue with a
 *     no-op worker at the same rate;
 *  2. sustained recorded executions per second; baseline: got's raw ceiling against the same target;
 *  3. change-to-effect latency: API call (one-shot hint) → the new delayed job exists in Redis;
 *  4. 100,000 registered endpoints: Redis memory and the reconcile time after losing every key.
 *
 * Results are printed and written to bench/results.md. BENCH_QUICK=1 runs smaller, shorter versions.
 */
import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { QUEUES } from '@kairos/queue';
import { createAccount, createDatabase, type Database } from '@kairos/db';
import { createLogger } from '@kairos/runtime';
import { Queue, QueueEvents, Worker } from 'bullmq';
import got from 'got';
import { Redis } from 'ioredis';
import http from 'node:http';
import { DueQueue } from '../services/scheduler/src/due-queue.js';
import { Reconciler } from '../services/scheduler/src/reconcile.js';
import { REDIS_URL, ROOT, benchId, freshDatabase, sleep, startServices, startTarget, summarize } from './lib.js';

const QUICK = process.env.BENCH_QUICK === '1';
/** BENCH_ONLY=lag|change|scale runs one part (its figures go to bench/results-<part>.md). */
const ONLY = process.env.BENCH_ONLY;
const runs = (part: string) => !ONLY || ONLY === part;
const MASTER_KEY_HEX = 'a'.repeat(64);
const WINDOW_MS = QUICK ? 4000 : 10_000;
const WARMUP_MS = QUICK ? 2000 : 4000;
const lines: string[] = [];
const report = (line: string) => {
  console.log(line);
  lines.push(line);
};

/** BENCH_EXECUTORS=<n>: executor processes in the lag scenarios (default 1: on two cores shared with PostgreSQL, Redis
 * and the scheduler, a second executor only adds contention — bench/results.md). */
const executorNames = () =>
  Array.from({ length: Number(process.env.BENCH_EXECUTORS ?? 1) }, (_, i) =>
    i === 0 ? 'executor' : `executor#${i + 1}`,
  );

interface Env {
  url: string;
  prefix: string;
  db: Database;
  env: NodeJS.ProcessEnv;
}

async function setup(name: string): Promise<Env> {
  const url = await freshDatabase(`kairos_bench_${name}`);
  const prefix = `{kairos-bench-${benchId()}}`;
  return {
    url,
    prefix,
    db: createDatabase({ url, poolMax: 8 }),
    env: {
      DATABASE_URL: url,
      REDIS_URL,
      KAIROS_QUEUE_PREFIX: prefix,
      KAIROS_MASTER_KEY: MASTER_KEY_HEX,
      KAIROS_ALLOWED_TARGET_CIDRS: '127.0.0.1/32',
      EXECUTOR_CONCURRENCY: '200',
      SCHEDULER_CONCURRENCY: '100',
      SCHEDULER_RECONCILE_INTERVAL_MS: '300000',
      // BENCH_LOGS=1 shows the services' warnings and errors while investigating a figure.
      KAIROS_SILENT_LOGS: process.env.BENCH_LOGS ? 'false' : 'true',
      // Several processes of one service run side by side: ephemeral health ports.
      SCHEDULER_HEALTH_PORT: '0',
      EXECUTOR_HEALTH_PORT: '0',
      PLANNER_HEALTH_PORT: '0',
    },
  };
}

async function teardown(env: Env, redis: Redis): Promise<void> {
  await env.db.close();
  await deleteKeys(env.prefix, redis);
}

/** What FLUSHALL does to Kairos, limited to this run's prefix. */
async function deleteKeys(prefix: string, redis: Redis): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 10_000);
    cursor = next;
    if (keys.length > 0) await redis.del(...keys);
  } while (cursor !== '0');
}

/** `count` endpoints on a 1 s interval whose first runs spread evenly over one second. */
async function insertEndpoints(db: Database, count: number, targetUrl: string, intervalMs = 1000): Promise<string[]> {
  const { account } = await createAccount(
    db,
    { email: `bench-${benchId()}@example.test`, tier: 'enterprise' },
    { masterKey: Buffer.from(MASTER_KEY_HEX, 'hex') },
  );
  // AI scheduling off: these figures are the scheduling engine's; with it on, each run is also
  // announced on run-completed-planner for the planner (its own cost, sized separately in docs/operations.md).
  await db.pool.query(`UPDATE accounts SET "aiSchedulingEnabled" = false WHERE id = $1`, [account.id]);
  const { rows: jobs } = await db.pool.query<{ id: string }>(
    `INSERT INTO jobs (id, "accountId", name, status, "updatedAt") VALUES (gen_random_uuid(), $1, 'bench', 'active', now()) RETURNING id`,
    [account.id],
  );
  const { rows } = await db.pool.query<{ id: string }>(
    `INSERT INTO endpoints (id, "accountId", "jobId", name, url, method, "baselineIntervalMs", "createdAt", "updatedAt")
     SELECT gen_random_uuid(), $1, $2, 'e' || i, $3, 'GET', $5,
            now() + interval '2 seconds' + (i * interval '1 millisecond' * 1000 / $4), now()
       FROM generate_series(0, $4 - 1) AS i
     RETURNING id`,
    [account.id, jobs[0]!.id, targetUrl, count, intervalMs],
  );
  return rows.map((row) => row.id);
}

async function announce(prefix: string, redis: Redis, endpointIds: string[]): Promise<void> {
  const queue = new Queue(QUEUES.scheduleChanges, { connection: redis, prefix });
  for (let i = 0; i < endpointIds.length; i += 500) {
    await queue.addBulk(
      endpointIds.slice(i, i + 500).map((id) => ({ name: 'change', data: { endpointIds: [id], reason: 'bench' } })),
    );
  }
  await queue.close();
}

async function lagScenario(
  rate: number,
  targetUrl: string,
  redis: Redis,
): Promise<{ lag: ReturnType<typeof summarize>; perSecond: number }> {
  const env = await setup(`lag_${rate}`);
  const services = startServices(['scheduler', ...executorNames()], env.env);
  try {
    await sleep(1500);
    const ids = await insertEndpoints(env.db, rate, targetUrl);
    await announce(env.prefix, redis, ids);
    await sleep(WARMUP_MS + 2000);
    const from = new Date();
    await sleep(WINDOW_MS);
    const to = new Date();
    await sleep(1500);
    const { rows } = await env.db.pool.query<{ lag: number }>(
      `SELECT EXTRACT(EPOCH FROM ("startedAt" - "scheduledAt")) * 1000 AS lag FROM runs WHERE "scheduledAt" >= $1 AND "scheduledAt" < $2`,
      [from, to],
    );
    return {
      lag: summarize(rows.map((row) => Number(row.lag))),
      perSecond: rows.length / ((to.getTime() - from.getTime()) / 1000),
    };
  } finally {
    await services.stop();
    await teardown(env, redis);
  }
}

/** Bare BullMQ: delayed jobs at `rate` per second, a no-op worker; lag = processedOn − due time. */
async function bullmqBaseline(rate: number, redis: Redis): Promise<ReturnType<typeof summarize>> {
  const prefix = `{kairos-bench-${benchId()}}`;
  const queue = new Queue('baseline', { connection: redis, prefix });
  const lags: number[] = [];
  const worker = new Worker(
    'baseline',
    async (job) => {
      lags.push(Date.now() - (job.timestamp + (job.opts.delay ?? 0)));
    },
    { connection: new Redis(REDIS_URL, { maxRetriesPerRequest: null }), prefix, concurrency: 200 },
  );
  const seconds = QUICK ? 3 : 6;
  const startAt = Date.now() + 1500;
  for (let i = 0; i < rate * seconds; i += 1000) {
    const now = Date.now();
    await queue.addBulk(
      Array.from({ length: Math.min(1000, rate * seconds - i) }, (_, k) => ({
        name: 'job',
        data: {},
        opts: { delay: startAt + ((i + k) * 1000) / rate - now, removeOnComplete: true },
      })),
    );
  }
  await sleep(startAt - Date.now() + seconds * 1000 + 1500);
  await worker.close();
  await queue.obliterate({ force: true });
  await queue.close();
  return summarize(lags);
}

async function gotCeiling(targetUrl: string): Promise<number> {
  const agent = { http: new http.Agent({ keepAlive: true, maxSockets: 100 }) };
  const client = got.extend({ agent, retry: { limit: 0 }, throwHttpErrors: false });
  const durationMs = QUICK ? 2000 : 5000;
  const deadline = Date.now() + durationMs;
  let done = 0;
  await Promise.all(
    Array.from({ length: 100 }, async () => {
      while (Date.now() < deadline) {
        await client.get(targetUrl);
        done += 1;
      }
    }),
  );
  agent.http.destroy();
  return done / (durationMs / 1000);
}

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
      connection: new Redis(REDIS_URL, { maxRetriesPerRequest: null }),
      prefix: env.prefix,
    });
    await events.waitUntilReady();
    const seen = new Map<string, number>();
    events.on('delayed', ({ jobId }) => {
      const endpointId = jobId.split('.')[0]!;
      if (!seen.has(endpointId)) seen.set(endpointId, performance.now());
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
    await teardown(env, redis);
  }
}

async function reconcileScale(
  redis: Redis,
): Promise<{ endpoints: number; memoryBytes: number; firstMs: number; afterFlushMs: number }> {
  const count = QUICK ? 10_000 : 100_000;
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
    await env.db.pool.query(
      `INSERT INTO endpoints (id, "accountId", "jobId", name, url, method, "baselineIntervalMs", "updatedAt",
                              "nextRunAt", "nextRunId", "nextRunSource", "scheduleVersion")
       SELECT gen_random_uuid(), $1, $2, 'e' || i, 'http://127.0.0.1:9/', 'GET', 3600000, now(),
              now() + interval '1 hour' + (i * interval '1 millisecond' * 36), gen_random_uuid(), 'baseline-interval', 1
         FROM generate_series(1, $3) AS i`,
      [account.id, jobs[0]!.id, count],
    );
    await env.db.pool.query('ANALYZE endpoints');
    const logger = createLogger('bench', 'error');
    logger.silent = true;
    const producer = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
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
    await deleteKeys(env.prefix, redis);
    started = performance.now();
    const second = await reconciler.sweep();
    const afterFlushMs = performance.now() - started;
    if (second.restored !== count) throw new Error(`after the flush restored ${second.restored} of ${count}`);
    await dueQueue.close();
    producer.disconnect();
    return { endpoints: count, memoryBytes, firstMs, afterFlushMs };
  } finally {
    await teardown(env, redis);
  }
}

async function main(): Promise<void> {
  const redis = new Redis(REDIS_URL);
  const hz = ((await redis.config('GET', 'hz')) as string[])[1];
  await redis.config('SET', 'hz', '100');
  const target = await startTarget();
  const targetUrl = `http://127.0.0.1:${target.port}/`;
  report(`# Kairos benchmark — ${new Date().toISOString()}`);
  report('');
  report(
    `Machine: ${cpus().length} cores (${cpus()[0]?.model ?? 'cpu'}), Node ${process.version}; Redis hz 100 (was ${hz}).`,
  );
  report(
    `Services as child processes: 1 scheduler (concurrency 100), ${executorNames().length} executors (concurrency 200 each); target: node:http keep-alive on 127.0.0.1.${QUICK ? ' QUICK mode.' : ''}`,
  );
  report('');
  try {
    if (runs('lag')) {
      report('## Dispatch lag (startedAt − scheduledAt), ms');
      report('');
      report('| due/s | Kairos p50 | p99 | max | recorded/s | bare BullMQ p50 | p99 | max |');
      report('|---|---|---|---|---|---|---|---|');
      let sustained = 0;
      // BENCH_RATES=1000 (comma-separated) measures only those rates.
      const rates = process.env.BENCH_RATES ? process.env.BENCH_RATES.split(',').map(Number) : [200, 1000, 3000];
      for (const rate of rates) {
        const { lag, perSecond } = await lagScenario(rate, targetUrl, redis);
        const baseline = await bullmqBaseline(rate, redis);
        sustained = Math.max(sustained, perSecond);
        report(
          `| ${rate} | ${lag.p50.toFixed(1)} | ${lag.p99.toFixed(1)} | ${lag.max.toFixed(1)} | ${perSecond.toFixed(0)} | ${baseline.p50.toFixed(1)} | ${baseline.p99.toFixed(1)} | ${baseline.max.toFixed(1)} |`,
        );
      }
      report('');
      const ceiling = await gotCeiling(targetUrl);
      report('## Throughput');
      report('');
      report(`- sustained recorded executions/s (best of the rates above): ${sustained.toFixed(0)}`);
      report(`- got raw ceiling against the same target (100 concurrent, keep-alive): ${ceiling.toFixed(0)} req/s`);
      report(`- ratio: ${((sustained / ceiling) * 100).toFixed(0)} % of got's raw ceiling`);
      report('');
    }
    if (runs('change')) {
      const change = await changeToEffect(targetUrl, redis);
      report('## Change to effect (POST one-shot hint → new delayed job in Redis), ms');
      report('');
      report(
        `- n ${change.n}: p50 ${change.p50.toFixed(1)}, p99 ${change.p99.toFixed(1)}, max ${change.max.toFixed(1)}`,
      );
      report('');
    }
    if (runs('scale')) {
      const scale = await reconcileScale(redis);
      report(`## ${scale.endpoints.toLocaleString('en')} registered endpoints`);
      report('');
      report(
        `- Redis memory for their delayed jobs: ${(scale.memoryBytes / 1024 / 1024).toFixed(1)} MiB (${(scale.memoryBytes / scale.endpoints).toFixed(0)} bytes per endpoint)`,
      );
      report(`- reconcile, cold start (every job missing): ${(scale.firstMs / 1000).toFixed(1)} s`);
      report(
        `- reconcile after losing every Redis key (FLUSHALL equivalent, by prefix): ${(scale.afterFlushMs / 1000).toFixed(1)} s`,
      );
    }
  } finally {
    target.stop();
    redis.disconnect();
  }
  writeFileSync(join(ROOT, ONLY ? `bench/results-${ONLY}.md` : 'bench/results.md'), `${lines.join('\n')}\n`);
}

main().then(
  () => process.exit(0),
  (error: Error) => {
    console.error(error);
    process.exit(1);
  },
);
