/**
 * The planner's tools against a fake model over HTTP: proposals applied and clamped, cron
 * endpoints refusing interval hints, the sibling snapshot, pause / resume / clear, a user's pause
 * left alone, malformed tool input answered as a tool error, the step limit and shadow mode.
 */
import { plannerToolDefinitions } from '@kairos/core';
import { Queue } from 'bullmq';
import { callTools, submitAnalysis, text, toolUse } from '../../../test/fake-model.js';
import {
  createTestEndpoint,
  createTestPlanner,
  endpointRow,
  recordRun,
  runAndAnalyse,
  sessionsOf,
  usePlannerTestbed,
} from './helpers.js';

const bed = usePlannerTestbed();
beforeEach(() => {
  bed.fake.requests.length = 0;
});

const inMinutes = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();

describe('an analysis', () => {
  it('shows the model the endpoint, the latest run (body cut to 500 characters) and the tools', async () => {
    const endpoint = await createTestEndpoint(bed.api, bed.account.accountId, {
      name: 'Order backlog',
      description: 'Poll faster while the backlog says surge',
      minIntervalMs: 10_000,
    });
    const body = { status: 'surge', padding: 'x'.repeat(1000) };
    bed.fake.play([submitAnalysis('nothing to change yet', 'medium', 45)]);
    const outcome = await runAndAnalyse(bed.harness, bed.planner, endpoint, { body });
    expect(outcome).toMatchObject({ kind: 'analysed', status: 'completed' });

    const [request] = bed.fake.requests;
    expect(request!.headers.authorization ?? request!.headers['x-api-key']).toBeDefined();
    expect(request!.body.model).toBe('claude-test');
    expect(request!.body.tools).toEqual(plannerToolDefinitions());
    const serialised = JSON.stringify(body);
    expect(request!.context).toContain('Poll faster while the backlog says surge');
    expect(request!.context).toContain('"minIntervalMs":10000');
    const shown = JSON.stringify(serialised.slice(0, 500)).slice(1, -1);
    expect(request!.context).toContain(`"body":"${shown}"`);
    expect(request!.context).toContain('"bodyTruncated":true');
    expect(request!.context).not.toContain(JSON.stringify(serialised.slice(0, 501)).slice(1, -1));

    const [session] = await sessionsOf(bed.harness, endpoint.id);
    expect(session).toMatchObject({
      status: 'completed',
      trigger: 'first-analysis',
      reasoning: 'nothing to change yet',
      confidence: 'medium',
      toolsCalled: [],
      tokenUsage: 150,
      inputTokens: 120,
      outputTokens: 30,
      endpointFailureCount: 0,
      model: 'claude-test',
    });
    const expectedNext = session!.createdAt.getTime() + 45 * 60_000;
    expect(session!.nextAnalysisAt!.getTime()).toBe(expectedNext);
    expect((await endpointRow(bed.harness, endpoint.id)).nextAnalysisAt!.getTime()).toBe(expectedNext);
  });

  it('still analyses an empty body from a failed call, from the status code and metadata', async () => {
    const endpoint = await createTestEndpoint(bed.api, bed.account.accountId);
    bed.fake.play([submitAnalysis('upstream returns 502 with no body')]);
    await runAndAnalyse(bed.harness, bed.planner, endpoint, { status: 'failed', statusCode: 502, body: null });
    const context = bed.fake.requests[0]!.context;
    expect(context).toContain('"statusCode":502');
    expect(context).toContain('"responseFormat":"empty"');
    expect(context).toContain('"body":""');
    expect((await sessionsOf(bed.harness, endpoint.id))[0]).toMatchObject({
      status: 'completed',
      endpointFailureCount: 1,
    });
  });
});

