/**
 * Response rules end to end (packages/core/src/rules): the real scheduler and executor on a cloned
 * database, endpoints on 127.0.0.1 servers whose bodies each test sets, everything configured
 * through the API. successWhen turns a 200 into a failure that backs off, auto-pauses and notifies;
 * an interval rule follows a body across a threshold and back, one run each way; a pause rule pauses;
 * a runEndpoint rule chains B after each success of A; a pathological pattern does not hold up the
 * other endpoints; the backtest of recorded runs says what the live rules then do.
 */
import { applyRules, compileBoundedRegex, compileResponseRules, type ResponseRule } from '@kairos/core';
import { createApiHarness, type ApiClient, type ApiHarness } from '../../../test/api.js';
import { startEngine, waitFor, type Engine } from '../../../test/engine.js';
import { startTestServer, type TestServer } from '../../../test/test-server.js';

let harness: ApiHarness;
let engine: Engine;
let api: ApiClient;
/** The body each path answers now (JSON), and what each run saw, by X-Service-Run-Id. */
const bodies = new Map<string, unknown>();
const statuses = new Map<string, number>();
const seen = new Map<string, unknown>();
let target: TestServer;

beforeAll(async () => {
  harness = await createApiHarness();
  engine = await startEngine(harness);
  api = harness.client((await harness.createAccount({ tier: 'enterprise' })).apiKey);
  target = await startTestServer((req, res) => {
    const path = req.url ?? '/';
    const body = bodies.get(path) ?? {};
    seen.set(String(req.headers['x-service-run-id']), body);
    res.writeHead(statuses.get(path) ?? 200, {
      'content-type': typeof body === 'string' ? 'text/plain' : 'application/json',
    });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  });
});
afterAll(async () => {
  await engine.close();
  await target.close();
  await harness.close();
});

async function createJob(name: string): Promise<string> {
  return (await api.post('/api/jobs', { name })).body.id as string;
}

async function createEndpoint(jobId: string, path: string, fields: Record<string, unknown>) {
  const response = await api.post(`/api/jobs/${jobId}/endpoints`, {
    name: path,
    url: `${target.origin}${path}`,
    method: 'GET',
    ...fields,
  });
  expect(response.status).toBe(201);
  return response.body as { id: string };
}

const runsOf = (endpointId: string) =>
  harness.db.prisma.run.findMany({ where: { endpointId, source: { not: 'test' } }, orderBy: { scheduledAt: 'asc' } });
const gapsMs = (runs: { scheduledAt: Date }[]) =>
  runs.slice(1).map((run, index) => run.scheduledAt.getTime() - runs[index]!.scheduledAt.getTime());
const runCount = (endpointId: string, count: number, timeoutMs: number) =>
  waitFor(
    async () => {
      const runs = await runsOf(endpointId);
      return runs.length >= count ? runs : null;
    },
    timeoutMs,
    `${count} runs of ${endpointId}`,
  );

