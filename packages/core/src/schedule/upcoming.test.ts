import { backoffMultiplier } from './backoff.js';
import { computeNextRun, type ScheduleInput } from './next-run.js';
import { computeUpcomingRuns, UPCOMING_MAX_COUNT } from './upcoming.js';
import { scheduleInput } from '../../../../test/schedule-input.js';

const at = (iso: string) => new Date(iso);

/** An endpoint at a 60 s interval, created at 11:00, its last run at 12:00, no jitter. */
function buildInput(
  overrides: Partial<ScheduleInput & { jitterMs: number }> = {},
): ScheduleInput & { jitterMs: number } {
  return {
    ...scheduleInput({
      lastScheduledAt: at('2025-01-15T12:00:00Z'),
      lastRunAt: at('2025-01-15T12:00:00Z'),
      createdAt: at('2025-01-15T11:00:00Z'),
    }),
    jitterMs: 0,
    ...overrides,
  };
}

const times = (runs: { at: Date }[]) => runs.map((run) => run.at.toISOString());

describe('computeUpcomingRuns', () => {
  it('an interval endpoint: one run per interval after the last, the first equal to the next run', () => {
    const input = buildInput();
    const now = at('2025-01-15T12:00:30Z');
    const runs = computeUpcomingRuns(input, 3, now);
    expect(runs[0]!.at).toEqual(computeNextRun(input, now)!.nextRunAt);
    expect(times(runs)).toEqual(['2025-01-15T12:01:00.000Z', '2025-01-15T12:02:00.000Z', '2025-01-15T12:03:00.000Z']);
    expect(runs.every((run) => run.source === 'baseline-interval')).toBe(true);
  });

  it('a daily cron in America/New_York keeps 09:00 local across the end of daylight saving time', () => {
    const input = buildInput({
      baselineIntervalMs: null,
      baselineCron: '0 9 * * *',
      timezone: 'America/New_York',
      lastScheduledAt: at('2026-10-30T13:00:00Z'),
      lastRunAt: at('2026-10-30T13:00:00Z'),
    });
    const runs = computeUpcomingRuns(input, 3, at('2026-10-30T20:00:00Z'));
    // 09:00 EDT is 13:00 UTC; from 1 November 09:00 EST is 14:00 UTC.
    expect(times(runs)).toEqual(['2026-10-31T13:00:00.000Z', '2026-11-01T14:00:00.000Z', '2026-11-02T14:00:00.000Z']);
    expect(runs.every((run) => run.source === 'baseline-cron')).toBe(true);
  });

  it('an active interval hint governs until its expiry, then the baseline returns', () => {
    const input = buildInput({
      hintIntervalMs: 10_000,
      hintIntervalExpiresAt: at('2025-01-15T12:00:35Z'),
    });
    const runs = computeUpcomingRuns(input, 5, at('2025-01-15T12:00:01Z'));
    expect(runs.map((run) => [run.at.toISOString(), run.source])).toEqual([
      ['2025-01-15T12:00:10.000Z', 'ai-interval'],
      ['2025-01-15T12:00:20.000Z', 'ai-interval'],
      ['2025-01-15T12:00:30.000Z', 'ai-interval'],
      ['2025-01-15T12:01:30.000Z', 'baseline-interval'],
      ['2025-01-15T12:02:30.000Z', 'baseline-interval'],
    ]);
  });

  it('a pause, then a one-shot hint, then the baseline', () => {
    const input = buildInput({
      pausedUntil: at('2025-01-15T12:05:00Z'),
      hintOneShotAt: at('2025-01-15T12:07:00Z'),
      hintOneShotExpiresAt: at('2025-01-15T13:00:00Z'),
    });
    const runs = computeUpcomingRuns(input, 3, at('2025-01-15T12:00:30Z'));
    expect(runs.map((run) => [run.at.toISOString(), run.source])).toEqual([
      ['2025-01-15T12:05:00.000Z', 'baseline-interval'],
      ['2025-01-15T12:07:00.000Z', 'ai-oneshot'],
      ['2025-01-15T12:08:00.000Z', 'baseline-interval'],
    ]);
  });

  it('backoff in force stays in force', () => {
    const input = buildInput({ failureCount: 2 });
    const runs = computeUpcomingRuns(input, 3, at('2025-01-15T12:00:30Z'));
    const step = 60_000 * backoffMultiplier(2);
    expect(step).toBeGreaterThan(60_000);
    expect(runs.map((run) => run.at.getTime() - at('2025-01-15T12:00:00Z').getTime())).toEqual([
      step,
      2 * step,
      3 * step,
    ]);
  });

  it('with jitter and a known first run id, the first time is the jittered one, later ones the planned times', () => {
    const input = buildInput({ jitterMs: 20_000 } as Partial<ScheduleInput>);
    const now = at('2025-01-15T12:00:30Z');
    const runs = computeUpcomingRuns(input, 2, now, '0b5d8e2c-1111-4222-8333-944445555666');
    expect(runs[0]!.at.getTime()).toBeGreaterThanOrEqual(at('2025-01-15T12:01:00Z').getTime());
    expect(runs[0]!.at.getTime()).toBeLessThanOrEqual(at('2025-01-15T12:01:20Z').getTime());
    expect(runs[1]!.at.toISOString()).toBe('2025-01-15T12:02:00.000Z');
  });

  it('answers as many runs as asked', () => {
    expect(computeUpcomingRuns(buildInput(), UPCOMING_MAX_COUNT, at('2025-01-15T12:00:30Z'))).toHaveLength(100);
  });
});
