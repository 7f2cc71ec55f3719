/**
 * Response rules through the API: create and PATCH accept successWhen and rules and answer
 * 400 VALIDATION_ERROR naming the field for each refusal; the backtest replays recorded runs
 * without changing anything. The executor's side: services/executor/test/response-rules.test.ts.
 */
import { newId } from '@kairos/core';
import { createApiHarness, type ApiClient, type ApiHarness, type ApiResponse } from '../../../test/api.js';

let harness: ApiHarness;
let api: ApiClient;
let accountId: string;

beforeAll(async () => {
  // The real limits, with a 60 s minimum interval (an override; enterprise's rate limit covers the requests).
  harness = await createApiHarness({ limits: 'tier' });
  const account = await harness.createAccount({ tier: 'enterprise' });
  accountId = account.accountId;
  await harness.db.prisma.account.update({
    where: { id: accountId },
    data: { quotaOverrides: { minIntervalMs: 60_000 } },
  });
  api = harness.client(account.apiKey);
});
afterAll(() => harness.close());

const rule = (fields: Record<string, unknown> = {}) => ({
  name: 'backlog high',
  when: { all: [{ path: '$.backlog', op: 'gt', value: 100 }] },
  then: { intervalMs: 60_000 },
  ...fields,
});

async function createJob(name = 'rules'): Promise<string> {
  return (await api.post('/api/jobs', { name })).body.id as string;
}

function post(jobId: string, fields: Record<string, unknown>) {
  return api.post(`/api/jobs/${jobId}/endpoints`, {
    name: 'e',
    url: 'https://example.com/backlog',
    method: 'GET',
    baselineIntervalMs: 300_000,
    ...fields,
  });
}

function expectRefusal(response: ApiResponse, field: string, message: RegExp) {
  expect(response.status).toBe(400);
  expect(response.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field } });
  expect(response.body.error.message).toMatch(message);
}