describe('successWhen', () => {
  it('fails a 200 whose body fails a condition: backoff, auto-pause and notifications follow, as for any failure', async () => {
    const notified: string[] = [];
    const receiver = await startTestServer((_req, res, body) => {
      notified.push((JSON.parse(body) as { type: string }).type);
      res.statusCode = 204;
      res.end();
    });
    expect((await api.patch('/api/account/settings', { notifyFailureThreshold: 2 })).status).toBe(200);
    expect(
      (await api.post('/api/notification-channels', { name: 'hook', type: 'webhook', url: receiver.origin })).status,
    ).toBe(201);
    bodies.set('/not-ok', { ok: false, reason: 'queue stalled' });
    const jobId = await createJob('asserted');
    const asserted = await createEndpoint(jobId, '/not-ok', {
      baselineIntervalMs: 1000,
      autoPauseAfterFailures: 3,
      successWhen: { status: ['2xx'], all: [{ path: '$.ok', op: 'eq', value: true }] },
    });
    // The same response without successWhen is a success, as any 200 is.
    const plain = await createEndpoint(jobId, '/not-ok', { baselineIntervalMs: 60_000 });

    const runs = await runCount(asserted.id, 3, 20_000);
    for (const run of runs) {
      expect(run).toMatchObject({
        status: 'failed',
        statusCode: 200,
        errorKind: 'assertion_failed',
        errorMessage: 'successWhen.all[0] failed: $.ok eq true; saw false',
        responseBody: { ok: false, reason: 'queue stalled' },
      });
    }
    // Backoff: 1 s baseline doubled after the first failure, doubled again after the second.
    expect(gapsMs(runs).slice(0, 2)).toEqual([2000, 4000]);
    const endpoint = (await api.get(`/api/endpoints/${asserted.id}`)).body;
    expect(endpoint).toMatchObject({ status: 'paused', failureCount: 3 });
    expect(endpoint.pauseReason).toMatch(/auto-paused after 3 consecutive failures/);
    await waitFor(async () => notified.length >= 2, 10_000, 'two notifications');
    expect(notified.sort()).toEqual(['endpoint.auto_paused', 'endpoint.failing']);
    expect((await runsOf(plain.id))[0]).toMatchObject({ status: 'success', errorKind: null });
    await receiver.close();
  }, 40_000);

  it('decides a Test now run too, and lists the rules it matches without acting on them', async () => {
    bodies.set('/tested', { ok: false, backlog: 500 });
    const jobId = await createJob('tested');
    const endpoint = await createEndpoint(jobId, '/tested', {
      baselineIntervalMs: 3_600_000,
      successWhen: { all: [{ path: '$.ok', op: 'eq', value: true }] },
      rules: [
        { name: 'busy', when: { all: [{ path: '$.backlog', op: 'gt', value: 100 }] }, then: { pauseMs: 600_000 } },
      ],
    });
    await runCount(endpoint.id, 1, 10_000);
    await api.post(`/api/endpoints/${endpoint.id}/pause`, { pausedUntil: null });
    const tested = await api.post(`/api/endpoints/${endpoint.id}/test`);
    expect(tested.body).toMatchObject({
      status: 'failed',
      errorMessage: expect.stringMatching(/^successWhen\.all\[0\]/),
    });
    const run = (await api.get(`/api/runs/${tested.body.runId}`)).body;
    expect(run).toMatchObject({ source: 'test', errorKind: 'assertion_failed', rulesMatched: ['busy'] });
    expect((await api.get(`/api/endpoints/${endpoint.id}`)).body).toMatchObject({
      status: 'active',
      pausedUntil: null,
    });
  }, 20_000);
});

