/**
 * Degraded mode: no API key, model errors, overload, timeouts, an unreachable model,
 * an exhausted budget and AI scheduling turned off. In every case nothing is written to the
 * schedule (the scheduler keeps the baseline), failures are recorded with their error and retried
 * with a growing backoff, never in a tight loop.
 */
import { createServer } from 'node:net';
import { updateAccount } from '@kairos/db/system';
import { Queue } from 'bullmq';
import { waitFor } from '../../../test/engine.js';
import {
  callTools,
  overloaded,
  serverError,
  submitAnalysis,
  toolUse,
  type FakeModel,
} from '../../../test/fake-model.js';
import type { PlannerOptions } from '../src/planner.js';
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
  bed.fake.play([submitAnalysis('fine')]);
});

const plannerWith = (overrides: Partial<PlannerOptions>, model: FakeModel | null = bed.fake) =>
  bed.newPlanner(overrides, model);

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const secondsBetween = (later: Date | null, earlier: Date) => (later!.getTime() - earlier.getTime()) / 1000;

describe('without an API key', () => {
  it('drains its queue, calls nothing and records nothing; it says so once', async () => {
    const warnings: string[] = [];
    const idle = plannerWith({}, null);
    const logger = (idle as unknown as { options: { logger: { warn: (message: string) => unknown } } }).options.logger;
    const warn = logger.warn.bind(logger);
    logger.warn = (message: string) => {
      warnings.push(message);
      return warn(message);
    };
    expect(idle.isEnabled).toBe(false);
    await idle.start();
    const endpoint = await createTestEndpoint(bed.api, bed.account.accountId);
    const queue = new Queue('run-completed-planner', {
      connection: bed.harness.redis,
      prefix: bed.harness.queuePrefix,
    });
    for (let index = 0; index < 5; index += 1) await queue.add('completed', await recordRun(bed.harness, endpoint));
    await waitFor(async () => ((await queue.getJobCounts('wait', 'active')).wait ?? 0) === 0, 10_000, 'queue drained');
    await waitFor(async () => ((await queue.getJobCounts('completed')).completed ?? 0) === 5, 10_000, 'events handled');
    await queue.close();
    expect(await idle.handleRun(await recordRun(bed.harness, endpoint))).toEqual({
      kind: 'ignored',
      reason: 'no-api-key',
    });
    expect(await sessionsOf(bed.harness, endpoint.id)).toEqual([]);
    expect(bed.fake.requests).toHaveLength(0);
    expect(warnings.filter((message) => message.includes('ANTHROPIC_API_KEY'))).toHaveLength(1);
    await idle.close();
  });
});

