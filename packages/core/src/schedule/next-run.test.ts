import { AppError } from '../errors.js';
import { computeNextRun } from './next-run.js';
import type { NextRun, RunSource, ScheduleInput, ScheduleRule } from './next-run.js';
import { scheduleInput, t } from '../../../../test/schedule-input.js';

/** A run that was planned at `scheduled` and started at `started`. */
const ranAt = (scheduled: string, started: string): Partial<ScheduleInput> => ({
  lastScheduledAt: t(scheduled),
  lastRunAt: t(started),
});

function expected(
  nextRunAt: string,
  source: RunSource,
  rule: ScheduleRule,
  explanation: Partial<NextRun['explanation']> = {},
): NextRun {
  return {
    nextRunAt: t(nextRunAt),
    source,
    explanation: { rule, backoffMultiplier: 1, clamped: null, pausedUntil: null, hintExpired: false, ...explanation },
  };
}

type Row = [string, Partial<ScheduleInput>, string, NextRun];

const cases = (rows: Row[]) =>
  it.each(rows)('%s', (_name, overrides, now, result) => {
    expect(computeNextRun(scheduleInput(overrides), t(now))).toEqual(result);
  });

describe('computeNextRun: baseline interval (rule 5)', () => {
  cases([
    [
      'first run: at creation (starts executing immediately)',
      {},
      '12:00',
      expected('12:00', 'baseline-interval', 'interval'),
    ],
    [
      'anchored to the planned time, not the late start (no drift)',
      ranAt('12:01', '12:01:07'),
      '12:01:08',
      expected('12:02', 'baseline-interval', 'interval'),
    ],
    [
      'success after failures restores the interval at once',
      { ...ranAt('12:04', '12:04:01'), failureCount: 0 },
      '12:04:02',
      expected('12:05', 'baseline-interval', 'interval'),
    ],
    [
      'downtime: missed slots collapse into the latest slot <= now',
      ranAt('12:00', '12:00:01'),
      '12:10:30',
      expected('12:10', 'baseline-interval', 'interval'),
    ],
    [
      'downtime ending exactly on a slot',
      ranAt('12:00', '12:00:01'),
      '12:10',
      expected('12:10', 'baseline-interval', 'interval'),
    ],
    [
      'after the catch-up run the following slot is in the future',
      ranAt('12:10', '12:10:30'),
      '12:10:31',
      expected('12:11', 'baseline-interval', 'interval'),
    ],
    [
      'slots passed before a late run started are served by it',
      { ...ranAt('11:00', '12:00:00.500'), baselineIntervalMs: 300_000 },
      '12:00:01',
      expected('12:05', 'baseline-interval', 'interval'),
    ],
    [
      'downtime under backoff collapses on the backed-off grid',
      { ...ranAt('12:00', '12:00:01'), failureCount: 2 },
      '12:30:30',
      expected('12:28', 'baseline-interval', 'interval', { backoffMultiplier: 4 }),
    ],
  ]);

  it.each([
    [1, 2, '12:02'],
    [2, 4, '12:04'],
    [3, 8, '12:08'],
    [4, 16, '12:16'],
    [5, 32, '12:32'],
    [9, 32, '12:32'],
  ])('failureCount %i multiplies the interval by %i', (failureCount, multiplier, nextRunAt) => {
    const input = scheduleInput({ ...ranAt('12:00', '12:00:01'), failureCount });
    expect(computeNextRun(input, t('12:00:02'))).toEqual(
      expected(nextRunAt, 'baseline-interval', 'interval', { backoffMultiplier: multiplier }),
    );
  });
});

