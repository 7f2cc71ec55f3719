/**
 * A response rule's `analyse` action, end to end: the engine and the planner in-process, the model a
 * fake Messages API server. The planner analyses once (first-analysis) and chooses its next look an
 * hour away; runs that change nothing start no analysis; the first run whose body matches the rule
 * starts one at once (trigger rule). With AI scheduling off, a matching run starts none.
 */
import { startTestServer, type TestServer } from '../../../test/test-server.js';
import { createApiHarness, type ApiClient, type ApiHarness } from '../../../test/api.js';
import { startEngine, waitFor, type Engine } from '../../../test/engine.js';
import { startFakeModel, submitAnalysis, type FakeModel } from '../../../test/fake-model.js';
import { createTestPlanner } from './helpers.js';

let harness: ApiHarness;
let engine: Engine;
let fake: FakeModel;
let target: TestServer;
let api: ApiClient;
let alarm = false;

beforeAll(async () => {
  harness = await createApiHarness();
  engine = await startEngine(harness);
  fake = await startFakeModel();
  target = await startTestServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ alarm }));
  });
  api = harness.client((await harness.createAccount({ tier: 'enterprise' })).apiKey);
});
afterAll(async () => {
  await engine.close();
  await fake.close();
  await target.close();
  await harness.close();
});

it('starts an analysis with the first run that matches an analyse rule, inside the AI switch', async () => {
  fake.script(() => submitAnalysis('Looked; next look in an hour.', 'high', 60));
  const planner = createTestPlanner(harness, fake, { minAnalysisIntervalMs: 500 });
  await planner.start();
  try {
    const job = (await api.post('/api/jobs', { name: 'alarms' })).body;
    const created = await api.post(`/api/jobs/${job.id}/endpoints`, {
      name: 'Alarm state',
      url: `${target.origin}/alarm`,
      method: 'GET',
      baselineIntervalMs: 1000,
      rules: [
        { name: 'alarm raised', when: { all: [{ path: '$.alarm', op: 'eq', value: true }] }, then: { analyse: true } },
      ],
    });
    expect(created.status).toBe(201);
    const endpointId = created.body.id as string;
    const sessions = async () =>
      (await api.get(`/api/endpoints/${endpointId}/analysis-sessions`)).body.sessions as {
        trigger: string;
        createdAt: string;
      }[];
    const runs = () => harness.db.prisma.run.findMany({ where: { endpointId }, orderBy: { scheduledAt: 'asc' } });

    await waitFor(async () => (await sessions()).length === 1, 10_000, 'the first analysis');
    // Three more runs, nothing changed: not due for an hour, no analysis.
    const quiet = (await runs()).length;
    await waitFor(async () => (await runs()).length >= quiet + 3, 10_000, 'three quiet runs');
    expect((await sessions()).map((session) => session.trigger)).toEqual(['first-analysis']);

    alarm = true;
    const [latest] = await waitFor(
      async () => {
        const listed = await sessions();
        return listed.length === 2 ? listed : null;
      },
      10_000,
      'an analysis the rule started',
    );
    expect(latest!.trigger).toBe('rule');
    const matched = (await runs()).find((run) => run.rulesMatched.includes('alarm raised'));
    expect(matched).toBeDefined();
    expect(Date.parse(latest!.createdAt)).toBeGreaterThanOrEqual(matched!.completedAt.getTime());

    // AI scheduling off: matching runs go on, no analysis starts.
    expect((await api.patch('/api/account/settings', { aiSchedulingEnabled: false })).status).toBe(200);
    const off = (await runs()).length;
    await waitFor(async () => (await runs()).length >= off + 3, 10_000, 'three runs with AI scheduling off');
    expect((await runs()).slice(off).every((run) => run.rulesMatched.includes('alarm raised'))).toBe(true);
    expect(await sessions()).toHaveLength(2);
  } finally {
    await planner.close();
  }
}, 60_000);
