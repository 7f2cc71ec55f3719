/**
 * The due jobs' bulk add (src/due-bulk-add.ts) writes BullMQ 6.7.0's job format: the same jobs added
 * through BullMQ's own Queue.addBulk on one prefix and through the script on another leave the same
 * Redis state, timestamps aside (this test fails when a BullMQ upgrade changes the format); a real
 * BullMQ Worker runs the jobs at their due time and is woken by an earlier one; an existing job is
 * left untouched; thousands of jobs go in one call.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createRedisConnection, dueJobId } from '@kairos/queue';
import type { PlannedRun } from '@kairos/db/system';
import { Queue, Worker, type Job } from 'bullmq';
import { addDueJobs, BULK_ADD_CHUNK, type DueJobEntry } from '../src/due-bulk-add.js';
import { DueQueue } from '../src/due-queue.js';
import { REDIS_URL } from '../../../test/env.mjs';

const redis = createRedisConnection(REDIS_URL);
const queues: Queue[] = [];
const dueQueues: DueQueue[] = [];
const workers: Worker[] = [];
const workerConnections: ReturnType<typeof createRedisConnection>[] = [];

const uniquePrefix = () => `{kairos-test-bulk-${randomBytes(4).toString('hex')}}`;
const openQueue = () => {
  const queue = new Queue('due', { connection: redis, prefix: uniquePrefix() });
  queues.push(queue);
  return queue;
};
/** Dispatch lead 0: these tests time the add itself (the lead: due-queue.test.ts, dispatch-lead.test.ts). */
const openDueQueue = () => {
  const dueQueue = new DueQueue(redis, uniquePrefix(), undefined, 0);
  dueQueues.push(dueQueue);
  return dueQueue;
};

afterAll(async () => {
  await Promise.all(workers.map((worker) => worker.close()));
  for (const connection of workerConnections) connection.disconnect();
  for (const queue of [...queues, ...dueQueues.map((dueQueue) => dueQueue.queue)]) {
    await queue.obliterate({ force: true });
    await queue.close();
  }
  await Promise.all(dueQueues.map((dueQueue) => dueQueue.close()));
  redis.disconnect();
});

const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

/** What DueQueue used to hand BullMQ for a due job (data object, `{ jobId, delay, attempts: undefined }`). */
const viaAddBulk = (queue: Queue, jobs: DueJobEntry[]) =>
  queue.addBulk(
    jobs.map((job) => ({
      name: 'run',
      data: JSON.parse(job.data) as object,
      opts: { jobId: job.jobId, delay: job.delayMs, attempts: undefined },
    })),
  );

const viaScript = (queue: Queue, jobs: DueJobEntry[]) => addDueJobs(redis, queue, 'run', jobs, Date.now());

/**
 * Everything under the queue's prefix, each time made relative to its job's `timestamp` (BullMQ stamps
 * each job when it builds it, the script with one `now`): key names and types, job hashes, the
 * delayed set (due time - timestamp, counter), wait list, marker, id counter, meta, events.
 */
async function snapshot(queue: Queue): Promise<Record<string, unknown>> {
  const base = queue.toKey('');
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, found] = await redis.scan(cursor, 'MATCH', `${base}*`, 'COUNT', 1000);
    cursor = next;
    keys.push(...found);
  } while (cursor !== '0');
  const types = Object.fromEntries(
    await Promise.all(keys.map(async (key) => [key.slice(base.length), await redis.type(key)] as const)),
  );
  const jobIds = Object.keys(types).filter((name) => name.includes('.'));
  const jobs: Record<string, Record<string, string>> = {};
  const timestampOf: Record<string, number> = {};
  for (const jobId of jobIds) {
    const { timestamp, ...fields } = await redis.hgetall(queue.toKey(jobId));
    expect(Number(timestamp)).toBeGreaterThan(Date.now() - 60_000);
    timestampOf[jobId] = Number(timestamp);
    jobs[jobId] = fields;
  }
  const delayedRaw = await redis.zrange(queue.toKey('delayed'), '0', '-1', 'WITHSCORES');
  const delayed: Record<string, { dueAfterTimestampMs: number; counter: number }> = {};
  for (let index = 0; index < delayedRaw.length; index += 2) {
    const score = Number(delayedRaw[index + 1]);
    const jobId = delayedRaw[index]!;
    delayed[jobId] = { dueAfterTimestampMs: Math.floor(score / 0x1000) - timestampOf[jobId]!, counter: score % 0x1000 };
  }
  const earliestScore = delayedRaw.length > 0 ? Number(delayedRaw[1]) : undefined;
  const markerRaw = await redis.zrange(queue.toKey('marker'), '0', '-1', 'WITHSCORES');
  const marker: Record<string, number> = {};
  for (let index = 0; index < markerRaw.length; index += 2) {
    const score = Number(markerRaw[index + 1]);
    // "1" holds the earliest delayed score / 0x1000 (the time a blocked worker waits for); "0" is 0.
    marker[markerRaw[index]!] = markerRaw[index] === '1' ? score * 0x1000 - earliestScore! : score;
  }
  const events = (await redis.xrange(queue.toKey('events'), '-', '+')).map(([, fields]) => {
    const entry: Record<string, string | number> = {};
    for (let index = 0; index < fields.length; index += 2) entry[fields[index]!] = fields[index + 1]!;
    if (entry.event === 'delayed') entry.delay = Number(entry.delay) - timestampOf[entry.jobId!]!;
    return entry;
  });
  return {
    types,
    jobs,
    delayed,
    wait: await redis.lrange(queue.toKey('wait'), 0, -1),
    marker,
    id: await redis.get(queue.toKey('id')),
    meta: await redis.hgetall(queue.toKey('meta')),
    events,
  };
}