describe('computeNextRun: baseline cron (rule 4)', () => {
  const cron = { baselineCron: '*/5 * * * *', baselineIntervalMs: null };
  cases([
    [
      'first occurrence after createdAt',
      { ...cron, createdAt: t('12:01') },
      '12:01',
      expected('12:05', 'baseline-cron', 'cron'),
    ],
    [
      'next occurrence after the anchor',
      { ...cron, ...ranAt('12:05', '12:05:02') },
      '12:05:03',
      expected('12:10', 'baseline-cron', 'cron'),
    ],
    [
      'backoff 2x skips one occurrence',
      { ...cron, ...ranAt('12:05', '12:05:02'), failureCount: 1 },
      '12:05:03',
      expected('12:15', 'baseline-cron', 'cron', { backoffMultiplier: 2 }),
    ],
    [
      'backoff 4x',
      { ...cron, ...ranAt('12:05', '12:05:02'), failureCount: 2 },
      '12:05:03',
      expected('12:25', 'baseline-cron', 'cron', { backoffMultiplier: 4 }),
    ],
    [
      'backoff 32x cap',
      { ...cron, ...ranAt('12:05', '12:05:02'), failureCount: 7 },
      '12:05:03',
      expected('14:45', 'baseline-cron', 'cron', { backoffMultiplier: 32 }),
    ],
    [
      'backoff from an off-grid anchor: first occurrence at or after anchor + 2 x 4 min',
      { ...cron, createdAt: t('12:01'), failureCount: 1 },
      '12:01',
      expected('12:10', 'baseline-cron', 'cron', { backoffMultiplier: 2 }),
    ],
    [
      'downtime: missed occurrences collapse into the latest <= now',
      { ...cron, ...ranAt('12:05', '12:05:01') },
      '13:02',
      expected('13:00', 'baseline-cron', 'cron'),
    ],
    [
      'in the endpoint time zone',
      { baselineCron: '0 9 * * *', baselineIntervalMs: null, timezone: 'Europe/Berlin' },
      '12:00',
      expected('2025-01-16T08:00:00Z', 'baseline-cron', 'cron'),
    ],
    [
      'cron endpoints ignore interval hints',
      { ...cron, ...ranAt('12:05', '12:05:02'), hintIntervalMs: 10_000, hintIntervalExpiresAt: t('13:00') },
      '12:05:03',
      expected('12:10', 'baseline-cron', 'cron'),
    ],
    [
      'cron wins when both baselines are set',
      { baselineCron: '*/5 * * * *', baselineIntervalMs: 60_000, ...ranAt('12:05', '12:05:02') },
      '12:05:03',
      expected('12:10', 'baseline-cron', 'cron'),
    ],
  ]);
});

describe('computeNextRun: interval hint (rule 3)', () => {
  const hint = (intervalMs: number, expiresAt: string) => ({
    hintIntervalMs: intervalMs,
    hintIntervalExpiresAt: t(expiresAt),
  });
  cases([
    [
      'active hint replaces the baseline',
      { ...ranAt('12:00', '12:00:01'), ...hint(10_000, '13:00') },
      '12:00:02',
      expected('12:00:10', 'ai-interval', 'interval-hint'),
    ],
    [
      'a hint overrides backoff too',
      { ...ranAt('12:00', '12:00:01'), ...hint(10_000, '13:00'), failureCount: 3 },
      '12:00:02',
      expected('12:00:10', 'ai-interval', 'interval-hint'),
    ],
    [
      'anchored to the planned time',
      { ...ranAt('12:00:10', '12:00:13'), ...hint(10_000, '13:00') },
      '12:00:14',
      expected('12:00:20', 'ai-interval', 'interval-hint'),
    ],
    [
      'expired hint is ignored and reported',
      { ...ranAt('12:00', '12:00:01'), ...hint(10_000, '12:00:01') },
      '12:00:02',
      expected('12:01', 'baseline-interval', 'interval', { hintExpired: true }),
    ],
    [
      'hint expiring at now is already gone',
      { ...ranAt('12:00', '12:00:01'), ...hint(10_000, '12:00:02') },
      '12:00:02',
      expected('12:01', 'baseline-interval', 'interval', { hintExpired: true }),
    ],
    [
      'hint expiring mid-interval: the baseline resumes at the expiry',
      { ...ranAt('12:00', '12:00:01'), ...hint(30 * 60_000, '12:10') },
      '12:00:02',
      expected('12:10', 'baseline-interval', 'interval', { hintExpired: true }),
    ],
    [
      'hint expiring mid-interval, baseline slot later than the expiry',
      { ...ranAt('12:00', '12:00:01'), ...hint(30 * 60_000, '12:10'), baselineIntervalMs: 20 * 60_000 },
      '12:00:02',
      expected('12:20', 'baseline-interval', 'interval', { hintExpired: true }),
    ],
    [
      'a hint slot exactly at the expiry is not a hint run',
      { ...ranAt('12:00', '12:00:01'), ...hint(10 * 60_000, '12:10') },
      '12:00:02',
      expected('12:10', 'baseline-interval', 'interval', { hintExpired: true }),
    ],
    [
      'downtime under a hint collapses on the hint grid',
      { ...ranAt('12:00', '12:00:01'), ...hint(10_000, '13:00') },
      '12:05:05',
      expected('12:05', 'ai-interval', 'interval-hint'),
    ],
    [
      'a hint without an expiry never applies',
      { ...ranAt('12:00', '12:00:01'), hintIntervalMs: 10_000, hintIntervalExpiresAt: null },
      '12:00:02',
      expected('12:01', 'baseline-interval', 'interval', { hintExpired: true }),
    ],
  ]);
});

