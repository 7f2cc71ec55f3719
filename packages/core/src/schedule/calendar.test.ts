import { findCalendarHold } from './calendar.js';
import { computeJitteredNextRun, jitterOffsetMs } from './jitter.js';
import { computeNextRun, type ScheduleInput } from './next-run.js';
import { computeUpcomingRuns } from './upcoming.js';
import { scheduleInput, t } from '../../../../test/schedule-input.js';

const ranAt = (time: string): Partial<ScheduleInput> => ({ lastScheduledAt: t(time), lastRunAt: t(time) });
const window = (from: string, to: string) => ({ from: t(from).toISOString(), to: t(to).toISOString() });

describe('calendar windows on an interval baseline', () => {
  it('a window holds the slots inside it: the next run is the first slot after its end, and names it', () => {
    const input = scheduleInput({ ...ranAt('12:02'), blackouts: [window('12:02:30', '12:05:10')] });
    const next = computeNextRun(input, t('12:02'))!;
    expect(next.nextRunAt).toEqual(t('12:06'));
    expect(next.source).toBe('baseline-interval');
    expect(next.explanation.calendar).toEqual({ kind: 'blackout', index: 0, from: t('12:02:30'), to: t('12:05:10') });
  });

  it('a run may start at the very end of a window (windows are half-open)', () => {
    const input = scheduleInput({ ...ranAt('12:02'), blackouts: [window('12:02:30', '12:04')] });
    expect(computeNextRun(input, t('12:02'))!.nextRunAt).toEqual(t('12:04'));
  });

  it('without a calendar, or with windows elsewhere, the run and its explanation are as before', () => {
    const plain = computeNextRun(scheduleInput(ranAt('12:02')), t('12:02'))!;
    const elsewhere = computeNextRun(
      scheduleInput({ ...ranAt('12:02'), blackouts: [window('13:00', '14:00')] }),
      t('12:02'),
    )!;
    expect(elsewhere).toEqual(plain);
    expect(plain.explanation.calendar).toBeUndefined();
  });

  it('overlapping and back-to-back windows: the run waits for the last of them, which it names', () => {
    const input = scheduleInput({
      ...ranAt('12:02'),
      blackouts: [window('12:02:30', '12:04:30'), window('12:04:00', '12:06:30'), window('12:06:30', '12:07:30')],
    });
    const next = computeNextRun(input, t('12:02'))!;
    expect(next.nextRunAt).toEqual(t('12:08'));
    expect(next.explanation.calendar).toMatchObject({ kind: 'blackout', index: 2 });
  });

  it('an overdue run while a window is open waits for the window to end', () => {
    // Down since 12:02; now 12:10:20, inside a window until 12:12:30: not now, but the first slot after it.
    const input = scheduleInput({ ...ranAt('12:02'), blackouts: [window('12:10', '12:12:30')] });
    expect(computeNextRun(input, t('12:10:20'))!.nextRunAt).toEqual(t('12:13'));
    // Once the window is over, the missed slots collapse into one run, at once.
    expect(computeNextRun(input, t('12:14:20'))!.nextRunAt).toEqual(t('12:14'));
  });

  it('a window wins over the max clamp', () => {
    const input = scheduleInput({
      baselineIntervalMs: 600_000,
      maxIntervalMs: 120_000,
      ...ranAt('12:00'),
      blackouts: [window('12:01', '12:05')],
    });
    expect(computeNextRun(input, t('12:00'))!.nextRunAt).toEqual(t('12:05'));
  });

  it('a recurring window on an interval: every 10 minutes for 3 minutes', () => {
    const input = scheduleInput({ blackouts: [{ cron: '*/10 * * * *', durationMs: 180_000 }] });
    const runs = computeUpcomingRuns({ ...input, jitterMs: 0 }, 12, t('12:00:30')).map((run) => run.at);
    // 12:00 (creation) falls in 12:00-12:03: the first run is 12:03, then 12:04 ... 12:09, 12:13 ...
    expect(runs).toEqual(
      ['12:03', '12:04', '12:05', '12:06', '12:07', '12:08', '12:09', '12:13', '12:14', '12:15', '12:16', '12:17'].map(
        t,
      ),
    );
  });
});

