/**
 * A bad item fails alone in admission: one due job whose Redis keys the admission
 * script cannot use (its endpoint's running lock holds the wrong type) is refused alone; the other
 * jobs of its batch, from another account too, are admitted, and a second pass over an admitted
 * job (what splitting a batch does) admits it again.
 */
import { newId } from '@kairos/core';
import type { DueJobRef } from '@kairos/queue';
import { ItemFailure } from '@kairos/runtime';
import { Admissions } from '../src/admission.js';
import { OutcomeStash } from '../src/outcome-stash.js';
import { RunQuota } from '../src/run-quota.js';
import { RunningLock } from '../src/running-lock.js';
import { createApiHarness, type ApiHarness } from '../../../test/api.js';

let harness: ApiHarness;
let admissions: Admissions;
let lock: RunningLock;

beforeAll(async () => {
  harness = await createApiHarness();
  lock = new RunningLock(harness.redis, harness.queuePrefix);
  admissions = new Admissions({
    db: harness.db,
    redis: harness.redis,
    lock,
    runQuota: new RunQuota(harness.db, harness.redis, harness.queuePrefix),
    stash: new OutcomeStash(harness.queuePrefix),
    now: () => new Date(),
  });
});
afterAll(() => harness.close());

/** Due jobs for fresh endpoints of a fresh account (their rows' current version). */
async function dueJobs(count: number): Promise<DueJobRef[]> {
  const account = await harness.createAccount();
  const api = harness.client(account.apiKey);
  const job = (await api.post('/api/jobs', { name: 'admission' })).body;
  const payloads: DueJobRef[] = [];
  for (let i = 0; i < count; i += 1) {
    const endpoint = (
      await api.post(`/api/jobs/${job.id}/endpoints`, {
        name: `e${i}`,
        url: `http://127.0.0.1:9/e${i}`,
        method: 'GET',
        baselineIntervalMs: 3_600_000,
      })
    ).body;
    // Its planned run, as a recompute stores it (no scheduler runs here); the due job names its version.
    const row = await harness.db.prisma.endpoint.update({
      where: { id: endpoint.id },
      data: {
        nextRunId: newId(),
        nextRunAt: new Date(),
        nextRunSource: 'baseline-interval',
        scheduleVersion: { increment: 1 },
      },
    });
    payloads.push({ endpointId: row.id, scheduleVersion: row.scheduleVersion });
  }
  return payloads;
}

it('admits the rest of a batch when one job’s keys are unusable', async () => {
  const payloads = [...(await dueJobs(3)), ...(await dueJobs(3))];
  const poison = payloads[2]!;
  await harness.redis.hset(lock.key(poison.endpointId), 'not', 'a string');

  const results = await Promise.allSettled(payloads.map((payload) => admissions.admit(payload)));
  results.forEach((result, index) => {
    if (index === 2) {
      expect(result.status).toBe('rejected');
      expect((result as PromiseRejectedResult).reason).toBeInstanceOf(ItemFailure);
    } else {
      expect(result).toMatchObject({ status: 'fulfilled', value: { kind: 'admitted' } });
    }
  });
  // A second pass over the admitted ones (a retried part) admits them again: their locks are theirs.
  const again = await Promise.all(
    payloads.filter((_, index) => index !== 2).map((payload) => admissions.admit(payload)),
  );
  expect(again.map((admission) => admission.kind)).toEqual(Array(5).fill('admitted'));
});