describe('computeNextRun: one-shot hint (rule 2)', () => {
  const oneShot = (at: string, expiresAt: string) => ({ hintOneShotAt: t(at), hintOneShotExpiresAt: t(expiresAt) });
  cases([
    [
      'future one-shot',
      { ...ranAt('12:00', '12:00:01'), ...oneShot('12:00:30', '13:00') },
      '12:00:02',
      expected('12:00:30', 'ai-oneshot', 'one-shot'),
    ],
    [
      'one-shot takes priority even when later than the baseline slot',
      { ...ranAt('12:00', '12:00:01'), ...oneShot('12:30', '13:00') },
      '12:00:02',
      expected('12:30', 'ai-oneshot', 'one-shot'),
    ],
    [
      'one-shot takes priority over an interval hint',
      {
        ...ranAt('12:00', '12:00:01'),
        ...oneShot('12:00:30', '13:00'),
        hintIntervalMs: 10_000,
        hintIntervalExpiresAt: t('13:00'),
      },
      '12:00:02',
      expected('12:00:30', 'ai-oneshot', 'one-shot'),
    ],
    [
      'overdue one-shot is returned as is (runs once, now)',
      { ...ranAt('11:45', '11:45:01'), baselineIntervalMs: 3_600_000, ...oneShot('11:50', '13:00') },
      '12:00',
      expected('11:50', 'ai-oneshot', 'one-shot'),
    ],
    [
      'consumed one-shot (at or before lastScheduledAt) is ignored',
      { ...ranAt('12:00:30', '12:00:31'), ...oneShot('12:00:30', '13:00') },
      '12:00:32',
      expected('12:01:30', 'baseline-interval', 'interval'),
    ],
    [
      'expired one-shot is ignored and reported',
      { ...ranAt('12:00', '12:00:01'), ...oneShot('12:00:30', '12:00:01') },
      '12:00:02',
      expected('12:01', 'baseline-interval', 'interval', { hintExpired: true }),
    ],
    [
      'a one-shot due after its own expiry never applies',
      { ...ranAt('12:00', '12:00:01'), ...oneShot('12:30', '12:20') },
      '12:00:02',
      expected('12:01', 'baseline-interval', 'interval', { hintExpired: true }),
    ],
    [
      'a min clamp pushing the one-shot past its expiry drops it',
      { ...ranAt('12:00', '12:00:01'), ...oneShot('12:00:05', '12:00:20'), minIntervalMs: 30_000 },
      '12:00:02',
      expected('12:01', 'baseline-interval', 'interval', { hintExpired: true }),
    ],
  ]);
});

