/**
 * The planner as a new user meets it: the engine (scheduler + executor) and the planner running
 * in-process, the model a fake Messages API server reached through its base URL (as
 * ANTHROPIC_BASE_URL would), the endpoint a real HTTP server, everything else through the API.
 *  - an endpoint whose response says "surge" gets a tighter interval within one run; the session
 *    is listed with its reasoning, tools and tokens; the hint expires back to the baseline;
 *  - with the model unreachable, runs go on at the baseline and a failed session is recorded.
 */
import { createServer } from 'node:net';
import { startTestServer, type TestServer } from '../../../test/test-server.js';
import { createApiHarness, type ApiClient, type ApiHarness } from '../../../test/api.js';
import { startEngine, waitFor, type Engine } from '../../../test/engine.js';
import { callTools, startFakeModel, submitAnalysis, toolUse, type FakeModel } from '../../../test/fake-model.js';
import { createTestPlanner } from './helpers.js';

let harness: ApiHarness;
let engine: Engine;
let fake: FakeModel;
let target: TestServer;
let api: ApiClient;

beforeAll(async () => {
  harness = await createApiHarness();
  engine = await startEngine(harness);
  fake = await startFakeModel();
  target = await startTestServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(req.url?.startsWith('/surge') ? { status: 'surge', queueDepth: 480 } : { status: 'ok' }));
  });
  api = harness.client((await harness.createAccount({ tier: 'enterprise' })).apiKey);
});
afterAll(async () => {
  await engine.close();
  await fake.close();
  await target.close();
  await harness.close();
});

async function createEndpoint(path: string, baselineIntervalMs: number) {
  const job = (await api.post('/api/jobs', { name: `job ${path}` })).body;
  const response = await api.post(`/api/jobs/${job.id}/endpoints`, {
    name: 'Order queue',
    description: 'Poll every second while the response says surge; otherwise the baseline is fine.',
    url: `${target.origin}${path}`,
    method: 'GET',
    baselineIntervalMs,
    maxIntervalMs: 60_000,
  });
  expect(response.status).toBe(201);
  return response.body.id as string;
}

const runsOf = (endpointId: string) =>
  harness.db.prisma.run.findMany({ where: { endpointId }, orderBy: { scheduledAt: 'asc' } });
/** Gaps between planned times (runs stay on their grid: no drift from late starts). */
const gapsMs = (runs: { scheduledAt: Date }[]) =>
  runs.slice(1).map((run, index) => run.scheduledAt.getTime() - runs[index]!.scheduledAt.getTime());

it('tightens an endpoint whose response says surge within one run, lists the session, and returns to baseline after the TTL', async () => {
  fake.script((request) => {
    if (request.step > 0)
      return submitAnalysis('The queue reports a surge: polling every second for a few seconds.', 'high', 60);
    if (!request.context.includes('surge')) return submitAnalysis('Nothing unusual.', 'medium', 60);
    // ttlMinutes 0.05 = 3 s, so the test sees the hint expire.
    return callTools(toolUse('propose_interval', { intervalMs: 1000, ttlMinutes: 0.05, reason: 'surge reported' }));
  });
  const planner = createTestPlanner(harness, fake, { minAnalysisIntervalMs: 60_000 });
  await planner.start();
  try {
    const endpointId = await createEndpoint('/surge', 3000);

    // The first run (at creation) is analysed; the very next run comes 1 s later on the hint.
    const tight = await waitFor(
      async () => {
        const runs = await runsOf(endpointId);
        return runs.length >= 2 ? runs : null;
      },
      8000,
      'the run after the first',
    );
    expect(tight[0]!.source).toBe('baseline-interval');
    expect(tight[1]!.source).toBe('ai-interval');
    expect(gapsMs(tight)[0]).toBe(1000);

    const listed = await api.get(`/api/endpoints/${endpointId}/analysis-sessions`);
    expect(listed.status).toBe(200);
    expect(listed.body).toMatchObject({ total: 1, hasMore: false });
    const [session] = listed.body.sessions;
    expect(session).toMatchObject({
      endpointId,
      status: 'completed',
      trigger: 'first-analysis',
      reasoning: 'The queue reports a surge: polling every second for a few seconds.',
      toolsCalled: ['propose_interval'],
      tokenUsage: 300,
      endpointFailureCount: 0,
    });
    expect(session.actionsApplied).toBeUndefined();
    const detail = await api.get(`/api/analysis-sessions/${session.id}`);
    expect(detail.body).toMatchObject({
      confidence: 'high',
      actionsApplied: [
        {
          tool: 'propose_interval',
          params: { intervalMs: 1000, ttlMinutes: 0.05, reason: 'surge reported' },
          applied: true,
          result: expect.stringMatching(/^applied: interval 1000 ms until /),
        },
      ],
    });

    // After the 3 s TTL the endpoint is back on its 3 s baseline with no action.
    const settled = await waitFor(
      async () => {
        const runs = await runsOf(endpointId);
        const baseline = runs.slice(2).filter((run) => run.source === 'baseline-interval');
        return baseline.length >= 3 ? runs : null;
      },
      20_000,
      'three baseline runs after the hint',
    );
    const sources = settled.map((run) => run.source);
    const lastHinted = sources.lastIndexOf('ai-interval');
    expect(lastHinted).toBeGreaterThanOrEqual(1);
    expect(lastHinted).toBeLessThanOrEqual(4); // a 3 s hint at 1 s: at most 3 hinted runs
    expect(sources.slice(lastHinted + 1).every((source) => source === 'baseline-interval')).toBe(true);
    const baselineGaps = gapsMs(settled.slice(lastHinted + 1));
    expect(baselineGaps.length).toBeGreaterThanOrEqual(2);
    for (const gap of baselineGaps) expect(gap).toBe(3000);
    expect((await api.get(`/api/endpoints/${endpointId}`)).body.hints.interval).toBeNull();
    // One analysis: later runs changed nothing and the next look is an hour away.
    expect((await api.get(`/api/endpoints/${endpointId}/analysis-sessions`)).body.total).toBe(1);
  } finally {
    await planner.close();
  }
}, 40_000);

it('keeps running on the baseline when the model is unreachable, and records the failed analysis', async () => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  const planner = createTestPlanner(harness, { apiKey: 'sk-test', baseURL: `http://127.0.0.1:${port}` });
  await planner.start();
  try {
    const endpointId = await createEndpoint('/steady', 1000);
    const runs = await waitFor(
      async () => {
        const all = await runsOf(endpointId);
        return all.length >= 4 ? all : null;
      },
      10_000,
      'four runs',
    );
    expect(runs.every((run) => run.source === 'baseline-interval' && run.status === 'success')).toBe(true);
    for (const gap of gapsMs(runs)) expect(gap).toBe(1000);

    const listed = await waitFor(
      async () => {
        const response = await api.get(`/api/endpoints/${endpointId}/analysis-sessions`);
        return response.body.total > 0 ? response.body : null;
      },
      5000,
      'the failed session',
    );
    expect(listed.total).toBe(1);
    expect(listed.sessions[0]).toMatchObject({ status: 'failed', tokenUsage: 0, toolsCalled: [] });
    expect(listed.sessions[0].errorMessage).toMatch(/^model unreachable: /);
    const retryInMs =
      new Date(listed.sessions[0].nextAnalysisAt).getTime() - new Date(listed.sessions[0].createdAt).getTime();
    expect(retryInMs).toBe(60_000);
    expect((await api.get(`/api/endpoints/${endpointId}`)).body.hints).toEqual({ interval: null, oneShot: null });
  } finally {
    await planner.close();
  }
}, 30_000);
