/**
 * The planner's own response rules (the account's aiRules setting), against a fake model over HTTP:
 * propose_rules offered only with the setting on (off: exactly the seven tools and the report), the
 * governor's clamps and refusals, the backtest in the tool's answer and the session, the rules kept
 * apart from the user's and shown in the API as proposed by the planner, shadow mode recording and
 * not applying, and a later analysis renewing them.
 */
import { AI_RULE_LIMITS, plannerToolDefinitions } from '@kairos/core';
import { callTools, submitAnalysis, toolUse } from '../../../test/fake-model.js';
import {
  createTestEndpoint,
  endpointRow,
  makeAnalysisDue,
  recordRun,
  runAndAnalyse,
  sessionsOf,
  usePlannerTestbed,
} from './helpers.js';

const bed = usePlannerTestbed();
beforeEach(() => {
  bed.fake.requests.length = 0;
});
afterEach(async () => {
  await bed.api.patch('/api/account/settings', { aiRules: false, aiShadowMode: false });
});

const WEEK_MS = AI_RULE_LIMITS.ttlMinutes * 60_000;
const backlogRules = [
  {
    name: 'backlog high',
    when: { all: [{ path: '$.backlog', op: 'gt', value: 100 }] },
    then: { intervalMs: 1000 },
  },
  { name: 'backlog field gone', when: { all: [{ path: '$.backlog', op: 'missing' }] }, then: { analyse: true } },
];

const proposeRules = (input: Record<string, unknown>) =>
  callTools(toolUse('propose_rules', { reason: 'the description asks for it', ...input }));

const setAiRules = async (on: boolean, extra: Record<string, unknown> = {}) => {
  const answer = await bed.api.patch('/api/account/settings', { aiRules: on, ...extra });
  expect(answer.status).toBe(200);
  expect(answer.body.settings.aiRules).toBe(on);
};

describe('the aiRules setting', () => {
  it('is off by default; off, the model is offered exactly the seven tools and the report', async () => {
    expect((await bed.api.get('/api/account')).body.settings.aiRules).toBe(false);
    const endpoint = await createTestEndpoint(bed.api, bed.account.accountId);
    bed.fake.play([proposeRules({ rules: backlogRules }), submitAnalysis('done')]);
    await runAndAnalyse(bed.harness, bed.planner, endpoint);

    const names = bed.fake.requests[0]!.body.tools!.map((tool) => tool.name);
    expect(names).toEqual([
      'propose_interval',
      'propose_next_time',
      'pause_until',
      'clear_hints',
      'get_latest_response',
      'get_response_history',
      'get_sibling_latest_responses',
      'submit_analysis',
    ]);
    expect(bed.fake.requests[0]!.body.tools).toEqual(plannerToolDefinitions());
    expect(bed.fake.requests[0]!.context).not.toContain('Response rules');
    // Called anyway, the tool does not exist.
    expect(bed.fake.requests[1]!.toolResults[0]).toMatchObject({
      is_error: true,
      content: 'unknown tool propose_rules',
    });
    expect((await endpointRow(bed.harness, endpoint.id)).aiRules).toBeNull();
  });

  it('on, offers propose_rules beside them and shows the rules in the context', async () => {
    await setAiRules(true);
    const endpoint = await createTestEndpoint(bed.api, bed.account.accountId, { rules: backlogRules.slice(0, 1) });
    bed.fake.play([submitAnalysis('nothing yet')]);
    await runAndAnalyse(bed.harness, bed.planner, endpoint);
    const request = bed.fake.requests[0]!;
    expect(request.body.tools!.map((tool) => tool.name)).toEqual([
      'propose_interval',
      'propose_next_time',
      'pause_until',
      'clear_hints',
      'propose_rules',
      'get_latest_response',
      'get_response_history',
      'get_sibling_latest_responses',
      'submit_analysis',
    ]);
    expect(request.body.tools).toEqual(plannerToolDefinitions({ rules: true }));
    expect(request.context).toContain('Response rules');
    expect(request.context).toContain('"name":"backlog high"');
    expect(String(request.body.system)).toContain('propose_rules');
  });
});

