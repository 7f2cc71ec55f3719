import { describe, expect, it } from 'vitest';
import type { Run } from './run-format';
import { buildTimeline, categorize, summarizeTimeline } from './run-timeline-data';

const T0 = Date.parse('2026-03-01T12:00:00.000Z');
const MIN = 60_000;

function run(id: string, scheduledOffsetMs: number, overrides: Partial<Run> = {}): Run {
  const scheduledAt = new Date(T0 + scheduledOffsetMs).toISOString();
  return {
    id,
    endpointId: 'e1',
    status: 'success',
    statusCode: 200,
    durationMs: 120,
    responseBody: null,
    responseFormat: 'empty',
    responseTruncated: false,
    responseBodyAltered: false,
    responseSizeBytes: 0,
    errorKind: null,
    errorMessage: null,
    error: null,
    scheduledAt,
    startedAt: new Date(T0 + scheduledOffsetMs + 50).toISOString(),
    completedAt: new Date(T0 + scheduledOffsetMs + 170).toISOString(),
    lateMs: 50,
    waitedForHostMs: null,
    source: 'baseline-interval',
    replayOf: null,
    attempt: 1,
    attempts: null,
    rulesMatched: [],
    ...overrides,
  };
}

describe('categorize', () => {
  it.each<[Partial<Run>, string]>([
    [{ status: 'success', source: 'baseline-interval' }, 'baseline'],
    [{ status: 'success', source: 'baseline-cron' }, 'baseline'],
    [{ status: 'success', source: 'ai-interval' }, 'ai'],
    [{ status: 'success', source: 'ai-oneshot' }, 'ai'],
    [{ status: 'success', source: 'test' }, 'test'],
    [{ status: 'failed', source: 'ai-interval' }, 'failed'],
    [{ status: 'failed', source: 'test' }, 'failed'],
  ])('%o → %s', (fields, category) => expect(categorize(run('r', 0, fields))).toBe(category));
});

describe('buildTimeline', () => {
  it('orders oldest first and measures planned intervals between scheduled runs, skipping test runs', () => {
    const points = buildTimeline([
      run('r4', 3 * MIN + 30_000, { source: 'ai-interval' }),
      run('t1', 2 * MIN + 10_000, { source: 'test' }),
      run('r3', 3 * MIN, { source: 'ai-interval' }),
      run('r2', 2 * MIN, { status: 'failed' }),
      run('r1', 0),
    ]);
    expect(points.map((point) => [point.runId, point.intervalMs, point.category])).toEqual([
      ['r1', null, 'baseline'],
      ['r2', 2 * MIN, 'failed'],
      ['t1', null, 'test'],
      ['r3', MIN, 'ai'],
      ['r4', 30_000, 'ai'],
    ]);
  });
});

describe('summarizeTimeline', () => {
  const now = T0 + 4 * MIN;
  it.each<[string, Run[], string]>([
    ['no runs', [], 'No runs yet.'],
    ['one run', [run('r1', 0)], '1 run in the last 4 min; 1 succeeded, 0 failed.'],
    [
      'a tightening schedule',
      [
        run('r1', 0),
        run('r2', 2 * MIN, { status: 'failed' }),
        run('r3', 3 * MIN, { source: 'ai-interval' }),
        run('r4', 3 * MIN + 30_000, { source: 'ai-interval' }),
      ],
      '4 runs in the last 4 min; 3 succeeded, 1 failed; 2 decided by AI hints. ' +
        'The interval between scheduled runs tightened from 2 min to 30 s (shortest 30 s, longest 2 min).',
    ],
    [
      'a steady schedule',
      [run('r1', 0), run('r2', MIN), run('r3', 2 * MIN)],
      '3 runs in the last 4 min; 3 succeeded, 0 failed. The interval between scheduled runs held at 1 min (shortest 1 min, longest 1 min).',
    ],
  ])('%s', (_name, runs, text) => expect(summarizeTimeline(buildTimeline(runs), now)).toBe(text));
});