describe('calendar windows on a cron baseline, across a DST change', () => {
  // Every hour on the hour in New York, with a blackout every night from 01:00 for two hours of real time.
  const newYork = (overrides: Partial<ScheduleInput>) =>
    scheduleInput({
      baselineIntervalMs: null,
      baselineCron: '0 * * * *',
      timezone: 'America/New_York',
      blackouts: [{ cron: '0 1 * * *', durationMs: 2 * 3_600_000 }],
      ...overrides,
    });

  it.each([
    // EST (UTC-5): the window is 06:00Z-08:00Z; the 01:00 and 02:00 runs are held.
    ['the day before (EST)', '2025-03-08T05:00:00Z', '2025-03-08T08:00:00Z', '2025-03-08T06:00:00.000Z'],
    // The change: 02:00 does not exist; the window opens 01:00 EST (06:00Z) and lasts until 04:00 EDT (08:00Z).
    ['the night of the change', '2025-03-09T05:00:00Z', '2025-03-09T08:00:00Z', '2025-03-09T06:00:00.000Z'],
    // EDT (UTC-4): the window follows the wall clock, 05:00Z-07:00Z.
    ['the day after (EDT)', '2025-03-10T04:00:00Z', '2025-03-10T07:00:00Z', '2025-03-10T05:00:00.000Z'],
  ])('%s', (_name, last, expected, windowFrom) => {
    const next = computeNextRun(newYork({ lastScheduledAt: t(last), lastRunAt: t(last) }), t(last))!;
    expect(next.nextRunAt).toEqual(t(expected));
    expect(next.source).toBe('baseline-cron');
    expect(next.explanation.calendar).toEqual({
      kind: 'blackout',
      index: 0,
      from: new Date(windowFrom),
      to: new Date(new Date(windowFrom).getTime() + 2 * 3_600_000),
    });
  });

  it('the upcoming runs of a day skip the window on both sides of the change', () => {
    const input = newYork({ lastScheduledAt: t('2025-03-09T03:00:00Z'), lastRunAt: t('2025-03-09T03:00:00Z') });
    const runs = computeUpcomingRuns({ ...input, jitterMs: 0 }, 4, t('2025-03-09T03:00:00Z'));
    expect(runs.map((run) => run.at.toISOString())).toEqual([
      '2025-03-09T04:00:00.000Z', // 23:00 EST
      '2025-03-09T05:00:00.000Z', // 00:00 EST
      '2025-03-09T08:00:00.000Z', // 04:00 EDT: 01:00 EST and 03:00 EDT were inside the window
      '2025-03-09T09:00:00.000Z',
    ]);
    expect(runs[2]!.calendar).toMatchObject({ kind: 'blackout', index: 0 });
    expect(runs[3]!.calendar).toBeUndefined();
  });
});

describe('hints and pauses inside a window', () => {
  it("a one-shot hint's time inside a window moves to the window's end", () => {
    const input = scheduleInput({
      ...ranAt('12:00'),
      baselineIntervalMs: 3_600_000,
      hintOneShotAt: t('12:03'),
      hintOneShotExpiresAt: t('13:00'),
      blackouts: [window('12:02', '12:04:30')],
    });
    const next = computeNextRun(input, t('12:00'))!;
    expect(next.nextRunAt).toEqual(t('12:04:30'));
    expect(next.source).toBe('ai-oneshot');
    expect(next.explanation.calendar).toMatchObject({ kind: 'blackout', index: 0 });
  });

  it('a one-shot moved to or past its expiry does not apply: the baseline runs after the window', () => {
    const input = scheduleInput({
      ...ranAt('12:00'),
      baselineIntervalMs: 120_000,
      hintOneShotAt: t('12:01'),
      hintOneShotExpiresAt: t('12:03'),
      blackouts: [window('12:00:30', '12:05:30')],
    });
    const next = computeNextRun(input, t('12:00'))!;
    expect(next.nextRunAt).toEqual(t('12:06'));
    expect(next.source).toBe('baseline-interval');
    expect(next.explanation.hintExpired).toBe(true);
  });

  it("an interval hint's slot inside a window moves to the hint's first slot after it", () => {
    const input = scheduleInput({
      ...ranAt('12:00'),
      baselineIntervalMs: 600_000,
      hintIntervalMs: 90_000,
      hintIntervalExpiresAt: t('13:00'),
      blackouts: [window('12:01', '12:05')],
    });
    const next = computeNextRun(input, t('12:00'))!;
    expect(next.nextRunAt).toEqual(t('12:06')); // 12:00 + 4 × 90 s
    expect(next.source).toBe('ai-interval');
  });

  it("a pause ending inside a window ends at the window's end", () => {
    const input = scheduleInput({
      ...ranAt('12:00'),
      pausedUntil: t('12:10'),
      blackouts: [window('12:09', '12:12:15')],
    });
    const next = computeNextRun(input, t('12:01'))!;
    expect(next.nextRunAt).toEqual(t('12:12:15'));
    expect(next.explanation.rule).toBe('paused');
    expect(next.explanation.calendar).toMatchObject({ kind: 'blackout', index: 0 });
  });
});

