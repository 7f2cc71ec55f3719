/**
 * The floor: bare BullMQ delayed jobs and a got worker in the shape of Kairos — one
 * delayed job per endpoint, the next one added after each call — in a process of its own, against
 * the same target. Run by bench/run.ts as a child process; every input comes from the environment.
 *
 *   FLOOR_REDIS_URL, FLOOR_PREFIX, FLOOR_TARGET, FLOOR_COUNT (endpoints), FLOOR_RUN_MS (no job is
 *   due later after the first), FLOOR_CONCURRENCY (the executor's default, 100).
 * Once its worker is ready it adds the first jobs, due from one second later and spread over one
 * second, and tells the parent that first due time (IPC); a 'stop' message ends it.
 *
 * Each call carries X-Service-Run-Id and X-Bench-Due (the due time): the target computes lateness.
 */
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { callClient } from './call-client.js';
import { requiredEnv } from './script-env.js';

const url = requiredEnv('FLOOR_REDIS_URL');
const prefix = requiredEnv('FLOOR_PREFIX');
const target = requiredEnv('FLOOR_TARGET');
const count = Number(requiredEnv('FLOOR_COUNT'));
const runMs = Number(requiredEnv('FLOOR_RUN_MS'));
const concurrency = Number(process.env.FLOOR_CONCURRENCY ?? 100);

const client = callClient(concurrency);
const producer = new Redis(url, { maxRetriesPerRequest: null });
const queue = new Queue<{ i: number; due: number }>('floor', {
  connection: producer,
  prefix,
  defaultJobOptions: { removeOnComplete: true, removeOnFail: true },
});
const job = (i: number, due: number, now: number) => ({
  name: 'run',
  data: { i, due },
  opts: { jobId: `${i}.${due}`, timestamp: now, delay: Math.max(0, due - now) },
});

let stopAt = Infinity;
const worker = new Worker<{ i: number; due: number }>(
  'floor',
  async ({ id, data }) => {
    await client.get(target, { headers: { 'x-service-run-id': id!, 'x-bench-due': String(data.due) } });
    const next = data.due + 1000;
    if (next > stopAt) return;
    const following = job(data.i, next, Date.now());
    await queue.add(following.name, following.data, following.opts);
  },
  { connection: new Redis(url, { maxRetriesPerRequest: null }), prefix, concurrency },
);
await worker.waitUntilReady();
const now = Date.now();
const startAt = now + 1000;
stopAt = startAt + runMs;
for (let i = 0; i < count; i += 1000) {
  await queue.addBulk(
    Array.from({ length: Math.min(1000, count - i) }, (_, k) =>
      job(i + k, startAt + Math.floor(((i + k) * 1000) / count), now),
    ),
  );
}
process.send?.({ startAt });
process.on('message', async () => {
  await worker.close();
  await queue.obliterate({ force: true });
  await queue.close();
  process.exit(0);
});
