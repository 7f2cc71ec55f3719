/**
 * What every scenario sets up: the Redis it runs on, a fresh database with the services' environment,
 * the endpoints, and what is removed after it. Also used by bench/round-trips.ts.
 */
import { QUEUES, type RedisConnection } from '@kairos/queue';
import { createDatabase, type Database } from '@kairos/db';
import { createAccount } from '@kairos/db/system';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { benchId, dropDatabase, freshDatabase, type Target } from './lib.js';
import { MASTER_KEY_HEX, RULES } from './settings.js';
import { BENCH_RESPONSE_RULES } from './rule-shape.js';

/**
 * The Redis every scenario uses (run.ts sets it: BENCH_REDIS_URL or a private redis-server), and the
 * private redis-server's process, whose CPU is read around each window (undefined with BENCH_REDIS_URL).
 */
export const benchRedis: { url: string; pid: number | undefined } = { url: '', pid: undefined };

/** What a scenario module is given: the target every call goes to and the benchmark's Redis connection. */
export interface Bench {
  target: Target;
  redis: Redis;
}

export interface Env {
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
      REDIS_URL: benchRedis.url,
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
export interface BenchRedis {
  connection: RedisConnection;
  nodes: () => Promise<Redis[]>;
}
export const single = (redis: Redis): BenchRedis => ({ connection: redis, nodes: async () => [redis] });

export async function teardown(env: Env, redis: BenchRedis): Promise<void> {
  await env.db.close();
  for (const node of await redis.nodes()) await deleteKeys(env.prefix, node);
  await dropDatabase(env.name);
}

/** What FLUSHALL does to Kairos, limited to this run's prefix (and its shards' `{prefix-k}`). */
export async function deleteKeys(prefix: string, redis: Redis): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix.slice(0, -1)}*`, 'COUNT', 10_000);
    cursor = next;
    // One DEL per key: on a cluster node the keys of one page may sit in different slots.
    for (const key of keys) await redis.del(key);
  } while (cursor !== '0');
}

/**
 * `count` endpoints on a 1 s interval whose first runs spread evenly over one second; with `rules`
 * (BENCH_RULES=1) each carries three successWhen conditions and two rules (bench/rule-shape.ts).
 */
export async function insertEndpoints(
  db: Database,
  count: number,
  targetUrl: string,
  ai: boolean,
  rules: typeof BENCH_RESPONSE_RULES | null = RULES === 'all' ? BENCH_RESPONSE_RULES : null,
): Promise<string[]> {
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

/** Tells the scheduler about new endpoints (schedule-changes), as the api does after a write. */
export async function announce(prefix: string, redis: RedisConnection, endpointIds: string[]): Promise<void> {
  const queue = new Queue(QUEUES.scheduleChanges, { connection: redis, prefix });
  for (let i = 0; i < endpointIds.length; i += 500) {
    await queue.addBulk(
      endpointIds.slice(i, i + 500).map((id) => ({ name: 'change', data: { endpointIds: [id], reason: 'bench' } })),
    );
  }
  await queue.close();
}
