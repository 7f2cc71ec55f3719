/**
 * Scheduling actions answer with the endpoint as it will be scheduled: the request plans the next
 * run with the scheduler's policy under the row lock (packages/db/src/scheduling.ts), so `nextRunAt`
 * and `nextRunSource` in the answer are the next run, and what the scheduler then stores and queues
 * is that same run. The real scheduler and executor run on this file's database and Redis; the
 * endpoint (1 h baseline) calls a server on 127.0.0.1 once, at its creation, then waits an hour.
 */
import { QUEUES, dueJobId, parseDueJobId } from '@kairos/queue';
import { Queue } from 'bullmq';
import { createApiHarness, type ApiClient, type ApiHarness } from '../../../test/api.js';
import { startEngine, waitFor, type Engine } from '../../../test/engine.js';
import { startTestServer, type TestServer } from '../../../test/test-server.js';

const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;

let harness: ApiHarness;
let engine: Engine;
let api: ApiClient;
let target: TestServer;
let jobId: string;

beforeAll(async () => {
  harness = await createApiHarness();
  engine = await startEngine(harness);
  api = harness.client((await harness.createAccount()).apiKey);
  target = await startTestServer((req, res) => {
    res.statusCode = req.url === '/failing' ? 500 : 200;
    res.end('{}');
  });
  jobId = (await api.post('/api/jobs', { name: 'answers' })).body.id;
});
afterAll(async () => {
  await engine.close();
  await target.close();
  await harness.close();
});

const row = (id: string) => harness.db.prisma.endpoint.findUniqueOrThrow({ where: { id } });
const inMinutes = (minutes: number) => new Date(Date.now() + minutes * MINUTE_MS);

/** An endpoint on a 1 h baseline whose first run (at creation) is recorded and whose next is planned. */
async function createSettledEndpoint(path: string) {
  const created = await api.post(`/api/jobs/${jobId}/endpoints`, {
    name: path,
    url: `${target.origin}${path}`,
    method: 'GET',
    baselineIntervalMs: HOUR_MS,
  });
  expect(created.status).toBe(201);
  const settled = await waitFor(
    async () => {
      const found = await row(created.body.id);
      return found.lastScheduledAt && found.nextRunAt! > found.lastScheduledAt && !found.scheduleDirtyAt ? found : null;
    },
    8000,
    `the run of ${path} at its creation`,
  );
  return { id: settled.id, ranAt: settled.lastScheduledAt!.getTime() };
}

/**
 * The answer's next run, checked against what the scheduler then stores (its recompute clears
 * scheduleDirtyAt) and queues: the same time, source and run, one due job for the row's version.
 */
async function expectScheduledAsAnswered(
  endpointId: string,
  answered: { nextRunAt: string | null; nextRunSource: string | null },
) {
  const stored = await waitFor(
    async () => {
      const found = await row(endpointId);
      return found.scheduleDirtyAt === null ? found : null;
    },
    5000,
    'the scheduler to store the next run',
  );
  const { nextRunAt, nextRunSource } = answered;
  expect({ nextRunAt: stored.nextRunAt?.toISOString() ?? null, nextRunSource: stored.nextRunSource }).toEqual({
    nextRunAt,
    nextRunSource,
  });
  const queue = new Queue(QUEUES.due, { connection: harness.redis, prefix: harness.queuePrefix });
  const pending = (await queue.getJobs(['wait', 'delayed', 'prioritized'], 0, -1)).filter(
    (job) => parseDueJobId(job.id)?.endpointId === endpointId,
  );
  expect(pending.map((job) => job.id)).toEqual([dueJobId(endpointId, stored.scheduleVersion)]);
  await queue.close();
}

it('pause and resume answer the pause end, then the baseline slot', async () => {
  const { id, ranAt } = await createSettledEndpoint('/paused');
  const pausedUntil = inMinutes(10).toISOString();
  const paused = await api.post(`/api/endpoints/${id}/pause`, { pausedUntil, reason: 'maintenance' });
  expect(paused.body.endpoint).toMatchObject({ nextRunAt: pausedUntil, nextRunSource: 'baseline-interval' });
  await expectScheduledAsAnswered(id, paused.body.endpoint);

  const resumed = await api.post(`/api/endpoints/${id}/pause`, { pausedUntil: null });
  expect(resumed.body.endpoint.nextRunAt).toBe(new Date(ranAt + HOUR_MS).toISOString());
  await expectScheduledAsAnswered(id, resumed.body.endpoint);
});

it('an interval hint answers last run + the hint, a one-shot its time, clearing them the baseline slot', async () => {
  const { id, ranAt } = await createSettledEndpoint('/hinted');
  const interval = await api.post(`/api/endpoints/${id}/hints/interval`, {
    intervalMs: 5 * MINUTE_MS,
    ttlMinutes: 60,
    reason: 'busy',
  });
  expect(interval.body.endpoint).toMatchObject({
    nextRunAt: new Date(ranAt + 5 * MINUTE_MS).toISOString(),
    nextRunSource: 'ai-interval',
  });
  await expectScheduledAsAnswered(id, interval.body.endpoint);

  const at = inMinutes(3).toISOString();
  const oneShot = await api.post(`/api/endpoints/${id}/hints/oneshot`, { nextRunAt: at, ttlMinutes: 30, reason: 'x' });
  expect(oneShot.body.endpoint).toMatchObject({ nextRunAt: at, nextRunSource: 'ai-oneshot' });
  await expectScheduledAsAnswered(id, oneShot.body.endpoint);

  const cleared = await api.delete(`/api/endpoints/${id}/hints`);
  expect(cleared.body.endpoint).toMatchObject({
    nextRunAt: new Date(ranAt + HOUR_MS).toISOString(),
    nextRunSource: 'baseline-interval',
  });
  await expectScheduledAsAnswered(id, cleared.body.endpoint);
});

it('reset failures answers the unmultiplied baseline slot', async () => {
  const { id, ranAt } = await createSettledEndpoint('/failing');
  expect((await row(id)).nextRunAt!.getTime()).toBe(ranAt + 2 * HOUR_MS); // one failure: 2x
  const reset = await api.post(`/api/endpoints/${id}/reset-failures`);
  expect(reset.body.endpoint).toMatchObject({ failureCount: 0, nextRunAt: new Date(ranAt + HOUR_MS).toISOString() });
  await expectScheduledAsAnswered(id, reset.body.endpoint);
});