describe('model failures', () => {
  it('records a 5xx as a failed session and retries with a doubling backoff, not per run', async () => {
    const endpoint = await createTestEndpoint(bed.api, bed.account.accountId, { minIntervalMs: 5000 });
    bed.fake.script(() => serverError());
    expect(await runAndAnalyse(bed.harness, bed.planner, endpoint)).toMatchObject({
      kind: 'analysed',
      status: 'failed',
    });
    expect(bed.fake.requests).toHaveLength(2); // the SDK's one retry (maxRetries 1)
    const [first] = await sessionsOf(bed.harness, endpoint.id);
    expect(first).toMatchObject({ status: 'failed', reasoning: null, tokenUsage: 0 });
    expect(first!.errorMessage).toMatch(/^model API error \(HTTP 500/);
    expect(secondsBetween(first!.nextAnalysisAt, first!.createdAt)).toBe(60);

    // Runs (even a status change) during the backoff call nothing.
    for (const status of ['failed', 'success'] as const) {
      expect(await runAndAnalyse(bed.harness, bed.planner, endpoint, { status })).toEqual({
        kind: 'deferred',
        reason: 'backing-off',
      });
    }
    expect(bed.fake.requests).toHaveLength(2);
    expect((await endpointRow(bed.harness, endpoint.id)).hintIntervalMs).toBeNull();

    await makeAnalysisDue(bed.harness, endpoint.id);
    await runAndAnalyse(bed.harness, bed.planner, endpoint);
    const second = (await sessionsOf(bed.harness, endpoint.id))[1]!;
    expect(second.status).toBe('failed');
    expect(secondsBetween(second.nextAnalysisAt, second.createdAt)).toBe(120);

    bed.fake.play([submitAnalysis('model is back', 'high', 20)]);
    await makeAnalysisDue(bed.harness, endpoint.id);
    expect(await runAndAnalyse(bed.harness, bed.planner, endpoint)).toMatchObject({ status: 'completed' });
    const third = (await sessionsOf(bed.harness, endpoint.id))[2]!;
    expect(third.trigger).toBe('scheduled');
    expect(secondsBetween(third.nextAnalysisAt, third.createdAt)).toBe(20 * 60);
  });

  it('records an overloaded model (529, retried by the SDK) as failed', async () => {
    const endpoint = await createTestEndpoint(bed.api, bed.account.accountId);
    bed.fake.script(() => overloaded());
    await runAndAnalyse(bed.harness, bed.planner, endpoint);
    expect(bed.fake.requests).toHaveLength(2);
    const [session] = await sessionsOf(bed.harness, endpoint.id);
    expect(session!.errorMessage).toMatch(/^model overloaded \(HTTP 529/);
  });

  it('gives up on a slow model at PLANNER_TIMEOUT_MS and applies nothing of the analysis', async () => {
    const impatient = plannerWith({ timeoutMs: 1000 });
    const endpoint = await createTestEndpoint(bed.api, bed.account.accountId);
    bed.fake.script((request) =>
      request.step === 0
        ? callTools(toolUse('propose_interval', { intervalMs: 20_000, ttlMinutes: 15, reason: 'surge' }))
        : { ...submitAnalysis('too late'), delayMs: 5000 },
    );
    const started = Date.now();
    await runAndAnalyse(bed.harness, impatient, endpoint);
    expect(Date.now() - started).toBeLessThan(4000);
    const [session] = await sessionsOf(bed.harness, endpoint.id);
    expect(session).toMatchObject({
      status: 'failed',
      errorMessage: 'analysis timed out after 1000 ms',
      toolsCalled: ['propose_interval'],
      tokenUsage: 150,
    });
    expect(session!.durationMs).toBeGreaterThanOrEqual(900);
    expect(session!.durationMs).toBeLessThan(4000);
    // The hint proposed before the timeout was staged, never applied: an analysis that does not
    // finish changes nothing (its retry starts from the same schedule).
    expect((await endpointRow(bed.harness, endpoint.id)).hintIntervalMs).toBeNull();
    expect(session!.actionsApplied).toEqual([
      expect.objectContaining({
        applied: false,
        result: expect.stringMatching(/^not applied: the analysis did not finish; would apply interval 20000 ms/),
      }),
    ]);
  });

  it('records an unreachable model as failed', async () => {
    const port = await closedPort();
    const cut = plannerWith({}, { apiKey: bed.fake.apiKey, baseURL: `http://127.0.0.1:${port}` } as FakeModel);
    const endpoint = await createTestEndpoint(bed.api, bed.account.accountId);
    await runAndAnalyse(bed.harness, cut, endpoint);
    const [session] = await sessionsOf(bed.harness, endpoint.id);
    expect(session).toMatchObject({ status: 'failed', tokenUsage: 0 });
    expect(session!.errorMessage).toMatch(/^model unreachable: /);
  });

  it('records a rejected API key as failed', async () => {
    const wrongKey = plannerWith({}, { apiKey: 'sk-wrong', baseURL: bed.fake.baseURL } as FakeModel);
    const endpoint = await createTestEndpoint(bed.api, bed.account.accountId);
    await runAndAnalyse(bed.harness, wrongKey, endpoint);
    expect((await sessionsOf(bed.harness, endpoint.id))[0]!.errorMessage).toMatch(/^model API key rejected \(HTTP 401/);
  });
});

describe('the token budget', () => {
  const setBudget = (accountId: string, data: { aiTokensUsed?: number; aiPeriodStartedAt?: Date; limit: number }) =>
    bed.harness.db.prisma.account.update({
      where: { id: accountId },
      data: {
        quotaOverrides: { aiTokensPerMonth: data.limit },
        ...(data.aiTokensUsed === undefined ? {} : { aiTokensUsed: data.aiTokensUsed }),
        ...(data.aiPeriodStartedAt ? { aiPeriodStartedAt: data.aiPeriodStartedAt } : {}),
      },
    });

  it('when exhausted: no model call, one skipped session until the period ends, and the API says so', async () => {
    const tenant = await bed.harness.createAccount({ tier: 'enterprise' });
    const tenantApi = bed.harness.client(tenant.apiKey);
    await setBudget(tenant.accountId, { aiTokensUsed: 1000, limit: 1000 });
    const endpoint = await createTestEndpoint(tenantApi, tenant.accountId);
    expect(await runAndAnalyse(bed.harness, bed.planner, endpoint)).toMatchObject({
      kind: 'analysed',
      status: 'skipped',
    });
    expect(bed.fake.requests).toHaveLength(0);
    const [session] = await sessionsOf(bed.harness, endpoint.id);
    const account = (await tenantApi.get('/api/account')).body;
    expect(account.aiBudget).toMatchObject({ tokensUsed: 1000, tokensLimit: 1000, exhausted: true });
    expect(session!.errorMessage).toBe(
      `AI token budget exhausted: 1000 of 1000 tokens used this month; analyses resume at ${account.aiBudget.periodEndsAt}`,
    );
    expect(session!.nextAnalysisAt!.toISOString()).toBe(account.aiBudget.periodEndsAt);

    expect(await runAndAnalyse(bed.harness, bed.planner, endpoint, { status: 'failed' })).toEqual({
      kind: 'deferred',
      reason: 'backing-off',
    });
    expect(await sessionsOf(bed.harness, endpoint.id)).toHaveLength(1);

    // Raising the budget (operator override) resumes analyses at the next run.
    await setBudget(tenant.accountId, { limit: 100_000 });
    expect(await runAndAnalyse(bed.harness, bed.planner, endpoint)).toMatchObject({ status: 'completed' });
    expect(bed.fake.requests).toHaveLength(1);
    expect((await tenantApi.get('/api/account')).body.aiBudget).toMatchObject({ tokensUsed: 1150, exhausted: false });
  });

  it('stops a conversation that uses up the rest of the budget', async () => {
    const tenant = await bed.harness.createAccount({ tier: 'enterprise' });
    await setBudget(tenant.accountId, { aiTokensUsed: 0, limit: 200 });
    const endpoint = await createTestEndpoint(bed.harness.client(tenant.apiKey), tenant.accountId);
    bed.fake.script(() => callTools(toolUse('get_latest_response')));
    await runAndAnalyse(bed.harness, bed.planner, endpoint);
    expect(bed.fake.requests).toHaveLength(2);
    const [session] = await sessionsOf(bed.harness, endpoint.id);
    expect(session).toMatchObject({ status: 'failed', errorMessage: 'AI token budget exhausted during the analysis' });
    expect(
      (await bed.harness.db.prisma.account.findUniqueOrThrow({ where: { id: tenant.accountId } })).aiTokensUsed,
    ).toBe(300);
  });

  it('resets with the calendar month', async () => {
    const tenant = await bed.harness.createAccount({ tier: 'enterprise' });
    await setBudget(tenant.accountId, {
      aiTokensUsed: 999_999,
      aiPeriodStartedAt: new Date(Date.UTC(2020, 0, 1)),
      limit: 1000,
    });
    const endpoint = await createTestEndpoint(bed.harness.client(tenant.apiKey), tenant.accountId);
    expect(await runAndAnalyse(bed.harness, bed.planner, endpoint)).toMatchObject({ status: 'completed' });
    const stored = await bed.harness.db.prisma.account.findUniqueOrThrow({ where: { id: tenant.accountId } });
    const now = new Date();
    expect(stored.aiTokensUsed).toBe(150);
    expect(stored.aiPeriodStartedAt.toISOString()).toBe(
      new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString(),
    );
  });
});

describe('AI scheduling disabled', () => {
  it('analyses nothing and leaves existing hints to their TTL', async () => {
    const tenant = await bed.harness.createAccount({ tier: 'enterprise' });
    const tenantApi = bed.harness.client(tenant.apiKey);
    const endpoint = await createTestEndpoint(tenantApi, tenant.accountId);
    bed.fake.play([
      callTools(toolUse('propose_interval', { intervalMs: 15_000, ttlMinutes: 20, reason: 'surge' })),
      submitAnalysis('tightened'),
    ]);
    await runAndAnalyse(bed.harness, bed.planner, endpoint);
    const disabled = await tenantApi.patch('/api/account/settings', { aiSchedulingEnabled: false });
    expect(disabled.body.settings).toEqual({
      aiSchedulingEnabled: false,
      aiShadowMode: false,
      aiRules: false,
      hostLimits: [],
      signingKeyGraceMinutes: 0,
      notifyFailureThreshold: 3,
      autoPauseAfterFailures: null,
    });
    bed.fake.requests.length = 0;
    await makeAnalysisDue(bed.harness, endpoint.id);
    expect(await runAndAnalyse(bed.harness, bed.planner, endpoint, { status: 'failed' })).toEqual({
      kind: 'ignored',
      reason: 'ai-disabled',
    });
    expect(bed.fake.requests).toHaveLength(0);
    expect(await sessionsOf(bed.harness, endpoint.id)).toHaveLength(1);
    expect((await endpointRow(bed.harness, endpoint.id)).hintIntervalMs).toBe(15_000);
  });
});

describe('account disabled by an operator', () => {
  it('analyses nothing while disabled (no model call, no session); enabled again, analyses', async () => {
    const tenant = await bed.harness.createAccount({ tier: 'enterprise' });
    const endpoint = await createTestEndpoint(bed.harness.client(tenant.apiKey), tenant.accountId);
    // The change `kairos accounts disable` and PATCH /api/admin/accounts make.
    await updateAccount(bed.harness.db, tenant.accountId, { disabled: true }, new Date());
    bed.fake.requests.length = 0;
    bed.fake.play([submitAnalysis('looked')]);
    expect(await runAndAnalyse(bed.harness, bed.planner, endpoint, { status: 'failed' })).toEqual({
      kind: 'ignored',
      reason: 'account-disabled',
    });
    expect(bed.fake.requests).toHaveLength(0);
    expect(await sessionsOf(bed.harness, endpoint.id)).toHaveLength(0);

    await updateAccount(bed.harness.db, tenant.accountId, { disabled: false }, new Date());
    expect(await runAndAnalyse(bed.harness, bed.planner, endpoint)).toMatchObject({ kind: 'analysed' });
    expect(await sessionsOf(bed.harness, endpoint.id)).toHaveLength(1);
  });
});
