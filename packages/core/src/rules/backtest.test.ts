import { responseRules, successWhenInput } from '../schemas/response-rules.js';
import { createBacktest, type BacktestBaseline, type RecordedRun } from './backtest.js';
import { compileResponseRules } from './evaluate.js';

const T0 = Date.parse('2026-11-30T10:00:00.000Z');
const MINUTE = 60_000;
const B = '0198c0de-0000-7000-8000-00000000000b';

/** Run i of a 5-minute baseline, started at T0 + 5i minutes, 100 ms long. */
const recorded = (i: number, body: unknown, fields: Partial<RecordedRun> = {}): RecordedRun => ({
  id: `run-${i}`,
  startedAt: new Date(T0 + i * 5 * MINUTE),
  completedAt: new Date(T0 + i * 5 * MINUTE + 100),
  statusCode: 200,
  durationMs: 100,
  responseBody: body,
  responseFormat: 'json',
  responseTruncated: false,
  status: 'success',
  errorKind: null,
  errorMessage: null,
  rulesMatched: null,
  ...fields,
});

const baseline: BacktestBaseline = { baselineIntervalMs: 5 * MINUTE, baselineCron: null, timezone: 'UTC' };

function replay(runs: RecordedRun[], fields: { successWhen?: unknown; rules?: unknown }, bounds = baseline) {
  const compiled = compileResponseRules({
    successWhen: fields.successWhen ? successWhenInput.parse(fields.successWhen) : null,
    rules: fields.rules ? responseRules.parse(fields.rules) : null,
    minIntervalMs: null,
    maxIntervalMs: null,
  });
  const backtest = createBacktest(compiled, bounds);
  for (const run of runs) backtest.add(run);
  return backtest.result();
}

describe('createBacktest', () => {
  const backlog = [50, 150, 180, 40, 30];
  const runs = backlog.map((value, i) => recorded(i, { backlog: value, ok: value < 170 }));

  it('reports status changes, matched rules, the interval over time and calls a day', () => {
    const result = replay(runs, {
      successWhen: { all: [{ path: '$.ok', op: 'eq', value: true }] },
      rules: [
        {
          name: 'backlog high',
          when: { all: [{ path: '$.backlog', op: 'gt', value: 100 }] },
          then: { intervalMs: MINUTE },
        },
        { name: 'then B', when: { runStatus: 'success' }, then: { runEndpoint: B } },
      ],
    });
    expect(result.runsReplayed).toBe(5);
    expect(result.recorded).toEqual({ successCount: 5, failureCount: 0, callsPerDay: 288 });
    expect(result.statusChanges).toEqual([
      {
        runId: 'run-2',
        startedAt: new Date(T0 + 10 * MINUTE).toISOString(),
        recordedStatus: 'success',
        status: 'failed',
        errorKind: 'assertion_failed',
        errorMessage: 'successWhen.all[0] failed: $.ok eq true; saw false',
      },
    ]);
    expect(result.runs.map((run) => run.rulesMatched)).toEqual([
      ['then B'],
      ['backlog high', 'then B'],
      ['backlog high'],
      ['then B'],
      ['then B'],
    ]);
    // 0–5 min the baseline; 5–15 the rule's 60 s (runs 1 and 2 match; run 2 fails its assertion, but the
    // rule's interval overrides backoff); run 3 matches no interval rule: the baseline from 15 min.
    expect(result.schedule).toEqual([
      {
        from: iso(0),
        to: iso(5 * MINUTE),
        source: 'baseline',
        rule: null,
        intervalMs: 5 * MINUTE,
        backoffMultiplier: 1,
      },
      {
        from: iso(5 * MINUTE),
        to: iso(15 * MINUTE),
        source: 'rule',
        rule: 'backlog high',
        intervalMs: MINUTE,
        backoffMultiplier: 1,
      },
      {
        from: iso(15 * MINUTE),
        to: iso(20 * MINUTE),
        source: 'baseline',
        rule: null,
        intervalMs: 5 * MINUTE,
        backoffMultiplier: 1,
      },
    ]);
    // 1 + 10 + 1 calls in 20 minutes.
    expect(result.replayed).toEqual({ successCount: 4, failureCount: 1, callsPerDay: 864 });
    expect(result.endpointRuns).toEqual([{ endpointId: B, runs: 4 }]);
  });

  it('keeps a rule interval between recorded runs and ends it at the first run that does not match', () => {
    const result = replay([recorded(0, { backlog: 150 }), recorded(1, { backlog: 10 }), recorded(2, { backlog: 10 })], {
      rules: [
        {
          name: 'high',
          when: { all: [{ path: '$.backlog', op: 'gt', value: 100 }] },
          then: { intervalMs: 2 * MINUTE },
        },
      ],
    });
    expect(result.schedule.map(({ source, intervalMs }) => [source, intervalMs])).toEqual([
      ['rule', 2 * MINUTE],
      ['baseline', 5 * MINUTE],
    ]);
    expect(result.schedule[0]).toMatchObject({ from: iso(0), to: iso(5 * MINUTE) });
  });

  it('reports runs inside a pause a rule set as not run, and counts no calls while paused', () => {
    const result = replay(
      [recorded(0, { state: 'maintenance' }), recorded(1, { state: 'ok' }), recorded(2, { state: 'ok' })],
      {
        rules: [
          {
            name: 'maintenance',
            when: { all: [{ path: '$.state', op: 'eq', value: 'maintenance' }] },
            then: { pauseMs: 8 * MINUTE },
          },
        ],
      },
    );
    expect(result.runs.map((run) => [run.status, run.rulesMatched])).toEqual([
      ['success', ['maintenance']],
      [null, []],
      ['success', []],
    ]);
    expect(result.schedule[0]).toMatchObject({
      source: 'paused',
      rule: 'maintenance',
      from: iso(0),
      to: iso(8 * MINUTE + 100),
    });
    expect(result.replayed.successCount).toBe(2);
  });

  it('counts a cron baseline by its times, thinned by backoff', () => {
    const result = replay(
      [recorded(0, { ok: false }), recorded(6, { ok: true })],
      { successWhen: { all: [{ path: '$.ok', op: 'eq', value: true }] } },
      { baselineIntervalMs: null, baselineCron: '*/5 * * * *', timezone: 'UTC' },
    );
    // 10:00–10:30 after a failure: the 6 cron times 10:05 … 10:30 (exclusive) halved.
    expect(result.schedule).toEqual([
      { from: iso(0), to: iso(30 * MINUTE), source: 'baseline', rule: null, intervalMs: null, backoffMultiplier: 2 },
    ]);
    expect(result.replayed.callsPerDay).toBe(Math.round(((2.5 * 86_400_000) / (30 * MINUTE)) * 100) / 100);
  });

  it('answers an empty window with no figures', () => {
    const result = replay([], {});
    expect(result).toMatchObject({ runsReplayed: 0, from: null, to: null, schedule: [], runs: [] });
    expect(result.recorded.callsPerDay).toBeNull();
  });
});

function iso(offsetMs: number): string {
  return new Date(T0 + offsetMs).toISOString();
}
