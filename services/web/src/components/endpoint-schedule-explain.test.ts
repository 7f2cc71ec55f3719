import { describe, expect, it } from 'vitest';
import { describeBaseline, explainSchedule, type ScheduleFacts } from './endpoint-schedule-explain';

const NOW = Date.parse('2026-03-01T12:00:00.000Z');
const at = (offsetMs: number) => new Date(NOW + offsetMs).toISOString();
const MIN = 60_000;

/** An interval endpoint on a 1 min baseline that ran 20 s ago and runs again in 40 s. */
function endpoint(overrides: Partial<ScheduleFacts> = {}): ScheduleFacts {
  return {
    status: 'active',
    jobPaused: false,
    nextRunAt: at(40_000),
    nextRunSource: 'baseline-interval',
    lastRunAt: at(-20_000),
    baselineIntervalMs: MIN,
    baselineCron: null,
    timezone: 'UTC',
    minIntervalMs: null,
    maxIntervalMs: null,
    failureCount: 0,
    backoffMultiplier: 1,
    pausedUntil: null,
    pauseReason: null,
    hints: { interval: null, oneShot: null },
    ...overrides,
  };
}

const intervalHint = (intervalMs: number, origin: 'planner' | 'user' | 'rule' = 'planner', expiresInMs = 12 * MIN) => ({
  intervalMs,
  expiresAt: at(expiresInMs),
  reason: 'backlog above 100',
  origin,
  setAt: at(-MIN),
});

const explain = (facts: ScheduleFacts) => explainSchedule(facts, NOW, { formatTime: (iso) => iso });

describe('explainSchedule', () => {
  it.each<[string, Partial<ScheduleFacts>, string[]]>([
    ['interval baseline', {}, ['Baseline: every 1 min.']],
    [
      'backoff stretches the baseline',
      { failureCount: 3, backoffMultiplier: 8, nextRunAt: at(7 * MIN) },
      ['3 failures in a row: the 1 min baseline is stretched 8x to 8 min.'],
    ],
    [
      'backoff at its cap',
      { failureCount: 6, backoffMultiplier: 32, nextRunAt: at(31 * MIN) },
      ['6 failures in a row: the 1 min baseline is stretched 32x to 32 min (the cap).'],
    ],
    [
      'one failure',
      { failureCount: 1, backoffMultiplier: 2 },
      ['1 failure in a row: the 1 min baseline is stretched 2x to 2 min.'],
    ],
    [
      'AI interval hint overrides baseline and backoff',
      {
        nextRunSource: 'ai-interval',
        failureCount: 2,
        backoffMultiplier: 4,
        hints: { interval: intervalHint(30_000), oneShot: null },
      },
      [
        'AI interval hint (set by the planner): every 30 s for another 12 min — reason: backlog above 100.',
        'It overrides the baseline (every 1 min) and any backoff; the baseline returns when it expires.',
        '2 failures in a row, but backoff does not apply while the hint is active.',
      ],
    ],
    [
      'user interval hint',
      { nextRunSource: 'ai-interval', hints: { interval: intervalHint(10_000, 'user'), oneShot: null } },
      [
        'Interval hint (set by a user): every 10 s for another 12 min — reason: backlog above 100.',
        'It overrides the baseline (every 1 min) and any backoff; the baseline returns when it expires.',
      ],
    ],
    [
      'a response rule interval names the rule and when it matched',
      {
        nextRunSource: 'rule-interval',
        failureCount: 1,
        backoffMultiplier: 2,
        hints: { interval: { ...intervalHint(MIN, 'rule', 2 * MIN), reason: 'backlog high' }, oneShot: null },
        ruleState: {
          rule: 'backlog high',
          intervalMs: MIN,
          since: at(-3 * MIN),
          expiresAt: at(2 * MIN),
          explanation: '',
        },
      },
      [
        `Runs every 1 min because rule 'backlog high' matched at ${at(-3 * MIN)}.`,
        'It lasts while runs keep matching: the first run that does not match ends it (it lapses in 2 min without a run), and a later AI or user interval hint replaces it. It overrides the baseline (every 1 min) and any backoff.',
      ],
    ],
    [
      'a run a response rule asked for',
      {
        nextRunSource: 'rule',
        nextRunAt: at(0),
        hints: {
          interval: null,
          oneShot: { nextRunAt: at(0), expiresAt: at(5 * MIN), reason: 'after export', origin: 'rule', setAt: at(0) },
        },
      },
      [
        `One run asked for by a response rule: one run at ${at(0)} — reason: after export. Until then it replaces the scheduled runs; afterwards the schedule resumes from that run.`,
        'Baseline: every 1 min.',
      ],
    ],
    [
      'interval hint that ends before its next slot',
      { hints: { interval: intervalHint(5 * MIN, 'planner', 2 * MIN), oneShot: null } },
      [
        'Baseline: every 1 min.',
        'The interval hint (every 5 min) ends in 2 min, before its next run would be due, so the baseline applies.',
      ],
    ],
    [
      'one-shot pending',
      {
        nextRunSource: 'ai-oneshot',
        nextRunAt: at(5 * MIN),
        hints: {
          interval: null,
          oneShot: {
            nextRunAt: at(5 * MIN),
            expiresAt: at(30 * MIN),
            reason: 'deploy',
            origin: 'planner',
            setAt: null,
          },
        },
      },
      [
        `AI one-shot hint (set by the planner): one run at ${at(5 * MIN)} — reason: deploy. Until then it replaces the scheduled runs; afterwards the schedule resumes from that run.`,
        'Baseline: every 1 min.',
      ],
    ],
    [
      'paused with a reason',
      { status: 'paused', pausedUntil: at(90 * MIN), pauseReason: 'maintenance', nextRunAt: at(90 * MIN) },
      [
        `Paused until ${at(90 * MIN)} (1 h 30 min from now): no scheduled runs until then, one run when it ends, and afterwards the schedule below applies.`,
        'Reason for the pause: maintenance',
        'Baseline: every 1 min.',
      ],
    ],
    [
      'job paused',
      { status: 'paused', jobPaused: true, nextRunAt: null, nextRunSource: null },
      [
        'The job is paused, so this endpoint does not run until the job is resumed; then the schedule below applies.',
        'Baseline: every 1 min.',
      ],
    ],
    ['archived', { status: 'archived', nextRunAt: null }, ['This endpoint is archived: it no longer runs.']],
    [
      'nothing planned yet',
      { nextRunAt: null, nextRunSource: null, lastRunAt: null },
      ['No run is scheduled yet: the scheduler has not planned one.', 'Baseline: every 1 min.'],
    ],
    [
      'overdue',
      { nextRunAt: at(-30_000) },
      ['Baseline: every 1 min.', 'The next run is overdue by 30 s: it starts as soon as an executor is free.'],
    ],
  ])('%s', (_name, overrides, expected) => {
    expect(explain(endpoint(overrides))).toEqual(expected);
  });
});

