import { describe, expect, it } from 'vitest';
import {
  formatLatenessMs,
  groupRunsBySource,
  percent,
  summariseLateness,
  summariseRunsOverTime,
  summariseSources,
} from './dashboard-stats';

describe('groupRunsBySource', () => {
  it('groups baseline, AI and test sources in that order, leaving out empty ones', () => {
    const grouping = groupRunsBySource({
      test: 5,
      'ai-oneshot': 2,
      'baseline-cron': 0,
      'baseline-interval': 120,
      'ai-interval': 23,
    });
    expect(grouping.total).toBe(150);
    expect(grouping.rows).toEqual([
      { group: 'Baseline', total: 120, 'baseline-interval': 120 },
      { group: 'AI', total: 25, 'ai-interval': 23, 'ai-oneshot': 2 },
      { group: 'Test', total: 5, test: 5 },
    ]);
    expect(grouping.series.map((series) => series.source)).toEqual([
      'baseline-interval',
      'ai-interval',
      'ai-oneshot',
      'test',
    ]);
  });

  it('keeps sources it does not know (the list is open) under Other', () => {
    const grouping = groupRunsBySource({ 'baseline-cron': 1, replay: 3 });
    expect(grouping.rows.at(-1)).toEqual({ group: 'Other', total: 3, replay: 3 });
    expect(grouping.series.at(-1)).toMatchObject({ source: 'replay', label: 'replay', group: 'Other' });
  });

  it('is empty without runs', () => {
    expect(groupRunsBySource({})).toEqual({ rows: [], series: [], total: 0 });
  });
});

describe('summariseSources', () => {
  it.each([
    [{}, 'No runs in this range.'],
    [{ 'baseline-cron': 1 }, 'Baseline 1 run (100%).'],
    [
      { 'baseline-cron': 120, 'ai-interval': 25, test: 5 },
      'Baseline 120 runs (80%), AI 25 runs (17%), Test 5 runs (3.3%).',
    ],
  ])('%j → %s', (runsBySource, text) => expect(summariseSources(groupRunsBySource(runsBySource))).toBe(text));
});

describe('percent', () => {
  it.each([
    [0, 0, '0%'],
    [0, 10, '0%'],
    [1, 3, '33%'],
    [1, 200, '0.5%'],
    [10, 10, '100%'],
    [6, 100, '6%'],
    [1, 100_000, '0%'],
  ])('%d of %d → %s', (part, whole, text) => expect(percent(part, whole)).toBe(text));
});

describe('formatLatenessMs', () => {
  it.each([
    [0, '0 ms'],
    [781.4, '781 ms'],
    [1000, '1 s'],
    [2740, '2.7 s'],
    [9_960, '10 s'],
    [12_400, '12 s'],
    [90_000, '1 min 30 s'],
  ])('%d → %s', (ms, text) => expect(formatLatenessMs(ms)).toBe(text));
});

describe('summariseLateness', () => {
  it.each([
    [
      { runs: 0, p50Ms: 0, p95Ms: 0, p99Ms: 0, maxMs: 0 },
      'No scheduled runs in this range, so no lateness to measure.',
    ],
    [
      { runs: 1200, p50Ms: 40, p95Ms: 850, p99Ms: 2500, maxMs: 90_000 },
      'Of 1,200 scheduled runs, half started within 40 ms of their planned time, 95% within 850 ms and 99% within 2.5 s; the latest started 1 min 30 s late.',
    ],
    [
      { runs: 1, p50Ms: 5, p95Ms: 5, p99Ms: 5, maxMs: 5 },
      'Of 1 scheduled run, half started within 5 ms of their planned time, 95% within 5 ms and 99% within 5 ms; the latest started 5 ms late.',
    ],
  ])('%j', (lateness, text) => expect(summariseLateness(lateness)).toBe(text));
});

describe('summariseRunsOverTime', () => {
  it('says there were no runs', () => {
    expect(summariseRunsOverTime([{ date: '2026-11-21', success: 0, failed: 0 }])).toBe('No runs in this range.');
    expect(summariseRunsOverTime([])).toBe('No runs in this range.');
  });

  it('counts successes and failures and names the busiest day', () => {
    const text = summariseRunsOverTime([
      { date: '2026-11-21', success: 10, failed: 0 },
      { date: '2026-11-22', success: 30, failed: 10 },
      { date: '2026-11-23', success: 5, failed: 1 },
    ]);
    expect(text).toMatch(/^56 runs from .+ to .+: 45 succeeded, 11 failed\. Busiest day: .+ \(40 runs\)\.$/);
  });

  it('has no busiest day for a one-day range', () => {
    expect(summariseRunsOverTime([{ date: '2026-11-21', success: 1, failed: 1 }])).toMatch(
      /^2 runs on .+: 1 succeeded, 1 failed\.$/,
    );
  });
});