describe('propose_interval', () => {
  it('applies the hint clamped to minIntervalMs, tells the model, reschedules and audits', async () => {
    const endpoint = await createTestEndpoint(bed.api, bed.account.accountId, {
      baselineIntervalMs: 60_000,
      minIntervalMs: 10_000,
      maxIntervalMs: 120_000,
    });
    bed.fake.play([
      callTools(
        toolUse('get_latest_response'),
        toolUse('propose_interval', { intervalMs: 1000, ttlMinutes: 30, reason: 'surge' }),
      ),
      submitAnalysis('surge: tightened'),
    ]);
    const changes = new Queue('schedule-changes', { connection: bed.harness.redis, prefix: bed.harness.queuePrefix });
    const queuedBefore = await changes.count();
    await runAndAnalyse(bed.harness, bed.planner, endpoint, { body: { status: 'surge' } });

    const results = bed.fake.requests[1]!.toolResults;
    expect(results.map((result) => result.tool)).toEqual(['get_latest_response', 'propose_interval']);
    expect(JSON.parse(results[0]!.content).latestRun).toMatchObject({ statusCode: 200, body: '{"status":"surge"}' });
    expect(results[1]!.content).toMatch(
      /^applied: interval 10000 ms until .*requested 1000 ms, clamped to minIntervalMs 10000 ms/,
    );

    const row = await endpointRow(bed.harness, endpoint.id);
    expect(row).toMatchObject({ hintIntervalMs: 10_000, hintIntervalOrigin: 'planner', hintIntervalReason: 'surge' });
    expect(row.hintIntervalExpiresAt!.getTime() - row.hintIntervalSetAt!.getTime()).toBe(30 * 60_000);
    expect(row.scheduleDirtyAt).not.toBeNull();
    expect(await changes.count()).toBe(queuedBefore + 1);
    await changes.close();

    const [session] = await sessionsOf(bed.harness, endpoint.id);
    expect(session!.toolsCalled).toEqual(['get_latest_response', 'propose_interval']);
    expect(session!.tokenUsage).toBe(300);
    expect(session!.actionsApplied).toEqual([
      {
        tool: 'propose_interval',
        params: { intervalMs: 1000, ttlMinutes: 30, reason: 'surge' },
        result: results[1]!.content,
        applied: true,
      },
    ]);
    const audit = await bed.harness.db.prisma.auditEvent.findMany({
      where: { targetId: endpoint.id, actorType: 'planner' },
    });
    expect(audit).toEqual([
      expect.objectContaining({
        actorType: 'planner',
        action: 'endpoint.interval_hint_set',
        accountId: bed.account.accountId,
        details: expect.objectContaining({ sessionId: session!.id, tool: 'propose_interval' }),
      }),
    ]);
    // The API shows the hint like one a user set, with origin planner.
    const shown = await bed.api.get(`/api/endpoints/${endpoint.id}`);
    expect(shown.body.hints.interval).toMatchObject({ intervalMs: 10_000, origin: 'planner', reason: 'surge' });
  });

  it("raises a proposal to the account tier's minimum interval", async () => {
    const free = await bed.harness.createAccount({ tier: 'free' });
    const endpoint = await createTestEndpoint(bed.harness.client(free.apiKey), free.accountId);
    bed.fake.play([
      callTools(toolUse('propose_interval', { intervalMs: 20_000, ttlMinutes: 30, reason: 'surge' })),
      submitAnalysis('tightened as far as the tier allows'),
    ]);
    await runAndAnalyse(bed.harness, bed.planner, endpoint);
    expect(bed.fake.requests[1]!.toolResults[0]!.content).toContain(
      "requested 20000 ms, raised to the account's minimum interval 60000 ms",
    );
    expect((await endpointRow(bed.harness, endpoint.id)).hintIntervalMs).toBe(60_000);
  });

  it('clamps to maxIntervalMs', async () => {
    const endpoint = await createTestEndpoint(bed.api, bed.account.accountId, { maxIntervalMs: 120_000 });
    bed.fake.play([
      callTools(toolUse('propose_interval', { intervalMs: 600_000, ttlMinutes: 60, reason: 'quiet' })),
      submitAnalysis('quiet: relaxed'),
    ]);
    await runAndAnalyse(bed.harness, bed.planner, endpoint);
    expect(bed.fake.requests[1]!.toolResults[0]!.content).toContain('clamped to maxIntervalMs 120000 ms');
    expect((await endpointRow(bed.harness, endpoint.id)).hintIntervalMs).toBe(120_000);
  });

  it('is refused on a cron-scheduled endpoint, and the model is told why', async () => {
    const endpoint = await createTestEndpoint(bed.api, bed.account.accountId, {
      baselineIntervalMs: undefined,
      baselineCron: '*/5 * * * *',
    });
    bed.fake.play([
      callTools(toolUse('propose_interval', { intervalMs: 30_000, ttlMinutes: 30, reason: 'surge' })),
      submitAnalysis('cannot tighten a cron endpoint', 'low'),
    ]);
    await runAndAnalyse(bed.harness, bed.planner, endpoint, { source: 'baseline-cron' });
    const result = bed.fake.requests[1]!.toolResults[0]!;
    expect(result.content).toMatch(/^refused: cron-scheduled endpoints do not support interval hints/);
    expect(result.is_error).toBeUndefined();
    expect((await endpointRow(bed.harness, endpoint.id)).hintIntervalMs).toBeNull();
    const [session] = await sessionsOf(bed.harness, endpoint.id);
    expect(session!.actionsApplied).toEqual([expect.objectContaining({ tool: 'propose_interval', applied: false })]);
    expect(
      await bed.harness.db.prisma.auditEvent.count({ where: { targetId: endpoint.id, actorType: 'planner' } }),
    ).toBe(0);
  });
});