it('writes what BullMQ 6.7.0 addBulk writes for the same jobs (format guard: fails if an upgrade changes it)', async () => {
  const first: DueJobEntry[] = [
    { jobId: 'AAAAAAAAAAAAAAAAAAAAAA.1', delayMs: 60_000, data: '{}' },
    { jobId: 'BBBBBBBBBBBBBBBBBBBBBB.2', delayMs: 5_000, data: JSON.stringify({ traceparent: TRACEPARENT }) },
    { jobId: 'CCCCCCCCCCCCCCCCCCCCCC.3', delayMs: 0, data: JSON.stringify({ lockShard: 2 }) },
    { jobId: 'DDDDDDDDDDDDDDDDDDDDDD.4', delayMs: 0, data: '{}' },
    { jobId: 'E_-EEEEEEEEEEEEEEEEEEE.31536000', delayMs: 100 * 86_400_000, data: '{}' },
    // The same id again in one call: the first one wins.
    { jobId: 'AAAAAAAAAAAAAAAAAAAAAA.1', delayMs: 1_000, data: '{"lockShard":1}' },
  ];
  const second: DueJobEntry[] = [
    { jobId: 'BBBBBBBBBBBBBBBBBBBBBB.2', delayMs: 2_000, data: '{}' },
    { jobId: 'FFFFFFFFFFFFFFFFFFFFFF.6', delayMs: 10_000, data: '{}' },
  ];
  const bullmq = openQueue();
  const ours = openQueue();
  await viaAddBulk(bullmq, first);
  await viaAddBulk(bullmq, second);
  expect(await viaScript(ours, first)).toBe(5);
  expect(await viaScript(ours, second)).toBe(1);

  const expected = await snapshot(bullmq);
  const actual = await snapshot(ours);
  // The fields a BullMQ upgrade would most likely move, named in the failure first.
  expect(actual.jobs).toEqual(expected.jobs);
  expect(actual.delayed).toEqual(expected.delayed);
  expect(actual).toEqual(expected);
  // And not vacuously: both queues hold the six jobs, four delayed, two waiting.
  expect(Object.keys(expected.jobs as object)).toHaveLength(6);
  expect(Object.keys(expected.delayed as object)).toHaveLength(4);
  expect(expected.wait).toEqual(['DDDDDDDDDDDDDDDDDDDDDD.4', 'CCCCCCCCCCCCCCCCCCCCCC.3']);

  // BullMQ reads them back as its own jobs.
  const job = await ours.getJob('BBBBBBBBBBBBBBBBBBBBBB.2');
  expect(job?.data).toEqual({ traceparent: TRACEPARENT });
  expect(job?.opts).toMatchObject({ jobId: 'BBBBBBBBBBBBBBBBBBBBBB.2', delay: 5_000, attempts: 0 });
  expect(await job?.getState()).toBe('delayed');
  expect(await ours.getJobCounts('delayed', 'wait')).toEqual({ delayed: 4, wait: 2 });
  expect(await ours.remove('FFFFFFFFFFFFFFFFFFFFFF.6')).toBe(1);
  expect(await ours.getJob('FFFFFFFFFFFFFFFFFFFFFF.6')).toBeUndefined();
  expect(await ours.getDelayedCount()).toBe(3);
});

