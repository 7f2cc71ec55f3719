/**
 * The planner's own rules in the engine: the executor evaluates them after the user's rules, in the
 * statement that reads the target (no extra round trip), so the user's rules win; lapsed rules are
 * not evaluated; and a planner rule with `analyse` wakes the planner on the run that matches
 * (trigger rule), not at its next scheduled analysis. The engine and the planner run in-process, the
 * model is a fake Messages API server.
 */
import { loadExecutionTarget } from '@kairos/db/system';
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
let body: Record<string, unknown> = { backlog: 5 };

beforeAll(async () => {
  harness = await createApiHarness();
  engine = await startEngine(harness);
  fake = await startFakeModel();
  target = await startTestServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  });
  const account = await harness.createAccount({ tier: 'enterprise' });
  api = harness.client(account.apiKey);
  expect((await api.patch('/api/account/settings', { aiRules: true })).status).toBe(200);
});
afterAll(async () => {
  await engine.close();
  await fake.close();
  await target.close();
  await harness.close();
});

const runsOf = (endpointId: string) =>
  harness.db.prisma.run.findMany({ where: { endpointId }, orderBy: { scheduledAt: 'asc' } });

async function createEndpoint(fields: Record<string, unknown>): Promise<string> {
  const job = (await api.post('/api/jobs', { name: 'backlog' })).body;
  const created = await api.post(`/api/jobs/${job.id}/endpoints`, {
    name: 'Backlog',
    description: 'Every second while the backlog is above 100; the backlog field must be there',
    url: `${target.origin}/backlog`,
    method: 'GET',
    ...fields,
  });
  expect(created.status).toBe(201);
  return created.body.id as string;
}

it('evaluates the user rules first, then the planner rules in force; lapsed ones not at all', async () => {
  const userRule = {
    name: 'user backlog',
    when: { all: [{ path: '$.backlog', op: 'gt', value: 100 }] },
    then: { intervalMs: 4000 },
  };
  body = { backlog: 500, ok: false };
  const endpointId = await createEndpoint({ baselineIntervalMs: 1000, rules: [userRule] });
  const aiRules = [
    {
      name: 'planner: backlog',
      when: { all: [{ path: '$.backlog', op: 'gt', value: 100 }] },
      then: { intervalMs: 2000 },
    },
  ];
  await harness.db.prisma.endpoint.update({
    where: { id: endpointId },
    data: {
      aiRules,
      aiSuccessWhen: { all: [{ path: '$.ok', op: 'ne', value: false }] },
      aiRulesExpiresAt: new Date(Date.now() + 3_600_000),
    },
  });
  // A run through the engine: both match, the user's interval applies.
  const config = JSON.parse((await loadExecutionTarget(harness.db, endpointId))!.responseRules!);
  expect(config.rules).toEqual([userRule, ...aiRules]);
  expect(config.successWhen).toEqual({ all: [{ path: '$.ok', op: 'ne', value: false }] });

  const since = new Date();
  const [run] = await waitFor(
    async () => {
      const runs = (await runsOf(endpointId)).filter((found) => found.startedAt > since);
      return runs.length > 0 ? runs : null;
    },
    10_000,
    'a run after the planner rules were written',
  );
  expect(run!.rulesMatched).toEqual(['user backlog', 'planner: backlog']);
  // The planner's successWhen applies where the endpoint has none.
  expect(run!.status).toBe('failed');
  expect(run!.errorKind).toBe('assertion_failed');
  const row = await harness.db.prisma.endpoint.findUniqueOrThrow({ where: { id: endpointId } });
  expect(row.hintIntervalMs).toBe(4000);
  expect(row.hintIntervalReason).toBe('user backlog');

  // Lapsed: the target carries the user's rules alone.
  await harness.db.prisma.endpoint.update({
    where: { id: endpointId },
    data: { aiRulesExpiresAt: new Date(Date.now() - 1000) },
  });
  const lapsed = JSON.parse((await loadExecutionTarget(harness.db, endpointId))!.responseRules!);
  expect(lapsed.rules).toEqual([userRule]);
  expect(lapsed.successWhen).toBeNull();
  // And with the account's setting off, none either.
  await harness.db.prisma.endpoint.update({
    where: { id: endpointId },
    data: { aiRulesExpiresAt: new Date(Date.now() + 3_600_000) },
  });
  expect((await api.patch('/api/account/settings', { aiRules: false })).status).toBe(200);
  expect(JSON.parse((await loadExecutionTarget(harness.db, endpointId))!.responseRules!).rules).toEqual([userRule]);
  expect((await api.patch('/api/account/settings', { aiRules: true })).status).toBe(200);
  expect((await api.post(`/api/jobs/${row.jobId}/endpoints/${endpointId}/archive`, {})).status).toBe(200);
}, 30_000);

it('wakes the planner on the run that matches its own analyse rule', async () => {
  body = { backlog: 5 };
  // The first analysis writes the rule and looks again in a day; later analyses change nothing.
  fake.script((request) =>
    request.step === 0 && request.context.includes('"yours":null')
      ? callTools(
          toolUse('propose_rules', {
            rules: [
              {
                name: 'backlog gone',
                when: { all: [{ path: '$.backlog', op: 'missing' }] },
                then: { analyse: true },
              },
            ],
            reason: 'look again if the backlog field disappears',
          }),
        )
      : submitAnalysis('rules cover the description', 'high', 1440),
  );
  const planner = createTestPlanner(harness, fake, { minAnalysisIntervalMs: 500 });
  await planner.start();
  try {
    const endpointId = await createEndpoint({ baselineIntervalMs: 1000 });
    const sessions = async () =>
      (await api.get(`/api/endpoints/${endpointId}/analysis-sessions`)).body.sessions as {
        trigger: string;
        createdAt: string;
      }[];
    await waitFor(async () => (await sessions()).length === 1, 10_000, 'the first analysis');
    const written = await harness.db.prisma.endpoint.findUniqueOrThrow({ where: { id: endpointId } });
    expect(written.aiRules).toEqual([
      { name: 'planner: backlog gone', when: { all: [{ path: '$.backlog', op: 'missing' }] }, then: { analyse: true } },
    ]);
    const quiet = (await runsOf(endpointId)).length;
    await waitFor(async () => (await runsOf(endpointId)).length >= quiet + 3, 10_000, 'three quiet runs');
    expect(await sessions()).toHaveLength(1);

    body = { total: 5 };
    const listed = await waitFor(
      async () => {
        const found = await sessions();
        return found.length === 2 ? found : null;
      },
      10_000,
      'an analysis the planner rule started',
    );
    expect(listed[0]!.trigger).toBe('rule');
    const matched = (await runsOf(endpointId)).find((run) => run.rulesMatched.includes('planner: backlog gone'));
    expect(matched).toBeDefined();
    expect(Date.parse(listed[0]!.createdAt)).toBeGreaterThanOrEqual(matched!.completedAt.getTime());
  } finally {
    await planner.close();
  }
}, 60_000);
