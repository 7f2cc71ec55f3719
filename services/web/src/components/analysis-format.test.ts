import { describe, expect, it } from 'vitest';
import { describeActionResult, describeParams, describeTrigger, humaniseTimes, matchActions } from './analysis-format';

describe('describeActionResult', () => {
  it.each([
    [
      'applied: interval 60000 ms until 2026-11-21T12:00:00.000Z',
      true,
      'applied',
      'interval 60000 ms until 2026-11-21T12:00:00.000Z',
    ],
    [
      'applied: interval 5000 ms until 2026-11-21T12:00:00.000Z (requested 1000 ms, clamped to minIntervalMs 5000 ms)',
      true,
      'clamped',
      'interval 5000 ms until 2026-11-21T12:00:00.000Z (requested 1000 ms, clamped to minIntervalMs 5000 ms)',
    ],
    [
      "applied: interval 60000 ms until x (requested 1000 ms, raised to the account's minimum interval 60000 ms)",
      true,
      'clamped',
      "interval 60000 ms until x (requested 1000 ms, raised to the account's minimum interval 60000 ms)",
    ],
    [
      'refused: cron-scheduled endpoints do not take interval hints',
      false,
      'refused',
      'cron-scheduled endpoints do not take interval hints',
    ],
    ['nothing to do: no planner hints to clear', false, 'noop', 'no planner hints to clear'],
    ['shadow mode, not applied: would apply interval 60000 ms', false, 'shadow', 'would apply interval 60000 ms'],
    ['something new', true, 'applied', 'something new'],
    ['something new', false, 'unknown', 'something new'],
  ] as const)('%s', (result, applied, verdict, detail) => {
    expect(describeActionResult(result, applied)).toMatchObject({ verdict, detail });
  });
});

describe('describeTrigger', () => {
  it.each([
    ['first-analysis', 'First analysis of this endpoint'],
    ['failures-rose', 'Consecutive failures rose'],
    ['something-new', 'something-new'],
    [null, '—'],
  ])('%s → %s', (trigger, text) => expect(describeTrigger(trigger)).toBe(text));
});

describe('describeParams', () => {
  it('formats intervals, lifetimes, times and resumes', () => {
    const rows = describeParams({ intervalMs: 300_000, ttlMinutes: 90, reason: 'backlog is growing' });
    expect(rows).toEqual([
      { key: 'intervalMs', label: 'Requested interval', value: '5 min (300000 ms)' },
      { key: 'ttlMinutes', label: 'Requested hint lifetime', value: '1 h 30 min' },
      { key: 'reason', label: 'Reason', value: 'backlog is growing' },
    ]);
    expect(describeParams({ pausedUntil: null })[0]!.value).toBe('none (resume)');
    expect(describeParams({ nextRunAt: '2026-11-21T12:00:00Z' })[0]!.value).toContain('(2026-11-21T12:00:00Z)');
    expect(describeParams({ extra: { a: 1 } })[0]).toEqual({ key: 'extra', label: 'extra', value: '{"a":1}' });
  });
});

describe('matchActions', () => {
  it('pairs the n-th call of a write tool with its n-th action and leaves read tools out', () => {
    const tools = [
      'get_latest_response',
      'propose_interval',
      'get_response_history',
      'propose_interval',
      'clear_hints',
    ];
    const actions = [{ tool: 'propose_interval' }, { tool: 'propose_interval' }, { tool: 'clear_hints' }];
    expect(matchActions(tools, actions)).toEqual([null, 0, null, 1, 2]);
  });

  it('gives null to a write call without a recorded action', () => {
    expect(matchActions(['pause_until'], [])).toEqual([null]);
  });
});

describe('humaniseTimes', () => {
  it('rewrites ISO times and leaves the rest alone', () => {
    const text = humaniseTimes('interval 5000 ms until 2026-11-21T21:00:00.000Z (requested 1000 ms)');
    expect(text).not.toContain('2026-11-21T21');
    expect(text).toMatch(/^interval 5000 ms until .+2026.+ \(requested 1000 ms\)$/);
    expect(humaniseTimes('no time here')).toBe('no time here');
  });
});

describe('describeParams order', () => {
  it('puts the value first and the reason last, whatever the stored key order', () => {
    const keys = describeParams({ reason: 'r', ttlMinutes: 5, intervalMs: 60_000, extra: 1 }).map((row) => row.key);
    expect(keys).toEqual(['intervalMs', 'ttlMinutes', 'reason', 'extra']);
  });
});