it('orders jobs due in the same millisecond as BullMQ does (score counter), interleaved with BullMQ adds', async () => {
  const queue = openQueue();
  const timestamp = Date.now();
  const dueAt = timestamp + 30_000;
  // BullMQ stamps a job with opts.timestamp when given one: the same due millisecond from both writers.
  await queue.add('run', {}, { jobId: 'bullmq.1', delay: 30_000, timestamp });
  await addDueJobs(
    redis,
    queue,
    'run',
    [
      { jobId: 'ours.2', delayMs: 30_000, data: '{}' },
      { jobId: 'ours.3', delayMs: 30_000, data: '{}' },
      { jobId: 'ours.4', delayMs: 30_001, data: '{}' },
    ],
    timestamp,
  );
  await queue.add('run', {}, { jobId: 'bullmq.5', delay: 30_000, timestamp });
  const scores = await redis.zrange(queue.toKey('delayed'), '0', '-1', 'WITHSCORES');
  expect(scores).toEqual([
    'bullmq.1',
    String(dueAt * 0x1000),
    'ours.2',
    String(dueAt * 0x1000 + 1),
    'ours.3',
    String(dueAt * 0x1000 + 2),
    'bullmq.5',
    String(dueAt * 0x1000 + 3),
    'ours.4',
    String((dueAt + 1) * 0x1000),
  ]);
});

it('leaves an existing job untouched, whoever added it (no-op, a duplicated event)', async () => {
  const queue = openQueue();
  await viaAddBulk(queue, [{ jobId: 'bullmq.1', delayMs: 40_000, data: '{}' }]);
  expect(await viaScript(queue, [{ jobId: 'ours.1', delayMs: 50_000, data: '{}' }])).toBe(1);
  const before = await Promise.all(['bullmq.1', 'ours.1'].map((jobId) => redis.hgetall(queue.toKey(jobId))));
  const scoresBefore = await redis.zrange(queue.toKey('delayed'), '0', '-1', 'WITHSCORES');

  const again = [
    { jobId: 'bullmq.1', delayMs: 0, data: '{"lockShard":1}' },
    { jobId: 'ours.1', delayMs: 1_000, data: '{}' },
  ];
  expect(await viaScript(queue, again)).toBe(0);
  expect(await Promise.all(['bullmq.1', 'ours.1'].map((jobId) => redis.hgetall(queue.toKey(jobId))))).toEqual(before);
  expect(await redis.zrange(queue.toKey('delayed'), '0', '-1', 'WITHSCORES')).toEqual(scoresBefore);
  expect(await redis.llen(queue.toKey('wait'))).toBe(0);
  const events = await redis.xrange(queue.toKey('events'), '-', '+');
  expect(events.slice(-2).map(([, fields]) => fields)).toEqual([
    ['event', 'duplicated', 'jobId', 'bullmq.1'],
    ['event', 'duplicated', 'jobId', 'ours.1'],
  ]);
});

const planned = (scheduledAt: number): PlannedRun => ({
  endpointId: randomUUID(),
  accountId: randomUUID(),
  scheduleVersion: 1,
  runId: randomUUID(),
  scheduledAt: new Date(scheduledAt),
  source: 'baseline-interval',
});

/** A real BullMQ Worker on the due queue recording when it ran each job. */
function startWorker(dueQueue: DueQueue): Map<string, number> {
  const ranAt = new Map<string, number>();
  const connection = createRedisConnection(REDIS_URL);
  workerConnections.push(connection);
  const worker = new Worker(
    'due',
    async (job: Job) => {
      ranAt.set(job.id!, Date.now());
    },
    { connection, prefix: dueQueue.queue.opts.prefix! },
  );
  workers.push(worker);
  return ranAt;
}

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
}

it('a BullMQ Worker runs the added jobs at their due time', async () => {
  const dueQueue = openDueQueue();
  const ranAt = startWorker(dueQueue);
  const start = Date.now();
  const runs = [planned(start + 1500), planned(start + 2500), planned(start - 5000)];
  await dueQueue.addMany(runs);
  const ids = runs.map((run) => dueJobId(run.endpointId, run.scheduleVersion));
  await waitFor(() => ids.every((id) => ranAt.has(id)), 10_000);
  for (const [index, run] of runs.entries()) {
    const lateMs = ranAt.get(ids[index]!)! - Math.max(run.scheduledAt.getTime(), start);
    // Never early (BullMQ promotes a delayed job once its due millisecond has come); late by the
    // worker's poll and this loaded machine only.
    expect(lateMs).toBeGreaterThanOrEqual(-1);
    expect(lateMs).toBeLessThan(1000);
  }
});

