/**
 * A bad run fails alone: a run PostgreSQL refuses (U+0000 in a jsonb body) is recorded
 * as record_error while the other runs of its batch, from any account, are recorded as they came.
 * The recorder is driven directly, so this holds whatever the HTTP layer does to bodies.
 */
import { newId } from '@kairos/core';
import type { RunOutcome } from '@kairos/db/system';
import { PlannerPresence, QUEUES, type RunCompletedPayload, type RunsCompletedPayload } from '@kairos/queue';
import { Queue } from 'bullmq';
import { OutcomeStash } from '../src/outcome-stash.js';
import { RunQuota } from '../src/run-quota.js';
import { RunRecorder } from '../src/run-recorder.js';
import { RunningLock } from '../src/running-lock.js';
import { createApiHarness, type ApiHarness } from '../../../test/api.js';

let harness: ApiHarness;
let runCompleted: Queue<RunsCompletedPayload>;
let runCompletedForPlanner: Queue<RunCompletedPayload>;
let recorder: RunRecorder;
let lock: RunningLock;

beforeAll(async () => {
  harness = await createApiHarness();
  const queueOptions = { connection: harness.redis, prefix: harness.queuePrefix };
  runCompleted = new Queue(QUEUES.runCompleted, queueOptions);
  runCompletedForPlanner = new Queue(QUEUES.runCompletedForPlanner, queueOptions);
  lock = new RunningLock(harness.redis, harness.queuePrefix);
  recorder = new RunRecorder({
    db: harness.db,
    redis: harness.redis,
    lock,
    runQuota: new RunQuota(harness.db, harness.redis, harness.queuePrefix),
    stash: new OutcomeStash(harness.queuePrefix),
    runCompleted,
    runCompletedForPlanner,
    plannerPresence: new PlannerPresence(harness.redis, harness.queuePrefix),
  });
});
afterAll(async () => {
  await runCompleted.close();
  await runCompletedForPlanner.close();
  await harness.close();
});

/** Endpoints of a fresh account (no engine runs here: nothing consumes schedule-changes). */
async function endpointsOf(count: number): Promise<{ id: string; accountId: string }[]> {
  const account = await harness.createAccount();
  const api = harness.client(account.apiKey);
  const job = (await api.post('/api/jobs', { name: 'isolation' })).body;
  const endpoints = [];
  for (let i = 0; i < count; i += 1) {
    const response = await api.post(`/api/jobs/${job.id}/endpoints`, {
      name: `e${i}`,
      url: `http://127.0.0.1:9/e${i}`,
      method: 'GET',
      baselineIntervalMs: 3_600_000,
    });
    endpoints.push({ id: response.body.id as string, accountId: account.accountId });
  }
  return endpoints;
}

function runOf(endpoint: { id: string; accountId: string }, body: unknown): RunOutcome {
  const startedAt = new Date(Date.now() - 1000);
  return {
    id: newId(),
    accountId: endpoint.accountId,
    endpointId: endpoint.id,
    source: 'baseline-interval',
    status: 'success',
    scheduledAt: startedAt,
    startedAt,
    completedAt: new Date(startedAt.getTime() + 42),
    durationMs: 42,
    statusCode: 200,
    responseBody: body,
    responseFormat: 'json',
    responseTruncated: false,
    responseSizeBytes: 64,
    responseBodyAltered: false,
    errorKind: null,
    errorMessage: null,
    attempt: 2,
  };
}

it('records the good runs of a batch and the poison one as record_error; the poison endpoint advances once', async () => {
  const endpoints = [...(await endpointsOf(4)), ...(await endpointsOf(3))];
  const poisonAt = 3;
  const runs = endpoints.map((endpoint, index) =>
    runOf(endpoint, index === poisonAt ? { text: 'nul \u0000 here' } : { ok: index }),
  );
  // Each run holds its endpoint's lock, as an admitted execution does.
  for (const run of runs) expect(await lock.admit(run.endpointId, run.id, 1, 60_000)).toBe(true);

  // Submitted in one turn of the event loop: one batch of seven.
  const results = await Promise.allSettled(
    runs.map((run) => recorder.record({ run, scheduleVersion: 1, aiSchedulingEnabled: false })),
  );
  expect(results.map((result) => result.status)).toEqual(Array(7).fill('fulfilled'));
  expect((results[poisonAt] as PromiseFulfilledResult<{ run: RunOutcome }>).value.run.errorKind).toBe('record_error');

  const stored = await harness.db.prisma.run.findMany({ where: { id: { in: runs.map((run) => run.id) } } });
  expect(stored).toHaveLength(7);
  for (const [index, run] of runs.entries()) {
    const row = stored.find((candidate) => candidate.id === run.id)!;
    if (index === poisonAt) {
      expect(row).toMatchObject({
        status: 'failed',
        errorKind: 'record_error',
        statusCode: 200,
        durationMs: 42,
        attempt: 2,
        responseBody: null,
      });
      expect(row.errorMessage).toMatch(/could not be recorded/);
      expect(row.errorMessage).not.toContain('\u0000');
    } else {
      expect(row).toMatchObject({ status: 'success', errorKind: null, responseBody: { ok: index } });
    }
  }
  const poisonEndpoint = await harness.db.prisma.endpoint.findUniqueOrThrow({
    where: { id: runs[poisonAt]!.endpointId },
  });
  expect(poisonEndpoint).toMatchObject({ failureCount: 1, lastStatus: 'failed', lastRunAt: runs[poisonAt]!.startedAt });
  // Every lock is free (its run's recorded mark left: running-lock.ts) and every run announced once to the scheduler.
  for (const run of runs) expect(await harness.redis.get(lock.key(run.endpointId))).toBe(`${run.id}@recorded`);
  const announced = (await runCompleted.getJobs(['waiting'])).flatMap((job) => job.data.runs.map((run) => run.runId));
  expect(announced.filter((runId) => runs.some((run) => run.id === runId)).sort()).toEqual(
    runs.map((run) => run.id).sort(),
  );

  // A retried delivery of the poison run records nothing twice.
  await expect(
    recorder.record({ run: runs[poisonAt]!, scheduleVersion: 1, aiSchedulingEnabled: false }),
  ).resolves.toMatchObject({
    firstDelivery: false,
  });
  expect(await harness.db.prisma.run.count({ where: { endpointId: runs[poisonAt]!.endpointId } })).toBe(1);
});