describe('create and PATCH', () => {
  it('store both fields and show them, with no rule in force yet', async () => {
    const successWhen = { status: ['2xx', 304], all: [{ path: '$.ok', op: 'eq', value: true }] };
    const created = await post(await createJob(), { successWhen, rules: [rule()] });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ successWhen, rules: [rule()], ruleState: null });
    const plain = await post(await createJob(), {});
    expect(plain.body).toMatchObject({ successWhen: null, rules: null, ruleState: null });
  });

  it('name the field of a bad path, an unknown operator and a bad pattern', async () => {
    const jobId = await createJob();
    const rules = [
      rule({ name: 'a' }),
      rule({ name: 'b' }),
      rule({ name: 'c', when: { all: [{ path: 'backlog', op: 'gt', value: 1 }] } }),
    ];
    expectRefusal(
      await post(jobId, { rules }),
      'rules[2].when.all[0].path',
      /^rules\[2\]\.when\.all\[0\]\.path: must start with \$/,
    );
    expectRefusal(
      await post(jobId, { rules: [rule({ when: { any: [{ path: '$.a', op: 'above', value: 1 }] } })] }),
      'rules[0].when.any[0].op',
      /must be one of eq, ne, gt/,
    );
    expectRefusal(
      await post(jobId, { successWhen: { all: [{ path: '$.state', op: 'matches', value: '(a+)\\1' }] } }),
      'successWhen.all[0].value',
      /not a valid RE2 regular expression/,
    );
  });

  it("refuse an interval rule below the account's minimum interval, and on a cron endpoint", async () => {
    const jobId = await createJob();
    expectRefusal(
      await post(jobId, { rules: [rule({ then: { intervalMs: 10_000 } })] }),
      'rules[0].then.intervalMs',
      /below this account's minimum interval of 60000 ms/,
    );
    expectRefusal(
      await post(jobId, { baselineIntervalMs: undefined, baselineCron: '*/5 * * * *', rules: [rule()] }),
      'rules[0].then.intervalMs',
      /cron-scheduled endpoints do not support interval rules/,
    );
    // A pause rule is fine on cron; the interval endpoint cannot move to cron while it has interval rules.
    const cron = await post(jobId, {
      baselineIntervalMs: undefined,
      baselineCron: '*/5 * * * *',
      rules: [rule({ then: { pauseMs: 600_000 } })],
    });
    expect(cron.status).toBe(201);
    const interval = (await post(jobId, { rules: [rule()] })).body;
    expectRefusal(
      await api.patch(`/api/jobs/${jobId}/endpoints/${interval.id}`, { baselineCron: '0 * * * *' }),
      'rules[0].then.intervalMs',
      /cron-scheduled endpoints/,
    );
  });

  it('refuse a runEndpoint outside the job or account, and a chain back to the endpoint', async () => {
    const jobId = await createJob();
    const a = (await post(jobId, {})).body;
    const b = (await post(jobId, {})).body;
    const elsewhere = (await post(await createJob('other'), {})).body;
    const stranger = harness.client((await harness.createAccount({ tier: 'enterprise' })).apiKey);
    const strangerJob = (await stranger.post('/api/jobs', { name: 'theirs' })).body;
    const theirs = (
      await stranger.post(`/api/jobs/${strangerJob.id}/endpoints`, {
        name: 'x',
        url: 'https://example.com/',
        method: 'GET',
        baselineIntervalMs: 300_000,
      })
    ).body;
    const runs = (id: string) => [rule({ name: 'then', when: {}, then: { runEndpoint: id } })];
    for (const other of [elsewhere.id, theirs.id, newId()]) {
      expectRefusal(
        await api.patch(`/api/jobs/${jobId}/endpoints/${a.id}`, { rules: runs(other) }),
        'rules[0].then.runEndpoint',
        /is not an endpoint of this job/,
      );
    }
    expectRefusal(
      await api.patch(`/api/jobs/${jobId}/endpoints/${a.id}`, { rules: runs(a.id) }),
      'rules[0].then.runEndpoint',
      /cannot run its own endpoint/,
    );
    expect((await api.patch(`/api/jobs/${jobId}/endpoints/${a.id}`, { rules: runs(b.id) })).status).toBe(200);
    expectRefusal(
      await api.patch(`/api/jobs/${jobId}/endpoints/${b.id}`, { rules: runs(a.id) }),
      'rules[0].then.runEndpoint',
      new RegExp(`returns to this endpoint \\(${b.id} → ${a.id} → ${b.id}\\)`),
    );
  });

  it("end an interval a rule set when the rules are replaced, and leave a user's hint alone", async () => {
    const jobId = await createJob();
    const endpoint = (await post(jobId, { rules: [rule()] })).body;
    const hint = (origin: 'rule' | 'user') =>
      harness.db.prisma.endpoint.update({
        where: { id: endpoint.id },
        data: {
          hintIntervalMs: 60_000,
          hintIntervalExpiresAt: new Date(Date.now() + 600_000),
          hintIntervalReason: 'backlog high',
          hintIntervalOrigin: origin,
          hintIntervalSetAt: new Date(),
        },
      });
    await hint('rule');
    const shown = (await api.get(`/api/endpoints/${endpoint.id}`)).body;
    expect(shown.ruleState).toMatchObject({ rule: 'backlog high', intervalMs: 60_000 });
    expect(shown.ruleState.explanation).toMatch(/^runs every 1 min because rule 'backlog high' matched at /);
    const patched = await api.patch(`/api/jobs/${jobId}/endpoints/${endpoint.id}`, {
      rules: [rule({ name: 'renamed' })],
    });
    expect(patched.body).toMatchObject({ ruleState: null, hints: { interval: null } });
    await hint('user');
    const kept = await api.patch(`/api/jobs/${jobId}/endpoints/${endpoint.id}`, { rules: null });
    expect(kept.body).toMatchObject({ rules: null, ruleState: null, hints: { interval: { origin: 'user' } } });
  });
});

