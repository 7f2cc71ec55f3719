/**
 * The dashboard and the first pages of the lists for one account with 100,000 endpoints ("Lists at
 * scale"). Seeds a throwaway database by bulk SQL (generate_series), serves the real api
 * app in this process on 127.0.0.1, times each request over keep-alive HTTP (sequentially, so the
 * figure is one request's latency, not a queue's) and prints p50 / p95 / max per request.
 *
 *   node --conditions=source --import tsx bench/dashboard.ts
 *
 * BENCH_ENDPOINTS (default 100000), BENCH_RUNS_PER_ENDPOINT (default 3, spread over the past 24 h),
 * BENCH_REQUESTS (default 30 per request kind), BENCH_KEEP_DB=1 keeps the database for EXPLAIN.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { createDatabase } from '@kairos/db';
import { createAccount } from '@kairos/db/system';
import { createRedisConnection } from '@kairos/queue';
import { createLogger } from '@kairos/runtime';
import pg from 'pg';
import { createApp } from '../services/api/src/app.js';
import { ApiKeyAuthenticator } from '../services/api/src/auth/authenticate.js';
import { loadApiConfig } from '../services/api/src/config.js';
import { AccountLimits, UNLIMITED } from '../services/api/src/quotas.js';
import { RateLimiter } from '../services/api/src/rate-limit.js';
import { createScheduleNotifier } from '../services/api/src/schedule-notifier.js';
import { createTestNow } from '../services/api/src/test-now.js';
import { PG_BASE, REDIS_URL, freshDatabase, percentile } from './lib.js';

const ENDPOINTS = Number(process.env.BENCH_ENDPOINTS ?? 100_000);
const RUNS_PER_ENDPOINT = Math.min(Number(process.env.BENCH_RUNS_PER_ENDPOINT ?? 3), 20);
const REQUESTS = Math.min(Number(process.env.BENCH_REQUESTS ?? 30), 500);
/** Half the endpoints in one big job (the worst case for a job's endpoint list), the rest 50 per job. */
const SMALL_JOB_SIZE = 50;
const DATABASE = 'kairos_bench_dashboard';