describe('rules', () => {
  it('runs at the rule interval from the run that sees the body cross the threshold, and back at the next that does not', async () => {
    bodies.set('/backlog', { backlog: 50 });
    const jobId = await createJob('backlog');
    const endpoint = await createEndpoint(jobId, '/backlog', {
      baselineIntervalMs: 3000,
      rules: [
        {
          name: 'backlog high',
          when: { all: [{ path: '$.backlog', op: 'gt', value: 100 }] },
          then: { intervalMs: 1000 },
        },
      ],
    });
    await runCount(endpoint.id, 1, 10_000);
    bodies.set('/backlog', { backlog: 150 });
    // Two runs at the rule's interval, then the body falls back under the threshold.
    await waitFor(
      async () => (await runsOf(endpoint.id)).filter((run) => run.source === 'rule-interval').length >= 2,
      15_000,
      'two runs at the rule interval',
    );
    const high = (await api.get(`/api/endpoints/${endpoint.id}`)).body;
    bodies.set('/backlog', { backlog: 50 });
    const runs = await waitFor(
      async () => {
        const all = await runsOf(endpoint.id);
        const fell = all.findIndex((run, i) => i > 1 && (seen.get(run.id) as { backlog: number }).backlog === 50);
        return fell >= 0 && all.length > fell + 1 ? all : null;
      },
      15_000,
      'the run after the backlog fell',
    );
    const crossed = runs.findIndex((run) => (seen.get(run.id) as { backlog: number }).backlog === 150);
    const fell = runs.findIndex((run, i) => i > crossed && (seen.get(run.id) as { backlog: number }).backlog === 50);
    // Up: the run that saw 150 was a baseline run; the very next came 1 s later on the rule.
    expect(runs[crossed]).toMatchObject({ source: 'baseline-interval', rulesMatched: ['backlog high'] });
    expect(runs[crossed + 1]).toMatchObject({ source: 'rule-interval' });
    expect(gapsMs(runs.slice(crossed, fell + 1)).every((gap) => gap === 1000)).toBe(true);
    expect(high.ruleState).toEqual({
      rule: 'backlog high',
      intervalMs: 1000,
      since: runs[crossed]!.completedAt.toISOString(),
      expiresAt: expect.any(String),
      explanation: `runs every 1 s because rule 'backlog high' matched at ${runs[crossed]!.completedAt.toISOString()}`,
    });
    expect(high.hints.interval).toMatchObject({ origin: 'rule', reason: 'backlog high', intervalMs: 1000 });
    expect(high.nextRunSource).toBe('rule-interval');
    // Down: the first run that saw 50 ended the rule's interval; the next is back on the 3 s baseline.
    expect(runs[fell]).toMatchObject({ source: 'rule-interval', rulesMatched: [] });
    expect(runs[fell + 1]).toMatchObject({ source: 'baseline-interval' });
    expect(gapsMs([runs[fell]!, runs[fell + 1]!])).toEqual([3000]);
    const low = (await api.get(`/api/endpoints/${endpoint.id}`)).body;
    expect(low).toMatchObject({ ruleState: null, hints: { interval: null } });
  }, 60_000);

  it('pauses the endpoint for pauseMs with the rule name as reason', async () => {
    bodies.set('/maintenance', { state: 'maintenance' });
    const jobId = await createJob('maintenance');
    const endpoint = await createEndpoint(jobId, '/maintenance', {
      baselineIntervalMs: 1000,
      rules: [
        {
          name: 'maintenance window',
          when: { all: [{ path: '$.state', op: 'eq', value: 'maintenance' }] },
          then: { pauseMs: 600_000 },
        },
      ],
    });
    const [run] = await runCount(endpoint.id, 1, 10_000);
    const paused = await waitFor(
      async () => {
        const body = (await api.get(`/api/endpoints/${endpoint.id}`)).body;
        return body.status === 'paused' ? body : null;
      },
      5000,
      'the pause',
    );
    expect(paused).toMatchObject({
      pauseReason: 'maintenance window',
      pausedUntil: new Date(run!.completedAt.getTime() + 600_000).toISOString(),
    });
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(await runsOf(endpoint.id)).toHaveLength(1);
  }, 20_000);

  it('chains B after each success of A, once per run of A, with source rule', async () => {
    const jobId = await createJob('chain');
    bodies.set('/b', { ok: true });
    const b = await createEndpoint(jobId, '/b', { baselineIntervalMs: 3_600_000 });
    await runCount(b.id, 1, 10_000); // B's own first run, at creation
    let calls = 0;
    bodies.set('/a', { step: 'export' });
    const a = await createEndpoint(jobId, '/a', {
      baselineIntervalMs: 1500,
      rules: [{ name: 'then B', when: { runStatus: 'success' }, then: { runEndpoint: b.id } }],
    });
    // A's second run fails (HTTP 500): no B after it.
    const failSecond = setInterval(() => {
      calls = target.requests.filter((request) => request.url === '/a').length;
      statuses.set('/a', calls === 1 ? 500 : 200);
    }, 5);
    try {
      const aRuns = await runCount(a.id, 3, 15_000);
      expect(aRuns.map((run) => run.status)).toEqual(['success', 'failed', 'success']);
      const chained = await waitFor(
        async () => {
          const runs = (await runsOf(b.id)).filter((run) => run.source === 'rule');
          return runs.length >= 2 ? runs : null;
        },
        10_000,
        'two runs of B started by A',
      );
      for (const [i, run] of chained.entries()) {
        const cause = [aRuns[0]!, aRuns[2]!][i]!;
        expect(run.scheduledAt.getTime()).toBeGreaterThanOrEqual(cause.completedAt.getTime());
        expect(run.scheduledAt.getTime() - cause.completedAt.getTime()).toBeLessThan(1000);
      }
      const bRuns = await runsOf(b.id);
      expect(bRuns.filter((run) => run.source === 'rule')).toHaveLength(2);
      expect((await runsOf(a.id)).slice(0, 3).map((run) => run.rulesMatched)).toEqual([['then B'], [], ['then B']]);
    } finally {
      clearInterval(failSecond);
    }
  }, 30_000);
});