describe('POST /api/endpoints/{id}/backtest', () => {
  async function seeded() {
    const jobId = await createJob();
    const endpoint = (await post(jobId, {})).body;
    const t0 = Date.parse('2026-11-30T10:00:00.000Z');
    const bodies = [
      { backlog: 50, ok: true },
      { backlog: 150, ok: false },
      { backlog: 20, ok: true },
    ];
    for (const [i, body] of bodies.entries()) {
      const startedAt = new Date(t0 + i * 300_000);
      await harness.db.prisma.run.create({
        data: {
          id: newId(),
          accountId,
          endpoint: { connect: { id: endpoint.id } },
          source: 'baseline-interval',
          status: 'success',
          scheduledAt: startedAt,
          startedAt,
          completedAt: new Date(startedAt.getTime() + 100),
          durationMs: 100,
          statusCode: 200,
          responseBody: body,
          responseFormat: 'json',
        },
      });
    }
    // A test run is not replayed.
    await harness.db.prisma.run.create({
      data: {
        id: newId(),
        accountId,
        endpoint: { connect: { id: endpoint.id } },
        source: 'test',
        status: 'success',
        scheduledAt: new Date(t0 + 1000),
        startedAt: new Date(t0 + 1000),
        completedAt: new Date(t0 + 1100),
        durationMs: 100,
        statusCode: 200,
        responseBody: { backlog: 999, ok: false },
        responseFormat: 'json',
      },
    });
    return { jobId, endpoint };
  }

  it('replays the recorded scheduled runs through the proposal and changes nothing', async () => {
    const { endpoint } = await seeded();
    const before = (await api.get(`/api/endpoints/${endpoint.id}`)).body;
    const response = await api.post(`/api/endpoints/${endpoint.id}/backtest`, {
      successWhen: { all: [{ path: '$.ok', op: 'eq', value: true }] },
      rules: [rule()],
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      runsReplayed: 3,
      from: '2026-11-30T10:00:00.000Z',
      to: '2026-11-30T10:10:00.000Z',
      recorded: { successCount: 3, failureCount: 0, callsPerDay: 288 },
      replayed: { successCount: 2, failureCount: 1 },
      statusChanges: [{ recordedStatus: 'success', status: 'failed', errorKind: 'assertion_failed' }],
    });
    expect(response.body.runs.map((run: { rulesMatched: string[] }) => run.rulesMatched)).toEqual([
      [],
      ['backlog high'],
      [],
    ]);
    expect(
      response.body.schedule.map((part: { source: string; intervalMs: number }) => [part.source, part.intervalMs]),
    ).toEqual([
      ['baseline', 300_000],
      ['rule', 60_000],
    ]);
    expect((await api.get(`/api/endpoints/${endpoint.id}`)).body).toEqual(before);
    // limit: the latest runs only.
    const last = await api.post(`/api/endpoints/${endpoint.id}/backtest`, { limit: 1 });
    expect(last.body).toMatchObject({ runsReplayed: 1, from: '2026-11-30T10:10:00.000Z' });
  });

  it('validates the proposal as a PATCH would, and answers 404 for another account', async () => {
    const { endpoint } = await seeded();
    expectRefusal(
      await api.post(`/api/endpoints/${endpoint.id}/backtest`, { rules: [rule({ then: { intervalMs: 1000 } })] }),
      'rules[0].then.intervalMs',
      /minimum interval/,
    );
    expectRefusal(await api.post(`/api/endpoints/${endpoint.id}/backtest`, { limit: 5001 }), 'limit', /at most 5000/);
    const stranger = harness.client((await harness.createAccount({ tier: 'enterprise' })).apiKey);
    const response = await stranger.post(`/api/endpoints/${endpoint.id}/backtest`, {});
    expect(response.status).toBe(404);
  });
});