describe('computeNextRun: pause (rule 1)', () => {
  cases([
    [
      'paused: the pause-until time, source from the rules at that time',
      { ...ranAt('12:00', '12:00:01'), pausedUntil: t('14:00') },
      '12:00:02',
      expected('14:00', 'baseline-interval', 'paused', { pausedUntil: t('14:00') }),
    ],
    [
      'paused for a cron endpoint',
      { baselineCron: '*/5 * * * *', baselineIntervalMs: null, pausedUntil: t('14:00') },
      '12:00:02',
      expected('14:00', 'baseline-cron', 'paused', { pausedUntil: t('14:00') }),
    ],
    [
      'a one-shot still active at the pause end gives the source',
      {
        ...ranAt('12:00', '12:00:01'),
        pausedUntil: t('14:00'),
        hintOneShotAt: t('13:00'),
        hintOneShotExpiresAt: t('15:00'),
      },
      '12:00:02',
      expected('14:00', 'ai-oneshot', 'paused', { pausedUntil: t('14:00') }),
    ],
    [
      // The run at the pause end is not the one-shot's (which still runs at its own time; recording an
      // ai-oneshot run would clear it): the rules without the one-shot name it.
      'a one-shot due after the pause end does not give the source',
      {
        ...ranAt('12:00', '12:00:01'),
        pausedUntil: t('14:00'),
        hintOneShotAt: t('14:30'),
        hintOneShotExpiresAt: t('15:00'),
      },
      '12:00:02',
      expected('14:00', 'baseline-interval', 'paused', { pausedUntil: t('14:00') }),
    ],
    [
      'a one-shot due by the floored pause end gives the source',
      {
        ...ranAt('12:00', '12:00:01'),
        minIntervalMs: 7_200_000,
        pausedUntil: t('13:00'),
        hintOneShotAt: t('13:30'),
        hintOneShotExpiresAt: t('15:00'),
      },
      '12:00:02',
      expected('14:00:01', 'ai-oneshot', 'paused', { pausedUntil: t('13:00'), clamped: 'min' }),
    ],
    [
      'the minIntervalMs floor holds at the pause end',
      { ...ranAt('12:00', '12:00:01'), minIntervalMs: 7_200_000, pausedUntil: t('13:00') },
      '12:00:02',
      expected('14:00:01', 'baseline-interval', 'paused', { pausedUntil: t('13:00'), clamped: 'min' }),
    ],
    [
      'and gives the time the rules give once the pause is over',
      { ...ranAt('12:00', '12:00:01'), minIntervalMs: 7_200_000, pausedUntil: t('13:00') },
      '13:00',
      expected('14:00:01', 'baseline-interval', 'interval', { clamped: 'min' }),
    ],
    [
      'a hint that expires during the pause does not give the source',
      {
        ...ranAt('12:00', '12:00:01'),
        pausedUntil: t('14:00'),
        hintIntervalMs: 10_000,
        hintIntervalExpiresAt: t('13:00'),
      },
      '12:00:02',
      expected('14:00', 'baseline-interval', 'paused', { pausedUntil: t('14:00'), hintExpired: true }),
    ],
    [
      'a pause is not cut short by the max clamp',
      { ...ranAt('12:00', '12:00:01'), maxIntervalMs: 600_000, pausedUntil: t('14:00') },
      '12:00:02',
      expected('14:00', 'baseline-interval', 'paused', { pausedUntil: t('14:00') }),
    ],
    [
      'a past pause is ignored',
      { ...ranAt('12:00', '12:00:01'), pausedUntil: t('11:00') },
      '12:00:02',
      expected('12:01', 'baseline-interval', 'interval'),
    ],
    [
      'a pause ending now is over',
      { ...ranAt('12:00', '12:00:01'), pausedUntil: t('12:00:02') },
      '12:00:02',
      expected('12:01', 'baseline-interval', 'interval'),
    ],
  ]);
});

describe('computeNextRun: clamps', () => {
  cases([
    [
      'min: not sooner than lastRunAt + minIntervalMs',
      { ...ranAt('12:00', '12:00:01'), minIntervalMs: 300_000 },
      '12:00:02',
      expected('12:05:01', 'baseline-interval', 'interval', { clamped: 'min' }),
    ],
    [
      'max: not later than lastRunAt + maxIntervalMs',
      { ...ranAt('12:00', '12:00:01'), baselineIntervalMs: 3_600_000, maxIntervalMs: 600_000 },
      '12:00:02',
      expected('12:10:01', 'baseline-interval', 'interval', { clamped: 'max' }),
    ],
    [
      'max already past: due now, not at a past instant',
      { ...ranAt('12:00', '12:00:01'), baselineIntervalMs: 3_600_000, maxIntervalMs: 600_000 },
      '12:30',
      expected('12:30', 'baseline-interval', 'interval', { clamped: 'max' }),
    ],
    [
      'max does not move an overdue slot',
      { ...ranAt('12:00', '12:00:01'), baselineIntervalMs: 3_600_000, maxIntervalMs: 600_000 },
      '14:30',
      expected('14:00', 'baseline-interval', 'interval'),
    ],
    [
      'max caps backoff',
      { ...ranAt('12:00', '12:00:01'), failureCount: 5, maxIntervalMs: 600_000 },
      '12:00:02',
      expected('12:10:01', 'baseline-interval', 'interval', { clamped: 'max', backoffMultiplier: 32 }),
    ],
    [
      'no clamps before the first run',
      { minIntervalMs: 300_000 },
      '12:00',
      expected('12:00', 'baseline-interval', 'interval'),
    ],
    [
      'min wins when min > max',
      { ...ranAt('12:00', '12:00:01'), minIntervalMs: 300_000, maxIntervalMs: 120_000, baselineIntervalMs: 3_600_000 },
      '12:00:02',
      expected('12:05:01', 'baseline-interval', 'interval', { clamped: 'min' }),
    ],
    [
      'min applies to interval hints',
      {
        ...ranAt('12:00', '12:00:01'),
        minIntervalMs: 30_000,
        hintIntervalMs: 10_000,
        hintIntervalExpiresAt: t('13:00'),
      },
      '12:00:02',
      expected('12:00:31', 'ai-interval', 'interval-hint', { clamped: 'min' }),
    ],
    [
      'min applies to an overdue one-shot',
      {
        ...ranAt('11:59:50', '11:59:50'),
        minIntervalMs: 30_000,
        hintOneShotAt: t('11:59:55'),
        hintOneShotExpiresAt: t('13:00'),
      },
      '12:00',
      expected('12:00:20', 'ai-oneshot', 'one-shot', { clamped: 'min' }),
    ],
    [
      'max applies to cron',
      { baselineCron: '0 * * * *', baselineIntervalMs: null, ...ranAt('12:00', '12:00:01'), maxIntervalMs: 600_000 },
      '12:00:02',
      expected('12:10:01', 'baseline-cron', 'cron', { clamped: 'max' }),
    ],
  ]);
});