describe('a pathological pattern', () => {
  it('does not hold up the executor: another endpoint keeps its times while it is matched against a megabyte', async () => {
    // Near the largest program allowed, over random "a"/"b" whose only "c" (the pattern's last
    // literal) ends the part a test reads: RE2 can neither skip ahead to it nor stop early.
    const pattern = '(?s)(?:.{1,4}a.{1,4}b){10}c';
    const compiled = compileBoundedRegex(pattern);
    if (!compiled.ok) throw new Error(compiled.message);
    expect(compiled.regex.re.programSize()).toBeGreaterThan(150);
    let seed = 7;
    const chars = Array.from({ length: 1 << 20 }, (): string =>
      (seed = (seed * 1103515245 + 12345) & 0x7fffffff) & 1 ? 'a' : 'b',
    );
    chars[compiled.regex.maxChars - 1] = 'c';
    const text = chars.join('');
    bodies.set('/huge', text);
    bodies.set('/steady', { ok: true });
    const matches = { path: '$', op: 'matches', value: pattern } as const;
    // Four tests a run, the most an endpoint may have (no successWhen: a failure would back off).
    const rules: ResponseRule[] = [
      { name: 'one', when: { all: [matches] }, then: { analyse: true } },
      { name: 'two', when: { any: [matches, matches] }, then: { analyse: true } },
      { name: 'three', when: { all: [matches] }, then: { analyse: true } },
    ];
    // The evaluation itself, as the executor runs it.
    const rulesCompiled = compileResponseRules({ successWhen: null, rules, minIntervalMs: null, maxIntervalMs: null });
    const started = performance.now();
    applyRules(
      rulesCompiled,
      { statusCode: 200, durationMs: 5, responseBody: text, responseFormat: 'text', status: 'success' },
      new Date(),
    );
    const evaluationMs = performance.now() - started;
    expect(evaluationMs).toBeLessThan(500);

    const jobId = await createJob('regex');
    const steady = await createEndpoint(jobId, '/steady', { baselineIntervalMs: 1000 });
    const huge = await createEndpoint(jobId, '/huge', {
      baselineIntervalMs: 1000,
      maxResponseSizeKb: 1024,
      rules,
    });
    const hugeRuns = await runCount(huge.id, 5, 20_000);
    expect(hugeRuns[0]).toMatchObject({ responseFormat: 'text', responseSizeBytes: 1 << 20 });
    const steadyRuns = (await runsOf(steady.id)).filter((run) => run.startedAt >= hugeRuns[0]!.startedAt);
    expect(steadyRuns.length).toBeGreaterThanOrEqual(3);
    const lateMs = steadyRuns.map((run) => run.startedAt.getTime() - run.scheduledAt.getTime());
    // A stalled executor would hold the steady endpoint for every evaluation in a row (seconds); a
    // busy machine's scheduling noise stays well under two.
    expect(Math.max(...lateMs)).toBeLessThan(2000);
  }, 40_000);
});