describe('propose_rules', () => {
  it('stores the clamped rules apart from the user rules, with the reason, the expiry and a backtest', async () => {
    await setAiRules(true);
    const userRule = { name: 'mine', when: { status: [503] }, then: { pauseMs: 60_000 } };
    const endpoint = await createTestEndpoint(bed.api, bed.account.accountId, {
      minIntervalMs: 5000,
      maxIntervalMs: 3_600_000,
      rules: [userRule],
    });
    for (const backlog of [10, 150, 200]) await recordRun(bed.harness, endpoint, { body: { backlog } });
    bed.fake.play([
      proposeRules({ rules: backlogRules, successWhen: { all: [{ path: '$.ok', op: 'ne', value: false }] } }),
      submitAnalysis('rules written'),
    ]);
    const before = Date.now();
    await runAndAnalyse(bed.harness, bed.planner, endpoint, { body: { backlog: 300 } });

    const answer = bed.fake.requests[1]!.toolResults[0]!;
    expect(answer.is_error).toBeUndefined();
    expect(answer.content).toContain('applied: 2 rules and a successWhen until');
    expect(answer.content).toContain('backlog high: intervalMs 1000 ms clamped to minIntervalMs 5000 ms');
    // The backtest: the four recorded runs replayed, three of them over 100.
    expect(answer.content).toContain('Backtest over the 4 latest recorded runs');
    expect(answer.content).toContain('"backlog high" 3, "backlog field gone" 0');

    const row = await endpointRow(bed.harness, endpoint.id);
    expect(row.rules).toEqual([userRule]);
    expect(row.aiRules).toEqual([
      { ...backlogRules[0], name: 'planner: backlog high', then: { intervalMs: 5000 } },
      { ...backlogRules[1], name: 'planner: backlog field gone' },
    ]);
    expect(row.aiSuccessWhen).toEqual({ all: [{ path: '$.ok', op: 'ne', value: false }] });
    expect(row.aiRulesReason).toBe('the description asks for it');
    const [session] = await sessionsOf(bed.harness, endpoint.id);
    expect(row.aiRulesSessionId).toBe(session!.id);
    expect(row.aiRulesExpiresAt!.getTime()).toBeGreaterThanOrEqual(before + WEEK_MS);
    expect(row.aiRulesExpiresAt!.getTime()).toBeLessThanOrEqual(Date.now() + WEEK_MS);
    const actions = session!.actionsApplied as { tool: string; result: string; applied: boolean }[];
    expect(actions).toEqual([
      expect.objectContaining({
        tool: 'propose_rules',
        applied: true,
        result: expect.stringContaining('Backtest over'),
      }),
    ]);

    const shown = (await bed.api.get(`/api/endpoints/${endpoint.id}`)).body;
    expect(shown.rules).toEqual([userRule]);
    expect(shown.aiRules).toMatchObject({
      proposedBy: 'planner',
      reason: 'the description asks for it',
      sessionId: session!.id,
      expiresAt: row.aiRulesExpiresAt!.toISOString(),
    });
    expect(shown.aiRules.rules.map((rule: { name: string }) => rule.name)).toEqual([
      'planner: backlog high',
      'planner: backlog field gone',
    ]);
  });

  it.each([
    [
      'more than 10 rules',
      Array.from({ length: 11 }, (_, i) => ({ name: `r${i}`, when: {}, then: { analyse: true } })),
      'at most 10 rules from the planner (11 proposed)',
    ],
    [
      'a runEndpoint action',
      [{ name: 'sibling', when: {}, then: { runEndpoint: '00000000-0000-4000-8000-000000000000' } }],
      'the planner changes only the endpoint it analyses',
    ],
    [
      'five matches conditions',
      [
        {
          name: 'patterns',
          when: { any: ['a', 'b', 'c', 'd', 'e'].map((value) => ({ path: '$.s', op: 'matches', value })) },
          then: { analyse: true },
        },
      ],
      'at most 4 matches conditions',
    ],
  ])('refuses %s and applies nothing', async (_what, rules, message) => {
    await setAiRules(true);
    const endpoint = await createTestEndpoint(bed.api, bed.account.accountId);
    bed.fake.play([proposeRules({ rules }), submitAnalysis('tried')]);
    await runAndAnalyse(bed.harness, bed.planner, endpoint);
    expect(bed.fake.requests[1]!.toolResults[0]!.content).toContain(`refused: `);
    expect(bed.fake.requests[1]!.toolResults[0]!.content).toContain(message);
    expect((await endpointRow(bed.harness, endpoint.id)).aiRules).toBeNull();
  });

  it('refuses interval rules on a cron endpoint and conditions the user could not write', async () => {
    await setAiRules(true);
    const endpoint = await createTestEndpoint(bed.api, bed.account.accountId, {
      baselineIntervalMs: undefined,
      baselineCron: '*/5 * * * *',
    });
    bed.fake.play([
      proposeRules({ rules: backlogRules.slice(0, 1) }),
      proposeRules({
        rules: [{ name: 'bad', when: { all: [{ path: 'backlog', op: 'gt' }] }, then: { analyse: true } }],
      }),
      submitAnalysis('tried'),
    ]);
    await runAndAnalyse(bed.harness, bed.planner, endpoint);
    expect(bed.fake.requests[1]!.toolResults[0]!.content).toContain(
      'cron-scheduled endpoints do not support interval rules',
    );
    const invalid = bed.fake.requests[2]!.toolResults[0]!;
    expect(invalid.is_error).toBe(true);
    expect(invalid.content).toContain('invalid input for propose_rules');
    expect(invalid.content).toContain('gt needs a value');
    expect((await endpointRow(bed.harness, endpoint.id)).aiRules).toBeNull();
  });

  it('in shadow mode records the rules as a proposal and applies nothing', async () => {
    await setAiRules(true, { aiShadowMode: true });
    const endpoint = await createTestEndpoint(bed.api, bed.account.accountId);
    bed.fake.play([proposeRules({ rules: backlogRules }), submitAnalysis('proposed')]);
    await runAndAnalyse(bed.harness, bed.planner, endpoint);
    expect(bed.fake.requests[1]!.toolResults[0]!.content).toContain('shadow mode, not applied: would apply 2 rules');
    const [session] = await sessionsOf(bed.harness, endpoint.id);
    expect(session!.shadow).toBe(true);
    expect(session!.actionsApplied).toEqual([
      expect.objectContaining({
        tool: 'propose_rules',
        applied: false,
        params: expect.objectContaining({ rules: backlogRules }),
      }),
    ]);
    const row = await endpointRow(bed.harness, endpoint.id);
    expect(row.aiRules).toBeNull();
    expect(row.aiRulesExpiresAt).toBeNull();
  });

  it('is renewed by a later analysis that does not replace it, and removed by rules: []', async () => {
    await setAiRules(true);
    const endpoint = await createTestEndpoint(bed.api, bed.account.accountId);
    bed.fake.play([proposeRules({ rules: backlogRules }), submitAnalysis('written')]);
    await runAndAnalyse(bed.harness, bed.planner, endpoint);
    const first = (await endpointRow(bed.harness, endpoint.id)).aiRulesExpiresAt!;
    // Nearly lapsed by now.
    const soon = new Date(Date.now() + 60_000);
    await bed.harness.db.prisma.endpoint.update({ where: { id: endpoint.id }, data: { aiRulesExpiresAt: soon } });

    await makeAnalysisDue(bed.harness, endpoint.id);
    bed.fake.play([submitAnalysis('still right')]);
    await runAndAnalyse(bed.harness, bed.planner, endpoint);
    const renewed = (await endpointRow(bed.harness, endpoint.id)).aiRulesExpiresAt!;
    expect(renewed.getTime()).toBeGreaterThanOrEqual(first.getTime());

    await makeAnalysisDue(bed.harness, endpoint.id);
    bed.fake.play([proposeRules({ rules: [] }), submitAnalysis('no longer needed')]);
    await runAndAnalyse(bed.harness, bed.planner, endpoint);
    expect(bed.fake.requests.at(-1)!.toolResults[0]!.content).toContain("applied: removed the planner's rules");
    const row = await endpointRow(bed.harness, endpoint.id);
    expect(row.aiRules).toBeNull();
    expect(row.aiRulesExpiresAt).toBeNull();
    expect((await bed.api.get(`/api/endpoints/${endpoint.id}`)).body.aiRules).toBeNull();
  });
});

describe('waking the planner', () => {
  it('while its rules are in force, a status change does not wake it; with AI rules off again, it does', async () => {
    await setAiRules(true);
    const endpoint = await createTestEndpoint(bed.api, bed.account.accountId);
    bed.fake.play([proposeRules({ rules: backlogRules }), submitAnalysis('written', 'high', 1440)]);
    await runAndAnalyse(bed.harness, bed.planner, endpoint);
    expect((await endpointRow(bed.harness, endpoint.id)).aiRules).not.toBeNull();

    bed.fake.play([submitAnalysis('looked')]);
    expect(await runAndAnalyse(bed.harness, bed.planner, endpoint, { status: 'failed' })).toEqual({
      kind: 'deferred',
      reason: 'not-due',
    });
    await setAiRules(false);
    expect(await runAndAnalyse(bed.harness, bed.planner, endpoint, { status: 'success' })).toMatchObject({
      kind: 'analysed',
      status: 'completed',
    });
    expect((await sessionsOf(bed.harness, endpoint.id)).map((session) => session.trigger)).toEqual([
      'first-analysis',
      'status-changed',
    ]);
  });
});
