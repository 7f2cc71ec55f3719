/**
 * BENCH_ONLY=change: change to effect. The api, scheduler and executor as child processes; for each of
 * 200 endpoints (50 with BENCH_QUICK) a one-shot hint is posted through the API and the time is taken
 * until its new delayed job exists in Redis (BullMQ's `delayed` event).
 */
import { createAccount } from '@kairos/db/system';
import { QUEUES, parseDueJobId } from '@kairos/queue';
import { QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import { benchRedis, setup, single, teardown, type Bench } from '../environment.js';
import type { Summary } from '../figures.js';
import { benchId, sleep, startServices, summarize } from '../lib.js';
import { report } from '../report.js';
import { MASTER_KEY_HEX, QUICK } from '../settings.js';

export async function run({ target, redis }: Bench): Promise<void> {
  const change = await changeToEffect(target.url, redis);
  report('## Change to effect (POST one-shot hint → new delayed job in Redis), ms');
  report('');
  report(`- n ${change.n}: p50 ${change.p50.toFixed(1)}, p99 ${change.p99.toFixed(1)}, max ${change.max.toFixed(1)}`);
  report('');
}

async function changeToEffect(targetUrl: string, redis: Redis): Promise<Summary> {
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
      connection: new Redis(benchRedis.url, { maxRetriesPerRequest: null }),
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