describe('malformed tool input', () => {
  it('is answered as a tool error the model can correct', async () => {
    const endpoint = await createTestEndpoint(bed.api, bed.account.accountId);
    bed.fake.play([
      callTools(toolUse('propose_interval', { intervalMs: 'fast', ttlMinutes: 0, extra: 1 })),
      callTools(toolUse('no_such_tool', {})),
      callTools(toolUse('propose_interval', { intervalMs: 20_000, ttlMinutes: 15, reason: 'fixed input' })),
      submitAnalysis('second try worked'),
    ]);
    await runAndAnalyse(bed.harness, bed.planner, endpoint);
    const first = bed.fake.requests[1]!.toolResults[0]!;
    expect(first.is_error).toBe(true);
    expect(first.content).toMatch(/^invalid input for propose_interval: /);
    expect(first.content).toContain('intervalMs');
    expect(first.content).toContain('ttlMinutes');
    expect(first.content).toContain('reason');
    expect(bed.fake.requests[2]!.toolResults[0]).toMatchObject({
      is_error: true,
      content: 'unknown tool no_such_tool',
    });
    expect(bed.fake.requests[3]!.toolResults[0]!.content).toMatch(/^applied: interval 20000 ms/);
    const [session] = await sessionsOf(bed.harness, endpoint.id);
    expect(session!.status).toBe('completed');
    expect(session!.actionsApplied).toEqual([
      expect.objectContaining({ applied: false, result: expect.stringMatching(/^refused: invalid input/) }),
      expect.objectContaining({ applied: true }),
    ]);
  });

  it('of the final report is an error too, and the analysis goes on', async () => {
    const endpoint = await createTestEndpoint(bed.api, bed.account.accountId);
    bed.fake.play([
      callTools(toolUse('submit_analysis', { reasoning: '', confidence: 'certain', nextAnalysisInMinutes: 5000 })),
      submitAnalysis('fixed report', 'low', 10),
    ]);
    await runAndAnalyse(bed.harness, bed.planner, endpoint);
    const result = bed.fake.requests[1]!.toolResults[0]!;
    expect(result).toMatchObject({ is_error: true });
    expect(result.content).toContain('confidence');
    expect(result.content).toContain('nextAnalysisInMinutes');
    expect((await sessionsOf(bed.harness, endpoint.id))[0]).toMatchObject({
      reasoning: 'fixed report',
      confidence: 'low',
    });
  });
});

