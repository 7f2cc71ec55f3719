/**
 * A delayed job is due exactly at the endpoint's scheduledAt, however long the recompute that adds
 * it took: BullMQ makes a job due at `timestamp + delay`, so both come from the recompute's `now`.
 */
import { randomBytes } from 'node:crypto';
import { createRedisConnection } from '@kairos/queue';
import type { PlannedRun } from '@kairos/db';
import { DueQueue } from '../src/due-queue.js';
import { REDIS_URL } from '../../../test/env.mjs';

const redis = createRedisConnection(REDIS_URL);
const queue = new DueQueue(redis, `{kairos-test-${randomBytes(4).toString('hex')}}`);
afterAll(async () => {
  await queue.queue.obliterate({ force: true });
  await queue.close();
  redis.disconnect();
});

const pending = (endpointId: string, scheduledAt: Date): PlannedRun => ({
  endpointId,
  accountId: 'a1',
  scheduleVersion: 3,
  runId: `run-${endpointId}`,
  scheduledAt,
  source: 'baseline-interval',
});

it.each([
  ['add', (items: PlannedRun[], now: Date) => queue.add(items[0]!, now)],
  ['addMany', (items: PlannedRun[], now: Date) => queue.addMany(items, now)],
])('%s: due at scheduledAt even when the job is added 40 ms after the recompute read the clock', async (name, add) => {
  const now = new Date(Date.now() - 40); // the recompute's clock, read before its transaction
  const scheduledAt = new Date(now.getTime() + 5000);
  await add([pending(`e-${name}`, scheduledAt)], now);
  const job = await queue.queue.getJob(`e-${name}.3`);
  expect(job).toBeDefined();
  expect(job!.timestamp + (job!.opts.delay ?? 0)).toBe(scheduledAt.getTime());
});
