import { randomBytes } from 'node:crypto';
import { createRedisConnection } from '@kairos/queue';
import { RunningLock } from './running-lock.js';
import { REDIS_URL } from '../../../test/env.mjs';

const redis = createRedisConnection(REDIS_URL);
const lock = new RunningLock(redis, `{kairos-test-lock-${randomBytes(4).toString('hex')}}`);
afterAll(() => redis.disconnect());

const LEASE_MS = 60_000;
const id = () => randomBytes(8).toString('hex');

async function releaseRecorded(endpointId: string, runId: string, scheduleVersion: number): Promise<void> {
  const pipeline = redis.pipeline();
  lock.releaseRecordedIn(pipeline, endpointId, runId, scheduleVersion);
  await pipeline.exec();
}

it('refuses a recorded run under a newer version, and lets the next run take the lock', async () => {
  const [endpoint, run, next] = [id(), id(), id()];
  expect(await lock.admit(endpoint, run, 1, LEASE_MS)).toBe(true);
  // A recompute kept the run id under version 2 while version 1 executed; it reads the row before
  // the record commits and reaches the lock after the recorder freed it.
  expect(await lock.admit(endpoint, run, 2, LEASE_MS)).toBe(false);
  await releaseRecorded(endpoint, run, 1);
  expect(await lock.admit(endpoint, run, 2, LEASE_MS)).toBe(false);
  expect(await lock.heldByAnother(endpoint, run, 2)).toBe(true);
  // The endpoint's next run is not held back by the mark.
  expect(await lock.heldByAnother(endpoint, next, 3)).toBe(false);
  expect(await lock.admit(endpoint, next, 3, LEASE_MS)).toBe(true);
  expect(await lock.heldByAnother(endpoint, run, 2)).toBe(true);
  const ttl = await redis.pttl(lock.key(endpoint));
  expect(ttl).toBeGreaterThan(LEASE_MS - 5000);
});

it('leaves the mark for 30 s (LOCK_MARGIN_MS), and only for the holder it replaces', async () => {
  const [endpoint, run, other] = [id(), id(), id()];
  expect(await lock.admit(endpoint, run, 1, LEASE_MS)).toBe(true);
  // A late finisher of another run never touches this run's lock.
  await releaseRecorded(endpoint, other, 7);
  expect(await redis.get(lock.key(endpoint))).toBe(lock.holder(run, 1));
  await releaseRecorded(endpoint, run, 1);
  expect(await redis.get(lock.key(endpoint))).toBe(`${run}@recorded`);
  const ttl = await redis.pttl(lock.key(endpoint));
  expect(ttl).toBeGreaterThan(25_000);
  expect(ttl).toBeLessThanOrEqual(30_000);
});

it('frees the key for a run that ends unrecorded: its next delivery is admitted', async () => {
  const [endpoint, run] = [id(), id()];
  expect(await lock.admit(endpoint, run, 1, LEASE_MS)).toBe(true);
  await lock.release(endpoint, run, 1);
  expect(await redis.exists(lock.key(endpoint))).toBe(0);
  expect(await lock.admit(endpoint, run, 1, LEASE_MS)).toBe(true);
});

it('marks a free key when a replayed delivery records its run (it holds no lock)', async () => {
  const [endpoint, run] = [id(), id()];
  await releaseRecorded(endpoint, run, 1);
  expect(await redis.get(lock.key(endpoint))).toBe(`${run}@recorded`);
  expect(await lock.admit(endpoint, run, 2, LEASE_MS)).toBe(false);
});