describe('get_response_history', () => {
  it('returns the scheduled runs of the last 24 hours, newest first, up to limit (no test runs)', async () => {
    const endpoint = await createTestEndpoint(bed.api, bed.account.accountId);
    const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000);
    await recordRun(bed.harness, endpoint, { at: hoursAgo(30), body: { run: 'the day before' } });
    await recordRun(bed.harness, endpoint, { at: hoursAgo(3), body: { run: 'three hours ago' } });
    await recordRun(bed.harness, endpoint, { at: hoursAgo(2), body: { run: 'a test run' }, source: 'test' });
    await recordRun(bed.harness, endpoint, { at: hoursAgo(1), status: 'failed', body: { run: 'an hour ago' } });
    bed.fake.play([
      callTools(toolUse('get_response_history', { limit: 50 }), toolUse('get_response_history', { limit: 2 })),
      submitAnalysis('one failure an hour ago, fine since'),
    ]);
    await runAndAnalyse(bed.harness, bed.planner, endpoint, { body: { run: 'now' } });

    const [all, two] = bed.fake.requests[1]!.toolResults.map((result) => JSON.parse(result.content));
    const named = (history: { runs: { body: string }[] }) => history.runs.map((run) => JSON.parse(run.body).run);
    expect(named(all)).toEqual(['now', 'an hour ago', 'three hours ago']);
    expect(all.runs.map((run: { status: string }) => run.status)).toEqual(['success', 'failed', 'success']);
    expect(named(two)).toEqual(['now', 'an hour ago']);
    expect(all.sinceHours).toBe(24);
  });
});

describe('get_sibling_latest_responses', () => {
  it('returns a read-only snapshot of the other endpoints of the job', async () => {
    const endpoint = await createTestEndpoint(bed.api, bed.account.accountId, { name: 'Consumer' });
    const producer = await createTestEndpoint(bed.api, bed.account.accountId, { name: 'Producer' }, endpoint.jobId);
    const idle = await createTestEndpoint(bed.api, bed.account.accountId, { name: 'Idle sibling' }, endpoint.jobId);
    const elsewhere = await createTestEndpoint(bed.api, bed.account.accountId, { name: 'Other job' });
    await recordRun(bed.harness, producer, { body: { batchReady: true } });
    await recordRun(bed.harness, elsewhere, { body: { secret: 'other job' } });
    const before = await endpointRow(bed.harness, producer.id);
    bed.fake.play([callTools(toolUse('get_sibling_latest_responses')), submitAnalysis('producer has a batch ready')]);
    await runAndAnalyse(bed.harness, bed.planner, endpoint);

    const snapshot = JSON.parse(bed.fake.requests[1]!.toolResults[0]!.content);
    expect(snapshot.note).toMatch(/read-only snapshot/);
    expect(snapshot.siblings.map((sibling: { name: string }) => sibling.name).sort()).toEqual([
      'Idle sibling',
      'Producer',
    ]);
    const byName = Object.fromEntries(snapshot.siblings.map((s: { name: string }) => [s.name, s]));
    expect(byName.Producer.latestRun).toMatchObject({ status: 'success', body: '{"batchReady":true}' });
    expect(byName['Idle sibling']).toMatchObject({ endpointId: idle.id, latestRun: null });
    expect(bed.fake.requests[1]!.toolResults[0]!.content).not.toContain('other job');
    expect(await endpointRow(bed.harness, producer.id)).toEqual(before);
  });
});

