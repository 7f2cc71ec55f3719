/**
 * Pure shaping of GET /api/dashboard figures for the charts, and the sentences that summarise
 * each chart for people who cannot see it (they are the charts' accessible descriptions).
 */
import { formatDuration } from '../lib/time';
import { formatDay } from './dashboard-range';

export type SourceGroup = 'Baseline' | 'AI' | 'Test' | 'Other';

interface SourceInfo {
  label: string;
  group: SourceGroup;
  color: string;
}

/** Run sources (an open list): baseline schedules, planner hints and test runs. */
export const SOURCES: Record<string, SourceInfo> = {
  'baseline-cron': { label: 'Baseline cron', group: 'Baseline', color: '#0a5a8c' },
  'baseline-interval': { label: 'Baseline interval', group: 'Baseline', color: '#2f8fd6' },
  'ai-interval': { label: 'AI interval hint', group: 'AI', color: '#6639ba' },
  'ai-oneshot': { label: 'AI one-shot hint', group: 'AI', color: '#a371f7' },
  test: { label: 'Test run', group: 'Test', color: '#b35c00' },
};

const OTHER_COLORS = ['#57606a', '#6e7781', '#424a53'];
export const GROUP_ORDER: SourceGroup[] = ['Baseline', 'AI', 'Test', 'Other'];

export interface SourceSeries {
  source: string;
  label: string;
  group: SourceGroup;
  color: string;
}

export interface SourceGrouping {
  /** One row per group that has runs: { group, total, <source>: count … } (the stacked bars). */
  rows: ({ group: SourceGroup; total: number } & Record<string, number | string>)[];
  /** The sources that have runs, in group order (one stacked series each). */
  series: SourceSeries[];
  total: number;
}

export function describeSource(source: string, otherIndex = 0): SourceInfo {
  return SOURCES[source] ?? { label: source, group: 'Other', color: OTHER_COLORS[otherIndex % OTHER_COLORS.length]! };
}

/** Groups runsBySource into baseline, AI, test and other, leaving out sources without runs. */
export function groupRunsBySource(runsBySource: Record<string, number>): SourceGrouping {
  const known = Object.keys(SOURCES);
  const unknown = Object.keys(runsBySource)
    .filter((source) => !known.includes(source))
    .sort();
  const series = [...known, ...unknown]
    .filter((source) => (runsBySource[source] ?? 0) > 0)
    .map((source) => ({ source, ...describeSource(source, unknown.indexOf(source)) }));
  const rows: SourceGrouping['rows'] = [];
  for (const group of GROUP_ORDER) {
    const members = series.filter((item) => item.group === group);
    if (members.length === 0) continue;
    const row: SourceGrouping['rows'][number] = { group, total: 0 };
    for (const member of members) {
      row[member.source] = runsBySource[member.source]!;
      row.total += runsBySource[member.source]!;
    }
    rows.push(row);
  }
  return { rows, series, total: rows.reduce((sum, row) => sum + row.total, 0) };
}

export function percent(part: number, whole: number): string {
  if (whole === 0) return '0%';
  const value = (part / whole) * 100;
  return `${value >= 10 ? Math.round(value) : Number(value.toFixed(1))}%`;
}

/** "Baseline 120 runs (80%), AI 25 runs (17%), Test 5 runs (3%)." */
export function summariseSources(grouping: SourceGrouping): string {
  if (grouping.total === 0) return 'No runs in this range.';
  const parts = grouping.rows.map(
    (row) => `${row.group} ${plural(row.total, 'run')} (${percent(row.total, grouping.total)})`,
  );
  return `${parts.join(', ')}.`;
}

export interface Lateness {
  runs: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  maxMs: number;
}

export function latenessBars(lateness: Lateness) {
  return [
    { label: 'p50', ms: lateness.p50Ms },
    { label: 'p95', ms: lateness.p95Ms },
    { label: 'p99', ms: lateness.p99Ms },
    { label: 'max', ms: lateness.maxMs },
  ];
}

/** Lateness is mostly under a few seconds: "781 ms", "2.7 s", "12 s", then "1 min 30 s". */
export function formatLatenessMs(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 10_000) return `${(Math.round(ms / 100) / 10).toString()} s`;
  if (ms < 60_000) return `${Math.round(ms / 1000)} s`;
  return formatDuration(ms);
}

/** How late scheduled runs started (startedAt − scheduledAt), in one sentence. */
export function summariseLateness(lateness: Lateness): string {
  if (lateness.runs === 0) return 'No scheduled runs in this range, so no lateness to measure.';
  const d = formatLatenessMs;
  return (
    `Of ${plural(lateness.runs, 'scheduled run')}, half started within ${d(lateness.p50Ms)} of their planned time, ` +
    `95% within ${d(lateness.p95Ms)} and 99% within ${d(lateness.p99Ms)}; the latest started ${d(lateness.maxMs)} late.`
  );
}

export interface DayRuns {
  date: string;
  success: number;
  failed: number;
}

/** "140 runs from 21 Nov to 27 Nov: 132 succeeded, 8 failed. Busiest day: 25 Nov (40 runs)." */
export function summariseRunsOverTime(days: DayRuns[]): string {
  const success = days.reduce((sum, day) => sum + day.success, 0);
  const failed = days.reduce((sum, day) => sum + day.failed, 0);
  if (days.length === 0 || success + failed === 0) return 'No runs in this range.';
  const span =
    days.length === 1
      ? `on ${formatDay(days[0]!.date)}`
      : `from ${formatDay(days[0]!.date)} to ${formatDay(days.at(-1)!.date)}`;
  let text = `${plural(success + failed, 'run')} ${span}: ${success} succeeded, ${failed} failed.`;
  if (days.length > 1) {
    const busiest = days.reduce((best, day) => (day.success + day.failed > best.success + best.failed ? day : best));
    text += ` Busiest day: ${formatDay(busiest.date)} (${plural(busiest.success + busiest.failed, 'run')}).`;
  }
  return text;
}

export function plural(count: number, noun: string): string {
  return `${count.toLocaleString('en-US')} ${noun}${count === 1 ? '' : 's'}`;
}