it('wakes a worker blocked waiting: for a job due earlier than the earliest, and for an overdue one', async () => {
  const dueQueue = openDueQueue();
  const ranAt = startWorker(dueQueue);
  // The worker blocks on the marker until the earliest job's time: 20 s here, capped at BullMQ's 10 s
  // maximum block. A job due in 1 s runs in ≈1 s only if the add moved the marker.
  await dueQueue.addMany([planned(Date.now() + 20_000)]);
  await new Promise((resolve) => setTimeout(resolve, 700));
  const earlier = planned(Date.now() + 1000);
  await dueQueue.addMany([earlier]);
  const earlierId = dueJobId(earlier.endpointId, earlier.scheduleVersion);
  await waitFor(() => ranAt.has(earlierId), 8000);
  expect(ranAt.get(earlierId)! - earlier.scheduledAt.getTime()).toBeLessThan(2000);

  // Blocked again until the 20 s job; an overdue job (delay 0, the wait list) wakes it at once.
  await new Promise((resolve) => setTimeout(resolve, 700));
  const overdue = planned(Date.now() - 60_000);
  const addedAt = Date.now();
  await dueQueue.addMany([overdue]);
  const overdueId = dueJobId(overdue.endpointId, overdue.scheduleVersion);
  await waitFor(() => ranAt.has(overdueId), 8000);
  expect(ranAt.get(overdueId)! - addedAt).toBeLessThan(2000);
});

it(`adds thousands of jobs: one addMany (${BULK_ADD_CHUNK} per script call), each due at its scheduledAt`, async () => {
  const dueQueue = openDueQueue();
  const start = Date.now();
  const runs = Array.from({ length: 5000 }, (_, index) => planned(start + 60_000 + index * 7));
  await dueQueue.addMany(runs);
  expect(await dueQueue.queue.getDelayedCount()).toBe(5000);
  const scores = await redis.zrange(dueQueue.queue.toKey('delayed'), '0', '-1', 'WITHSCORES');
  const dueOf = new Map<string, number>();
  for (let index = 0; index < scores.length; index += 2)
    dueOf.set(scores[index]!, Math.floor(Number(scores[index + 1]) / 0x1000));
  for (const run of runs)
    expect(dueOf.get(dueJobId(run.endpointId, run.scheduleVersion))).toBe(run.scheduledAt.getTime());
  // The marker names the earliest.
  expect(await redis.zscore(dueQueue.queue.toKey('marker'), '1')).toBe(String(start + 60_000));
  // The same jobs again add nothing.
  const entries = runs.map((run) => ({ jobId: dueJobId(run.endpointId, run.scheduleVersion), delayMs: 1, data: '{}' }));
  expect(await addDueJobs(redis, dueQueue.queue, 'run', entries, Date.now())).toBe(0);
});

it('adds 5,000 jobs in a single script call (delayed and overdue), in the order given', async () => {
  const queue = openQueue();
  const now = Date.now();
  // Every fifth overdue (the wait list), the others due on 1,000 distinct milliseconds, five each.
  const entries: DueJobEntry[] = Array.from({ length: 5000 }, (_, index) => ({
    jobId: `job.${index}`,
    delayMs: index % 5 === 0 ? 0 : 60_000 + (index % 1000),
    data: '{}',
  }));
  expect(await addDueJobs(redis, queue, 'run', entries, now, 5000)).toBe(5000);
  expect(await queue.getJobCounts('delayed', 'wait')).toEqual({ delayed: 4000, wait: 1000 });
  const waiting = entries.filter((entry) => entry.delayMs === 0).map((entry) => entry.jobId);
  expect(await redis.lrange(queue.toKey('wait'), '0', '-1')).toEqual(waiting.reverse());
  // Jobs due in one millisecond keep the order they were given in (counters 0, 1, 2…).
  const scores = await redis.zrange(queue.toKey('delayed'), '0', '-1', 'WITHSCORES');
  const counters = new Map<number, string[]>();
  for (let index = 0; index < scores.length; index += 2) {
    const score = Number(scores[index + 1]);
    const due = Math.floor(score / 0x1000);
    expect(score % 0x1000).toBe(counters.get(due)?.length ?? 0);
    counters.set(due, [...(counters.get(due) ?? []), scores[index]!]);
  }
  expect(counters.get(now + 60_001)).toEqual(['job.1', 'job.1001', 'job.2001', 'job.3001', 'job.4001']);
  expect(await redis.zscore(queue.toKey('marker'), '0')).toBe('0');
});
