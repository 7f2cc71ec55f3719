/**
 * Which recorded runs are announced to the planner: every scheduled run of an account with AI
 * scheduling on, none of an account with it off (run-completed is emitted for both), and none at
 * all while no planner with a model announces itself (planner-presence.ts). No planner consumes
 * here (the test announces one), so the run-completed-planner jobs stay in their queue to be counted.
 */
import { PLANNER_PRESENCE, QUEUES, plannerPresenceKey, type RunCompletedPayload } from '@kairos/queue';
import { Queue } from 'bullmq';
import { startTestServer, type TestServer } from '../../../test/test-server.js';
import { createApiHarness, type ApiHarness } from '../../../test/api.js';
import { startEngine, waitFor, type Engine } from '../../../test/engine.js';

let harness: ApiHarness;
let engine: Engine;
let target: TestServer;
let runCompletedForPlanner: Queue<RunCompletedPayload>;

beforeAll(async () => {
  harness = await createApiHarness();
  // A planner with a model, as announcePlanner keeps it (the executor reads it on its first record).
  await harness.redis.set(plannerPresenceKey(harness.queuePrefix), '1', 'PX', 600_000);
  engine = await startEngine(harness);
  target = await startTestServer((_req, res) => res.end('ok'));
  runCompletedForPlanner = new Queue(QUEUES.runCompletedForPlanner, {
    connection: harness.redis,
    prefix: harness.queuePrefix,
  });
});
afterAll(async () => {
  await runCompletedForPlanner.close();
  await engine.close();
  await target.close();
  await harness.close();
});

async function endpointOf(aiSchedulingEnabled: boolean) {
  const account = await harness.createAccount();
  const api = harness.client(account.apiKey);
  expect((await api.patch('/api/account/settings', { aiSchedulingEnabled })).status).toBe(200);
  const job = (await api.post('/api/jobs', { name: `ai ${aiSchedulingEnabled}` })).body;
  const endpoint = await api.post(`/api/jobs/${job.id}/endpoints`, {
    name: 'probe',
    url: `${target.origin}/ai-${aiSchedulingEnabled}`,
    method: 'GET',
    baselineIntervalMs: 1000,
  });
  expect(endpoint.status).toBe(201);
  return endpoint.body.id as string;
}

it('announces runs to the planner only for accounts with AI scheduling on', async () => {
  const withAi = await endpointOf(true);
  const withoutAi = await endpointOf(false);
  const recorded = (endpointId: string) => harness.db.prisma.run.count({ where: { endpointId } });
  await waitFor(async () => (await recorded(withAi)) >= 2 && (await recorded(withoutAi)) >= 2, 8000, 'two runs each');
  await waitFor(
    async () => {
      const jobs = await runCompletedForPlanner.getJobs(['waiting', 'delayed', 'prioritized']);
      return jobs.filter((job) => job.data.endpointId === withAi).length >= 2;
    },
    3000,
    'run-completed-planner jobs of the AI account',
  );
  const jobs = await runCompletedForPlanner.getJobs([
    'waiting',
    'delayed',
    'prioritized',
    'active',
    'completed',
    'failed',
  ]);
  expect(jobs.filter((job) => job.data.endpointId === withoutAi)).toHaveLength(0);
  // run-completed still drives the scheduler for both: each keeps running on its interval.
  expect(await recorded(withoutAi)).toBeGreaterThanOrEqual(2);
});

it('announces nothing while no planner with a model runs (no model: the hop would cost for nothing)', async () => {
  await harness.redis.del(plannerPresenceKey(harness.queuePrefix));
  // The executor re-reads the presence every readEveryMs: runs recorded after that are not announced.
  await new Promise((resolve) => setTimeout(resolve, PLANNER_PRESENCE.readEveryMs + 500));
  const withAi = await endpointOf(true);
  const recorded = () => harness.db.prisma.run.count({ where: { endpointId: withAi } });
  await waitFor(async () => (await recorded()) >= 3, 10_000, 'three runs');
  const jobs = await runCompletedForPlanner.getJobs(['waiting', 'delayed', 'prioritized', 'active', 'completed']);
  expect(jobs.filter((job) => job.data.endpointId === withAi)).toHaveLength(0);
});