describe('explainSchedule: governor clamps', () => {
  it.each<[string, Partial<ScheduleFacts>, string[]]>([
    [
      'hint below the minimum interval',
      {
        nextRunSource: 'ai-interval',
        minIntervalMs: 45_000,
        hints: { interval: intervalHint(10_000), oneShot: null },
      },
      [
        '10 s is below the minimum interval, so the governor keeps runs 45 s apart.',
        'Governor limits: at least 45 s between runs.',
      ],
    ],
    [
      'backoff above the maximum interval',
      { failureCount: 4, backoffMultiplier: 16, maxIntervalMs: 5 * MIN, nextRunAt: at(5 * MIN - 20_000) },
      [
        '16 min is above the maximum interval, so the governor runs it 5 min after the last run.',
        'Governor limits: at most 5 min between runs.',
      ],
    ],
    [
      'within the limits',
      { minIntervalMs: 30_000, maxIntervalMs: 10 * MIN },
      ['Governor limits: at least 30 s and at most 10 min between runs.'],
    ],
    [
      'cron held to the maximum',
      {
        baselineCron: '0 * * * *',
        baselineIntervalMs: null,
        nextRunSource: 'baseline-cron',
        maxIntervalMs: 10 * MIN,
        nextRunAt: at(10 * MIN - 20_000),
      },
      [
        'The governor holds the next run to the maximum interval (10 min after the last run).',
        'Governor limits: at most 10 min between runs.',
      ],
    ],
  ])('%s', (_name, overrides, expectedTail) => {
    const sentences = explain(endpoint(overrides));
    expect(sentences.slice(-expectedTail.length)).toEqual(expectedTail);
  });
});

describe('explainSchedule: cron', () => {
  it('names the expression and zone, skips occurrences under backoff and ignores interval hints', () => {
    const facts = endpoint({
      baselineCron: '*/5 * * * *',
      baselineIntervalMs: null,
      timezone: 'Europe/Paris',
      nextRunSource: 'baseline-cron',
      failureCount: 2,
      backoffMultiplier: 4,
      hints: { interval: intervalHint(30_000), oneShot: null },
    });
    expect(explain(facts)).toEqual([
      'Baseline: cron "*/5 * * * *" (Europe/Paris).',
      '2 failures in a row: backoff 4x skips cron times, so only about every 4th one runs.',
      'The interval hint is ignored: cron-scheduled endpoints do not support interval hints.',
    ]);
  });
});

describe('describeBaseline', () => {
  it.each([
    [{ baselineIntervalMs: 90_000, baselineCron: null, timezone: 'UTC' }, 'every 1 min 30 s'],
    [{ baselineIntervalMs: null, baselineCron: '0 3 * * *', timezone: 'UTC' }, 'cron "0 3 * * *" (UTC)'],
  ])('%o → %s', (facts, text) => expect(describeBaseline(facts)).toBe(text));
});

describe('explainSchedule: calendar', () => {
  it('names the blackout window that moved the next run, and the start of the active period', () => {
    const moved = explain(
      endpoint({ nextRunCalendar: { kind: 'blackout', index: 1, from: at(-MIN), to: at(30_000) } }),
    );
    expect(moved).toContain(
      `Blackout window 2 (${at(-MIN)} to ${at(30_000)}) moved the next run to the first scheduled time after it.`,
    );
    const starting = explain(
      endpoint({ nextRunCalendar: { kind: 'activeFrom', index: null, from: null, to: at(MIN) } }),
    );
    expect(starting).toContain(
      `The endpoint is active from ${at(MIN)}: the next run is the first scheduled time from then.`,
    );
    expect(explain(endpoint()).join(' ')).not.toMatch(/Blackout|active from/);
  });
});