describe('pause_until and clear_hints', () => {
  it('pauses, resumes its own pause and clears its hints', async () => {
    const endpoint = await createTestEndpoint(bed.api, bed.account.accountId);
    const until = inMinutes(120);
    bed.fake.play([
      callTools(toolUse('propose_next_time', { nextRunAt: inMinutes(5), reason: 'batch lands at :05' })),
      callTools(toolUse('pause_until', { pausedUntil: until, reason: 'market closed' })),
      submitAnalysis('closed for two hours'),
    ]);
    await runAndAnalyse(bed.harness, bed.planner, endpoint);
    expect(bed.fake.requests[1]!.toolResults[0]!.content).toMatch(/^applied: one run at /);
    expect(bed.fake.requests[2]!.toolResults[0]!.content).toBe(`applied: paused until ${until}`);
    expect(await endpointRow(bed.harness, endpoint.id)).toMatchObject({
      pauseOrigin: 'planner',
      pauseReason: 'market closed',
      hintOneShotOrigin: 'planner',
    });

    bed.fake.play([
      callTools(
        toolUse('pause_until', { pausedUntil: null, reason: 'market reopened' }),
        toolUse('clear_hints', { reason: 'back to normal' }),
      ),
      submitAnalysis('reopened'),
    ]);
    await bed.harness.db.prisma.endpoint.update({ where: { id: endpoint.id }, data: { nextAnalysisAt: new Date(0) } });
    await runAndAnalyse(bed.harness, bed.planner, endpoint);
    const [resumed, cleared] = bed.fake.requests[bed.fake.requests.length - 1]!.toolResults;
    expect(resumed!.content).toMatch(/^applied: resumed/);
    expect(cleared!.content).toBe('applied: cleared the one-shot hint; the baseline schedule applies');
    expect(await endpointRow(bed.harness, endpoint.id)).toMatchObject({
      pausedUntil: null,
      pauseOrigin: null,
      hintOneShotAt: null,
      hintIntervalMs: null,
    });
    const actions = await bed.harness.db.prisma.auditEvent.findMany({
      where: { targetId: endpoint.id, actorType: 'planner' },
      orderBy: { createdAt: 'asc' },
    });
    expect(actions.map((event) => event.action).sort()).toEqual(
      ['endpoint.one_shot_hint_set', 'endpoint.paused', 'endpoint.resumed', 'endpoint.hints_cleared'].sort(),
    );
  });

  it("never lifts or changes a user's pause, nor clears a user's hint", async () => {
    const endpoint = await createTestEndpoint(bed.api, bed.account.accountId);
    const userUntil = inMinutes(90);
    expect(
      (await bed.api.post(`/api/endpoints/${endpoint.id}/pause`, { pausedUntil: userUntil, reason: 'deploy' })).status,
    ).toBe(200);
    expect(
      (
        await bed.api.post(`/api/endpoints/${endpoint.id}/hints/interval`, {
          intervalMs: 5000,
          ttlMinutes: 30,
          reason: 'me',
        })
      ).status,
    ).toBe(200);
    bed.fake.play([
      callTools(
        toolUse('pause_until', { pausedUntil: null, reason: 'looks healthy' }),
        toolUse('pause_until', { pausedUntil: inMinutes(10), reason: 'shorter' }),
        toolUse('clear_hints', { reason: 'tidy up' }),
        toolUse('propose_interval', { intervalMs: 50_000, ttlMinutes: 30, reason: 'relax' }),
      ),
      submitAnalysis('user is in control'),
    ]);
    await runAndAnalyse(bed.harness, bed.planner, endpoint);
    const results = bed.fake.requests[1]!.toolResults.map((result) => result.content);
    expect(results[0]).toMatch(
      /^refused: the endpoint was paused by a user until .*never lifts or changes a user's pause/,
    );
    expect(results[1]).toMatch(/^refused: the endpoint was paused by a user/);
    expect(results[2]).toMatch(/^refused: the interval hint was set by a user/);
    expect(results[3]).toMatch(/^refused: a user-set interval hint is active/);
    const row = await endpointRow(bed.harness, endpoint.id);
    expect(row.pausedUntil!.toISOString()).toBe(userUntil);
    expect(row).toMatchObject({
      pauseOrigin: 'user',
      pauseReason: 'deploy',
      hintIntervalMs: 5000,
      hintIntervalOrigin: 'user',
    });
  });
});