describe('backtest', () => {
  it('reports exactly what the rules then do live with the same responses', async () => {
    const sequence = [
      { backlog: 50, ok: true },
      { backlog: 150, ok: true },
      { backlog: 180, ok: false },
      { backlog: 40, ok: true },
      { backlog: 10, ok: false },
      { backlog: 10, ok: true },
    ];
    const successWhen = { all: [{ path: '$.ok', op: 'eq', value: true }] };
    const rules = [
      {
        name: 'backlog high',
        when: { all: [{ path: '$.backlog', op: 'gt', value: 100 }] },
        then: { intervalMs: 1000 },
      },
      { name: 'drained', when: { all: [{ path: '$.backlog', op: 'lt', value: 20 }] }, then: { analyse: true } },
    ];
    const served = new Map<string, number>();
    const playing = setInterval(() => {
      for (const path of ['/recorded', '/live']) {
        const count = target.requests.filter((request) => request.url === path).length;
        // Past the sequence: a body no rule matches that is a success either way, so a run more before
        // the pause changes nothing the comparison reads.
        if (served.get(path) !== count) bodies.set(path, sequence[count] ?? { backlog: 50, ok: true });
        served.set(path, count);
      }
    }, 2);
    try {
      bodies.set('/recorded', sequence[0]);
      bodies.set('/live', sequence[0]);
      const jobId = await createJob('backtest');
      // Recorded without rules: every run a success at the 2 s baseline.
      const recorded = await createEndpoint(jobId, '/recorded', { baselineIntervalMs: 2000 });
      await runCount(recorded.id, sequence.length, 20_000);
      await api.post(`/api/endpoints/${recorded.id}/pause`, {
        pausedUntil: new Date(Date.now() + 3_600_000).toISOString(),
      });
      // Every recorded run (one more may start before the pause lands), the first six compared.
      const report = (await api.post(`/api/endpoints/${recorded.id}/backtest`, { successWhen, rules, limit: 100 }))
        .body;
      const replayed = report.runs.slice(0, sequence.length);

      // The same responses, live, with the rules set.
      const live = await createEndpoint(jobId, '/live', { baselineIntervalMs: 2000, successWhen, rules });
      const liveRuns = (await runCount(live.id, sequence.length, 25_000)).slice(0, sequence.length);
      expect(report.runsReplayed).toBeGreaterThanOrEqual(sequence.length);
      expect(replayed.map((run: { status: string }) => run.status)).toEqual(liveRuns.map((run) => run.status));
      expect(replayed.map((run: { errorKind: string | null }) => run.errorKind)).toEqual(
        liveRuns.map((run) => run.errorKind),
      );
      expect(replayed.map((run: { errorMessage: string | null }) => run.errorMessage)).toEqual(
        liveRuns.map((run) => run.errorMessage),
      );
      expect(replayed.map((run: { rulesMatched: string[] }) => run.rulesMatched)).toEqual(
        liveRuns.map((run) => run.rulesMatched),
      );
      expect(report.statusChanges.map((change: { runId: string }) => change.runId)).toHaveLength(2);
      // The schedule the report gives after each run is the gap the live endpoint then kept.
      const recordedRuns = (await runsOf(recorded.id)).slice(0, sequence.length);
      const intervalAfter = (i: number) =>
        report.schedule.find(
          (part: { from: string; to: string }) =>
            Date.parse(part.from) <= recordedRuns[i]!.startedAt.getTime() &&
            recordedRuns[i]!.startedAt.getTime() < Date.parse(part.to),
        )?.intervalMs;
      const replayedGaps = recordedRuns.slice(0, -1).map((_, i) => intervalAfter(i));
      expect(replayedGaps).toEqual(gapsMs(liveRuns));
      expect(gapsMs(liveRuns)).toEqual([2000, 1000, 1000, 2000, 4000]);
      expect(report.analysesRequested).toBe(2);
    } finally {
      clearInterval(playing);
    }
  }, 60_000);
});