async function seed(url: string, accountId: string): Promise<{ bigJobId: string; endpointId: string }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const big = Math.floor(ENDPOINTS / 2);
    const smallJobs = Math.ceil((ENDPOINTS - big) / SMALL_JOB_SIZE);
    const started = performance.now();
    // The api answers 404 to ids that are not UUIDv7 (packages/core/src/ids.ts); PostgreSQL 15 has no
    // uuidv7(), so this connection makes its own: the v4 random bytes with the millisecond time in front.
    await client.query(`CREATE FUNCTION pg_temp.uuid7() RETURNS uuid LANGUAGE sql VOLATILE AS $$
      SELECT encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid()) PLACING
        substring(int8send(floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint) FROM 3) FROM 1 FOR 6),
        52, 1), 53, 1), 'hex')::uuid $$`);
    const { rows: jobs } = await client.query<{ id: string }>(
      `INSERT INTO jobs (id, "accountId", name, status, "createdAt", "updatedAt")
       SELECT pg_temp.uuid7(), $1, 'job ' || i, 'active', now() - interval '30 days' + i * interval '1 second', now()
         FROM generate_series(0, $2) AS i
       ORDER BY i
       RETURNING id`,
      [accountId, smallJobs],
    );
    const bigJobId = jobs[0]!.id;
    // Endpoint i: job 0 for the first half, then 50 per job. 2 % failing, 1 % paused, 1 % archived.
    await client.query(
      `INSERT INTO endpoints (id, "accountId", "jobId", name, url, method, "baselineIntervalMs", "createdAt",
                              "updatedAt", "failureCount", "lastRunAt", "lastStatus", "pausedUntil", "archivedAt")
       SELECT pg_temp.uuid7(), $1, ($2::uuid[])[CASE WHEN i < $3 THEN 1 ELSE 2 + (i - $3) / $5 END],
              'endpoint ' || i, 'http://127.0.0.1:9/e/' || i, 'GET', 3600000,
              now() - interval '20 days' + i * interval '10 milliseconds', now(),
              CASE WHEN i % 50 = 0 THEN 1 + i % 7 ELSE 0 END, now() - (i % 3600) * interval '1 second',
              (CASE WHEN i % 50 = 0 THEN 'failed' ELSE 'success' END)::"RunStatus",
              CASE WHEN i % 100 = 1 THEN now() + interval '1 day' END,
              CASE WHEN i % 100 = 2 THEN now() - interval '1 day' END
         FROM generate_series(0, $4 - 1) AS i`,
      [accountId, jobs.map((job) => job.id), big, ENDPOINTS, SMALL_JOB_SIZE],
    );
    // A few runs per endpoint over the past 24 h, 2 % failed, lateness 0–49 ms.
    await client.query(
      `INSERT INTO runs (id, "accountId", "endpointId", source, status, "scheduledAt", "startedAt", "completedAt",
                         "durationMs", "statusCode")
       SELECT pg_temp.uuid7(), e."accountId", e.id, 'baseline-interval',
              (CASE WHEN (hashtext(e.id::text) + n) % 50 = 0 THEN 'failed' ELSE 'success' END)::"RunStatus",
              t, t + (abs(hashtext(e.id::text) + n) % 50) * interval '1 millisecond', t + interval '120 milliseconds',
              120, 200
         FROM endpoints e, generate_series(1, $2) AS n,
              LATERAL (SELECT now() - (abs(hashtext(e.id::text || n)) % 86400) * interval '1 second' AS t) AS at
        WHERE e."accountId" = $1`,
      [accountId, RUNS_PER_ENDPOINT],
    );
    await client.query('ANALYZE');
    console.log(
      `seeded ${ENDPOINTS} endpoints in ${jobs.length} jobs, ${ENDPOINTS * RUNS_PER_ENDPOINT} runs in ` +
        `${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
    const { rows } = await client.query<{ id: string }>(
      `SELECT id FROM endpoints WHERE "jobId" = $1 ORDER BY "createdAt" LIMIT 1`,
      [bigJobId],
    );
    return { bigJobId, endpointId: rows[0]!.id };
  } finally {
    await client.end();
  }
}

interface Timing {
  name: string;
  p50: number;
  p95: number;
  max: number;
  total: string | null;
}

async function time(baseUrl: string, apiKey: string, name: string, path: string): Promise<Timing> {
  const durations: number[] = [];
  let total: string | null = null;
  for (let i = 0; i < REQUESTS; i += 1) {
    const started = performance.now();
    const response = await fetch(`${baseUrl}${path}`, { headers: { 'x-api-key': apiKey } });
    await response.arrayBuffer();
    durations.push(performance.now() - started);
    if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
    total = response.headers.get('x-total-count');
  }
  durations.sort((a, b) => a - b);
  return { name, p50: percentile(durations, 50), p95: percentile(durations, 95), max: durations.at(-1)!, total };
}

/** X-Total-Count's COUNT(*) beside the page it counts, as SQL alone (what listEndpoints runs). */
async function timeListQueries(
  url: string,
  accountId: string,
  jobId: string,
  big: number,
): Promise<[string, number, number][]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const where = `"accountId" = $1 AND "jobId" = $2 AND "archivedAt" IS NULL`;
  const queries: [string, string][] = [
    [`COUNT(*) of ${big} endpoints`, `SELECT count(*) FROM endpoints WHERE ${where}`],
    ['first page (100)', `SELECT * FROM endpoints WHERE ${where} ORDER BY "createdAt", id LIMIT 100`],
    [
      `page at offset ${big - 600}`,
      `SELECT * FROM endpoints WHERE ${where} ORDER BY "createdAt", id LIMIT 100 OFFSET ${big - 600}`,
    ],
  ];
  try {
    const results: [string, number, number][] = [];
    for (const [name, sql] of queries) {
      const durations: number[] = [];
      for (let i = 0; i < REQUESTS; i += 1) {
        const started = performance.now();
        await client.query(sql, [accountId, jobId]);
        durations.push(performance.now() - started);
      }
      durations.sort((a, b) => a - b);
      results.push([name, percentile(durations, 50), percentile(durations, 95)]);
    }
    return results;
  } finally {
    await client.end();
  }
}

async function main(): Promise<void> {
  const url = await freshDatabase(DATABASE);
  const db = createDatabase({ url, poolMax: 10 });
  const redis = createRedisConnection(REDIS_URL);
  const queuePrefix = `{kairos-bench-${randomBytes(4).toString('hex')}}`;
  const logger = createLogger('bench', 'error');
  logger.silent = true;
  const config = loadApiConfig({
    DATABASE_URL: url,
    REDIS_URL,
    KAIROS_QUEUE_PREFIX: queuePrefix,
    KAIROS_WEB_DIR: '',
  } as NodeJS.ProcessEnv);
  const masterKey = randomBytes(32);
  const notifier = createScheduleNotifier(db, redis, queuePrefix, () => undefined);
  const testNow = createTestNow({
    connection: redis,
    eventsConnection: createRedisConnection(REDIS_URL),
    prefix: queuePrefix,
  });
  const accountLimits = new AccountLimits(db, UNLIMITED);
  const rateLimiter = new RateLimiter({
    redis,
    prefix: queuePrefix,
    accountLimit: (accountId) => accountLimits.get(accountId),
    anonymousLimit: UNLIMITED,
  });
  const { app, close } = createApp({
    config,
    db,
    redis,
    logger,
    notifier,
    apiKeys: new ApiKeyAuthenticator(db, 10_000),
    testNow,
    masterKey,
    now: () => new Date(),
    accountLimits,
    rateLimiter,
  });
  const server = http.createServer(app);
  try {
    const created = await createAccount(
      db,
      { email: 'bench-dashboard@example.test', tier: 'enterprise', apiKeyName: 'bench' },
      { masterKey },
    );
    const apiKey = created.apiKey!.raw;
    const { bigJobId, endpointId } = await seed(url, created.account.id);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const big = Math.floor(ENDPOINTS / 2);
    const requests: [string, string][] = [
      ['dashboard, 7 days (default)', '/api/dashboard'],
      ['dashboard, 30 days', `/api/dashboard?startDate=${day(-29)}&endDate=${day(0)}`],
      ['jobs, first page (100)', '/api/jobs'],
      ['jobs, last page', `/api/jobs?offset=${Math.floor(ENDPOINTS / 2 / SMALL_JOB_SIZE / 100) * 100}`],
      [`big job's endpoints, first page (100)`, `/api/jobs/${bigJobId}/endpoints`],
      [`big job's endpoints, page at offset ${big / 2}`, `/api/jobs/${bigJobId}/endpoints?offset=${big / 2}`],
      [`big job's endpoints, last page`, `/api/jobs/${bigJobId}/endpoints?offset=${big - 100}`],
      [`big job's endpoints, limit 1000`, `/api/jobs/${bigJobId}/endpoints?limit=1000`],
      ["an endpoint's runs (20)", `/api/endpoints/${endpointId}/runs`],
      ['audit events (50)', '/api/audit-events'],
    ];
    const countCost = await timeListQueries(url, created.account.id, bigJobId, big);
    await time(baseUrl, apiKey, 'warm-up', '/api/dashboard');
    const timings: Timing[] = [];
    for (const [name, path] of requests) timings.push(await time(baseUrl, apiKey, name, path));
    console.log(`\n${ENDPOINTS} endpoints, ${REQUESTS} sequential requests each, ms:\n`);
    console.log('| request | p50 | p95 | max | X-Total-Count |\n| --- | --- | --- | --- | --- |');
    for (const t of timings) {
      console.log(`| ${t.name} | ${t.p50.toFixed(1)} | ${t.p95.toFixed(1)} | ${t.max.toFixed(1)} | ${t.total ?? ''} |`);
    }
    console.log(`\nThe big job's endpoint list in SQL (${REQUESTS} each), ms:\n`);
    console.log('| query | p50 | p95 |\n| --- | --- | --- |');
    for (const [name, p50, p95] of countCost) console.log(`| ${name} | ${p50.toFixed(1)} | ${p95.toFixed(1)} |`);
  } finally {
    if (server.listening) await new Promise((resolve) => server.close(resolve));
    await close();
    await notifier.close();
    await testNow.close();
    redis.disconnect();
    await db.close();
    if (process.env.BENCH_KEEP_DB !== '1') {
      const admin = new pg.Client({ connectionString: `${PG_BASE}/postgres` });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS "${DATABASE}" WITH (FORCE)`);
      await admin.end();
    } else {
      console.log(`kept database ${DATABASE}`);
    }
  }
}

const day = (offsetDays: number): string => new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);

await main();
