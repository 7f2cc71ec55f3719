/**
 * The operations port and the metrics registry, over real HTTP and a real BullMQ queue on the
 * machine's Redis (own prefix, deleted afterwards).
 */
import { randomBytes } from 'node:crypto';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { KairosMetrics, startHealthServer, type HealthServer } from '@kairos/runtime';
import { REDIS_URL } from '../../../test/env.mjs';

const TOKEN = 'metrics-token-0123456789';
const prefix = `{kairos-test-${randomBytes(4).toString('hex')}}`;
let redis: Redis;
let queue: Queue;
let registry: KairosMetrics;
let server: HealthServer;
let redisHealthy = true;
let base: string;

beforeAll(async () => {
  redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  queue = new Queue('due', { connection: redis, prefix });
  registry = new KairosMetrics();
  registry.watchQueues([queue]);
  server = await startHealthServer({
    port: 0,
    host: '127.0.0.1',
    checks: {
      redis: () => redis.ping(),
      flaky: async () => {
        if (!redisHealthy) throw new Error('down');
      },
      slow: () => new Promise((resolve) => setTimeout(resolve, redisHealthy ? 0 : 5000)),
    },
    checkTimeoutMs: 300,
    registry: registry.registry,
    metricsToken: TOKEN,
  });
  base = `http://127.0.0.1:${server.port}`;
});
afterAll(async () => {
  await server.close();
  await queue.close();
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
});

const scrape = async () => {
  const response = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/plain');
  return response.text();
};

describe('health server', () => {
  it('answers liveness, and readiness with each check, 503 naming the failed or slow ones', async () => {
    expect(await (await fetch(`${base}/healthz`)).json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ok', checks: { redis: 'ok', flaky: 'ok', slow: 'ok' } });

    redisHealthy = false;
    const startedAt = Date.now();
    const notReady = await fetch(`${base}/readyz`);
    expect(Date.now() - startedAt).toBeLessThan(3000);
    expect(notReady.status).toBe(503);
    expect(await notReady.json()).toEqual({
      status: 'unavailable',
      checks: { redis: 'ok', flaky: 'unavailable', slow: 'unavailable' },
    });
    redisHealthy = true;
    expect((await fetch(`${base}/nope`)).status).toBe(404);
  });

  it('requires the metrics token when one is set', async () => {
    expect((await fetch(`${base}/metrics`)).status).toBe(401);
    const wrong = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${TOKEN}x` } });
    expect(wrong.status).toBe(401);
    expect(await scrape()).toContain('# TYPE kairos_runs_total counter');
  });

  it('reports queue depth per state, read at scrape time', async () => {
    await queue.add('run', { n: 1 });
    await queue.add('run', { n: 2 });
    await queue.add('run', { n: 3 }, { delay: 60_000 });
    const text = await scrape();
    expect(text).toContain('kairos_queue_jobs{queue="due",state="wait"} 2');
    expect(text).toContain('kairos_queue_jobs{queue="due",state="delayed"} 1');
    expect(text).toContain('kairos_queue_jobs{queue="due",state="active"} 0');
    await queue.add('run', { n: 4 });
    expect(await scrape()).toContain('kairos_queue_jobs{queue="due",state="wait"} 3');
  });

  it('exposes lag buckets from 1 ms to 60 s, outcomes by source, concurrency, planner and reconcile series', async () => {
    const scheduledAt = new Date('2026-01-01T00:00:00.000Z');
    registry.observeRun({
      source: 'baseline-interval',
      status: 'success',
      scheduledAt,
      startedAt: new Date(scheduledAt.getTime() + 7),
    });
    registry.observeRun({ source: 'ai-oneshot', status: 'failed', scheduledAt, startedAt: scheduledAt });
    registry.executorConcurrencyInUse.inc(3);
    registry.plannerTokens.inc(1200);
    registry.plannerFailures.inc({ reason: 'model_error' });
    registry.reconcileRepairs.inc({ kind: 'restored' }, 5);
    const text = await scrape();
    expect(text).toContain('kairos_dispatch_lag_seconds_bucket{le="0.001",source="baseline-interval"} 0');
    expect(text).toContain('kairos_dispatch_lag_seconds_bucket{le="0.01",source="baseline-interval"} 1');
    expect(text).toContain('kairos_dispatch_lag_seconds_bucket{le="60",source="baseline-interval"} 1');
    expect(text).toContain('kairos_dispatch_lag_seconds_sum{source="baseline-interval"} 0.007');
    expect(text).toContain('kairos_runs_total{source="baseline-interval",status="success"} 1');
    expect(text).toContain('kairos_runs_total{source="ai-oneshot",status="failed"} 1');
    expect(text).toContain('kairos_executor_concurrency_in_use 3');
    expect(text).toContain('kairos_planner_tokens_total 1200');
    expect(text).toContain('kairos_planner_failures_total{reason="model_error"} 1');
    expect(text).toContain('kairos_reconcile_repairs_total{kind="restored"} 5');
  });

  it('turns readiness off once shutdown begins, liveness stays on', async () => {
    server.markShuttingDown();
    expect((await fetch(`${base}/readyz`)).status).toBe(503);
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
  });
});