describe('the step limit', () => {
  it('ends an analysis that never reports, as a failed session', async () => {
    const limited = createTestPlanner(bed.harness, bed.fake, { maxSteps: 3 });
    const endpoint = await createTestEndpoint(bed.api, bed.account.accountId);
    bed.fake.script(() => callTools(toolUse('get_latest_response')));
    const outcome = await runAndAnalyse(bed.harness, limited, endpoint);
    await limited.close();
    expect(outcome).toMatchObject({ kind: 'analysed', status: 'failed' });
    expect(bed.fake.requests).toHaveLength(3);
    const [session] = await sessionsOf(bed.harness, endpoint.id);
    expect(session).toMatchObject({
      status: 'failed',
      errorMessage: 'step limit reached: 3 model calls without submit_analysis',
      tokenUsage: 450,
      toolsCalled: ['get_latest_response', 'get_latest_response', 'get_latest_response'],
    });
  });

  it('accepts an answer without tools as the reasoning', async () => {
    const endpoint = await createTestEndpoint(bed.api, bed.account.accountId);
    bed.fake.play([{ content: [text('All normal; no change.')] }]);
    await runAndAnalyse(bed.harness, bed.planner, endpoint);
    const [session] = await sessionsOf(bed.harness, endpoint.id);
    expect(session).toMatchObject({ status: 'completed', reasoning: 'All normal; no change.', confidence: null });
    expect(session!.nextAnalysisAt!.getTime() - session!.createdAt.getTime()).toBe(60 * 60_000);
  });
});

describe('shadow mode', () => {
  it('records proposals in the session, marked, without applying or auditing them', async () => {
    const shadowAccount = await bed.harness.createAccount({ tier: 'enterprise' });
    const shadowApi = bed.harness.client(shadowAccount.apiKey);
    expect((await shadowApi.patch('/api/account/settings', { aiShadowMode: true })).body.settings).toEqual({
      aiSchedulingEnabled: true,
      aiShadowMode: true,
      aiRules: false,
      hostLimits: [],
      signingKeyGraceMinutes: 0,
      notifyFailureThreshold: 3,
      autoPauseAfterFailures: null,
    });
    const endpoint = await createTestEndpoint(shadowApi, shadowAccount.accountId, { minIntervalMs: 5000 });
    bed.fake.play([
      callTools(
        toolUse('propose_interval', { intervalMs: 2000, ttlMinutes: 30, reason: 'surge' }),
        toolUse('pause_until', { pausedUntil: inMinutes(30), reason: 'maintenance' }),
      ),
      submitAnalysis('would tighten'),
    ]);
    await runAndAnalyse(bed.harness, bed.planner, endpoint);
    const results = bed.fake.requests[1]!.toolResults.map((result) => result.content);
    expect(results[0]).toMatch(
      /^shadow mode, not applied: would apply interval 5000 ms until .*clamped to minIntervalMs/,
    );
    expect(results[1]).toMatch(/^shadow mode, not applied: would apply paused until /);
    expect(await endpointRow(bed.harness, endpoint.id)).toMatchObject({ hintIntervalMs: null, pausedUntil: null });
    const [session] = await sessionsOf(bed.harness, endpoint.id);
    expect(session!.shadow).toBe(true);
    expect(session!.actionsApplied).toEqual([
      expect.objectContaining({ tool: 'propose_interval', applied: false }),
      expect.objectContaining({ tool: 'pause_until', applied: false }),
    ]);
    expect(
      await bed.harness.db.prisma.auditEvent.count({ where: { targetId: endpoint.id, actorType: 'planner' } }),
    ).toBe(0);
    const listed = await shadowApi.get(`/api/endpoints/${endpoint.id}/analysis-sessions`);
    expect(listed.body.sessions[0]).toMatchObject({ shadow: true, toolsCalled: ['propose_interval', 'pause_until'] });
  });
});