describe('computeNextRun: DST', () => {
  cases([
    [
      'cron on the New York spring-forward day: skipped 02:30 runs at 03:00 EDT',
      {
        baselineCron: '30 2 * * *',
        baselineIntervalMs: null,
        timezone: 'America/New_York',
        ...ranAt('2025-03-08T07:30:00Z', '2025-03-08T07:30:01Z'),
      },
      '2025-03-08T07:30:02Z',
      expected('2025-03-09T07:00:00Z', 'baseline-cron', 'cron'),
    ],
    [
      'cron on the Berlin fall-back day: 02:30 runs once, in CEST',
      {
        baselineCron: '30 2 * * *',
        baselineIntervalMs: null,
        timezone: 'Europe/Berlin',
        ...ranAt('2025-10-25T00:30:00Z', '2025-10-25T00:30:01Z'),
      },
      '2025-10-25T00:30:02Z',
      expected('2025-10-26T00:30:00Z', 'baseline-cron', 'cron'),
    ],
    [
      'cron on the Berlin fall-back day, after the first 02:30: next is the following day',
      {
        baselineCron: '30 2 * * *',
        baselineIntervalMs: null,
        timezone: 'Europe/Berlin',
        ...ranAt('2025-10-26T00:30:00Z', '2025-10-26T00:30:01Z'),
      },
      '2025-10-26T00:30:02Z',
      expected('2025-10-27T01:30:00Z', 'baseline-cron', 'cron'),
    ],
    [
      'intervals are absolute: 1 h across spring-forward is 1 real hour',
      {
        baselineIntervalMs: 3_600_000,
        timezone: 'America/New_York',
        ...ranAt('2025-03-09T06:30:00Z', '2025-03-09T06:30:01Z'),
      },
      '2025-03-09T06:30:02Z',
      expected('2025-03-09T07:30:00Z', 'baseline-interval', 'interval'),
    ],
  ]);
});

describe('computeNextRun: invalid input', () => {
  it.each([
    ['no baseline', { baselineIntervalMs: null, baselineCron: null }],
    ['a non-positive interval', { baselineIntervalMs: 0 }],
    ['an invalid cron expression', { baselineIntervalMs: null, baselineCron: '61 * * * *' }],
  ])('%s throws VALIDATION_ERROR', (_name, overrides) => {
    let thrown: unknown = null;
    try {
      computeNextRun(scheduleInput(overrides), t('12:00'));
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(AppError);
    expect(thrown).toMatchObject({ code: 'VALIDATION_ERROR' });
  });
});

describe('computeNextRun: hints a response rule set (origin rule)', () => {
  cases([
    [
      "a rule's interval hint: last run + its interval, source rule-interval",
      {
        ...ranAt('12:00', '12:00'),
        hintIntervalMs: 10_000,
        hintIntervalExpiresAt: t('12:00:20'),
        hintIntervalOrigin: 'rule',
      },
      '12:00:01',
      expected('12:00:10', 'rule-interval', 'interval-hint'),
    ],
    [
      "a rule's one-shot (another endpoint's runEndpoint): at its time, source rule",
      {
        ...ranAt('12:00', '12:00'),
        hintOneShotAt: t('12:00:30'),
        hintOneShotExpiresAt: t('13:00'),
        hintOneShotOrigin: 'rule',
      },
      '12:00:30',
      expected('12:00:30', 'rule', 'one-shot'),
    ],
    [
      'a planner hint keeps its source',
      {
        ...ranAt('12:00', '12:00'),
        hintIntervalMs: 10_000,
        hintIntervalExpiresAt: t('12:00:20'),
        hintIntervalOrigin: 'planner',
      },
      '12:00:01',
      expected('12:00:10', 'ai-interval', 'interval-hint'),
    ],
  ]);
});