describe('the active period', () => {
  it('no run before activeFrom: the first slot at or after it, named as the hold', () => {
    const input = scheduleInput({ activeFrom: t('12:10:30') });
    const next = computeNextRun(input, t('12:00'))!;
    expect(next.nextRunAt).toEqual(t('12:11'));
    expect(next.explanation.calendar).toEqual({ kind: 'activeFrom', from: null, to: t('12:10:30') });
  });

  it('a cron endpoint starts at its first time at or after activeFrom', () => {
    const input = scheduleInput({
      baselineIntervalMs: null,
      baselineCron: '0 9 * * *',
      activeFrom: t('2025-01-20T00:00:00Z'),
    });
    expect(computeNextRun(input, t('12:00'))!.nextRunAt).toEqual(t('2025-01-20T09:00:00Z'));
  });

  it('no run at or after activeUntil: the last slot before it runs, then none', () => {
    const input = scheduleInput({ activeUntil: t('12:03') });
    expect(computeNextRun({ ...input, ...ranAt('12:01') }, t('12:01'))!.nextRunAt).toEqual(t('12:02'));
    expect(computeNextRun({ ...input, ...ranAt('12:02') }, t('12:02'))).toBeNull();
    const runs = computeUpcomingRuns({ ...input, ...ranAt('12:00'), jitterMs: 0 }, 10, t('12:00'));
    expect(runs.map((run) => run.at)).toEqual([t('12:01'), t('12:02')]);
  });

  it('a window reaching past activeUntil leaves no run', () => {
    const input = scheduleInput({
      ...ranAt('12:00'),
      activeUntil: t('12:05'),
      blackouts: [window('12:00:30', '12:06')],
    });
    expect(computeNextRun(input, t('12:00'))).toBeNull();
  });

  it('a calendar with no gap in sight plans no run (bounded, never a loop)', () => {
    const blackouts = [
      { cron: '0 * * * *', durationMs: 1_800_000 },
      { cron: '30 * * * *', durationMs: 1_800_000 },
    ];
    expect(computeNextRun(scheduleInput({ ...ranAt('12:00'), blackouts }), t('12:00'))).toBeNull();
  });
});

describe('jitter and windows', () => {
  it('jitter never moves a run into a window: the offset is cut to just before it', () => {
    const runId = 'run-for-jitter';
    const jitterMs = 30_000;
    const offset = jitterOffsetMs(runId, jitterMs);
    expect(offset).toBeGreaterThan(1); // the case needs a real offset
    // The window opens 1 ms after the planned time: any offset would land inside it.
    const input = {
      ...scheduleInput({ ...ranAt('12:00'), blackouts: [window('12:01:00.001', '12:01:45')] }),
      jitterMs,
      lastScheduledRunId: null,
      lastScheduledRunSource: null,
    };
    const next = computeJitteredNextRun(input, runId, t('12:00'))!;
    expect(next.plannedAt).toEqual(t('12:01'));
    expect(next.nextRunAt).toEqual(t('12:01'));
  });
});

describe('findCalendarHold', () => {
  it('a recurring window opens at its cron time in the zone and lasts durationMs', () => {
    const input = { blackouts: [{ cron: '0 22 * * *', durationMs: 4 * 3_600_000 }] };
    // 22:00 in Berlin (UTC+1 in January) is 21:00Z; open until 01:00Z.
    expect(findCalendarHold(input, 'Europe/Berlin', t('2025-01-15T23:30:00Z'))).toMatchObject({
      from: t('2025-01-15T21:00:00Z'),
      to: t('2025-01-16T01:00:00Z'),
    });
    expect(findCalendarHold(input, 'Europe/Berlin', t('2025-01-16T01:00:00Z'))).toBeNull();
    expect(findCalendarHold(input, 'Europe/Berlin', t('2025-01-15T20:59:59Z'))).toBeNull();
  });
});
