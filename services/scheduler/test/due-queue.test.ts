/**
 * A due job is due the dispatch lead before its planned run's scheduledAt, however long ago the recompute read its clock,
 * and it stays small: its id is dueJobId's short form, it carries no copy of the planned run, and its
 * Redis hash stays a listpack under Redis's default hash-max-listpack-value (64), ≈450 bytes per
 * endpoint in all instead of 1,229 (docs/decisions/0012-due-jobs-carry-no-copy-of-the-run.md).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { DISPATCH_LEAD_MS } from '@kairos/core';
import { createRedisConnection, dueJobId, parseDueJobId } from '@kairos/queue';
import type { PlannedRun } from '@kairos/db/system';
import { DueQueue } from '../src/due-queue.js';
import { REDIS_URL } from '../../../test/env.mjs';

const redis = createRedisConnection(REDIS_URL);
const queue = new DueQueue(redis, `{kairos-test-${randomBytes(4).toString('hex')}}`);
afterAll(async () => {
  await queue.queue.obliterate({ force: true });
  await queue.close();
  redis.disconnect();
});

const pending = (scheduledAt: Date, scheduleVersion = 3): PlannedRun => ({
  endpointId: randomUUID(),
  accountId: randomUUID(),
  scheduleVersion,
  runId: randomUUID(),
  scheduledAt,
  source: 'baseline-interval',
});

it.each([
  ['add', (items: PlannedRun[]) => queue.add(items[0]!)],
  ['addMany', (items: PlannedRun[]) => queue.addMany(items)],
])(
  '%s: due the dispatch lead before scheduledAt even when the recompute read the clock 200 ms before the add',
  async (_name, add) => {
    const recomputeClock = Date.now() - 200; // read before its transaction
    const planned = pending(new Date(recomputeClock + 5000));
    await add([planned]);
    const job = await queue.queue.getJob(dueJobId(planned.endpointId, planned.scheduleVersion));
    expect(job).toBeDefined();
    const lateMs = job!.timestamp + (job!.opts.delay ?? 0) - (planned.scheduledAt.getTime() - DISPATCH_LEAD_MS);
    // Never early; late only by the moments between reading the clock and building the job (≪ 200 ms).
    expect(lateMs).toBeGreaterThanOrEqual(0);
    expect(lateMs).toBeLessThan(100);
  },
);

it('names the planned run in a short id and carries no copy of it', async () => {
  // A version past a year of 1 s recomputes (31.5 M) and a delay of 100 days (10 digits).
  const planned = pending(new Date(Date.now() + 100 * 86_400_000), 31_536_000);
  await queue.addMany([planned]);
  const jobId = dueJobId(planned.endpointId, planned.scheduleVersion);
  expect(jobId).toHaveLength(22 + 1 + 8);
  expect(parseDueJobId(jobId)).toEqual({ endpointId: planned.endpointId, scheduleVersion: planned.scheduleVersion });
  // Due jobs queued before the short ids are still read.
  expect(parseDueJobId(`${planned.endpointId}.3`)).toEqual({ endpointId: planned.endpointId, scheduleVersion: 3 });
  expect(parseDueJobId('not-a-due-job.3')).toBeNull();
  const key = queue.queue.toKey(jobId);
  expect(await redis.hget(key, 'data')).toBe('{}');
  expect((await redis.hget(key, 'opts'))!.length).toBeLessThanOrEqual(64);
  // Compact (listpack) at Redis's default limit or above; a server configured lower cannot keep it so.
  const [, maxValue] = (await redis.config('GET', 'hash-max-listpack-value')) as [string, string];
  if (Number(maxValue) >= 64) expect(await redis.object('ENCODING', key)).toBe('listpack');
});
