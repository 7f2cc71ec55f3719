/**
 * `node --conditions=source --import tsx bench/due-bulk-add.ts`: what adding due jobs costs, BullMQ's
 * addBulk against our one-script-per-chunk add (services/scheduler/src/due-bulk-add.ts) at several
 * chunk sizes, on a private redis-server (free loopback port, no persistence) so its INFO cpu and
 * commandstats belong to this run alone. Jobs go in as the reconcile sweep sends them: pages of 2,000,
 * three in flight. Per configuration: wall time, redis-server CPU (INFO cpu), this process's CPU, and
 * the mean time one script call holds Redis (INFO commandstats), everything per 1,000,000 jobs.
 * Bounded: BULK_ADD_JOBS (default 200,000) jobs per configuration, BullMQ's at a quarter of that
 * (BULK_ADD_BASELINE=0 skips it); BULK_ADD_CHUNKS lists the chunk sizes.
 */
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { addDueJobs, type DueJobEntry } from '../services/scheduler/src/due-bulk-add.js';
import { startRedis } from './lib.js';

const JOBS = Number(process.env.BULK_ADD_JOBS ?? 200_000);
const PAGE = 2000;
const PAGES_IN_FLIGHT = 3;
const CHUNKS = (process.env.BULK_ADD_CHUNKS ?? '100,200,500,1000,2000').split(',').map(Number);

/** As the scale benchmark registers them: due over 10 hours, reached in endpoint id order (random due times). */
const entries = (count: number): DueJobEntry[] =>
  Array.from({ length: count }, () => ({
    jobId: `${randomBytes(16).toString('base64url')}.1`,
    delayMs: 3_600_000 + Math.floor(Math.random() * 36_000_000),
    data: '{}',
  }));

async function cpuSeconds(redis: Redis): Promise<number> {
  const info = await redis.info('cpu');
  return Number(/used_cpu_user:([\d.]+)/.exec(info)![1]) + Number(/used_cpu_sys:([\d.]+)/.exec(info)![1]);
}

async function scriptUsecPerCall(redis: Redis): Promise<number> {
  const info = await redis.info('commandstats');
  const calls = [...info.matchAll(/cmdstat_(?:evalsha|eval):calls=(\d+),usec=(\d+)/g)];
  const [count, usec] = calls.reduce(([n, u], match) => [n + Number(match[1]), u + Number(match[2])], [0, 0]);
  return count === 0 ? NaN : usec / count;
}

/** Adds every job, PAGES_IN_FLIGHT pages at a time; returns the figures per 1,000,000 jobs. */
async function measure(
  redis: Redis,
  jobs: DueJobEntry[],
  addPage: (page: DueJobEntry[]) => Promise<unknown>,
): Promise<string> {
  await redis.flushall();
  await redis.config('RESETSTAT');
  const [redisBefore, ownBefore, started] = [await cpuSeconds(redis), process.cpuUsage(), performance.now()];
  const inFlight = new Set<Promise<unknown>>();
  for (let start = 0; start < jobs.length; start += PAGE) {
    const page = addPage(jobs.slice(start, start + PAGE));
    inFlight.add(page);
    void page.finally(() => inFlight.delete(page));
    if (inFlight.size >= PAGES_IN_FLIGHT) await Promise.race(inFlight);
  }
  await Promise.all(inFlight);
  const wallS = (performance.now() - started) / 1000;
  const own = process.cpuUsage(ownBefore);
  const redisS = (await cpuSeconds(redis)) - redisBefore;
  const perMillion = 1_000_000 / jobs.length;
  const delayed = await redis.zcard(`{bench}:due:delayed`);
  if (delayed !== jobs.length) throw new Error(`${delayed} of ${jobs.length} delayed`);
  return (
    `${(wallS * perMillion).toFixed(1)} s | ${(redisS * perMillion).toFixed(1)} s | ` +
    `${(((own.user + own.system) / 1e6) * perMillion).toFixed(1)} s | ${((await scriptUsecPerCall(redis)) / 1000).toFixed(2)} ms |`
  );
}

async function main(): Promise<void> {
  const server = await startRedis();
  const redis = new Redis(server.url, { maxRetriesPerRequest: null });
  const queue = new Queue('due', { connection: redis, prefix: '{bench}' });
  try {
    console.log(`${JOBS.toLocaleString('en')} jobs per row, load average at start ${loadavg()[0]!.toFixed(1)}`);
    console.log('| add | wall per 1M | redis-server CPU per 1M | this process CPU per 1M | one script call |');
    console.log('|---|---|---|---|---|');
    const now = Date.now();
    if (process.env.BULK_ADD_BASELINE !== '0') {
      const bullmq = await measure(redis, entries(JOBS / 4), (page) =>
        queue.addBulk(
          page.map((job) => ({
            name: 'run',
            data: {},
            opts: { jobId: job.jobId, delay: job.delayMs, attempts: undefined },
          })),
        ),
      );
      console.log(`| BullMQ addBulk | ${bullmq}`);
    }
    for (const chunk of CHUNKS) {
      const row = await measure(redis, entries(JOBS), (page) => addDueJobs(redis, queue, 'run', page, now, chunk));
      console.log(`| script, ${chunk} per call | ${row}`);
    }
    console.log(`load average at the end ${loadavg()[0]!.toFixed(1)}`);
  } finally {
    await queue.close();
    redis.disconnect();
    server.stop();
  }
}

await main();
