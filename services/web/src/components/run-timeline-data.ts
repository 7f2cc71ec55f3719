/**
 * Data for the run timeline: one point per run (time on x), with its duration and the planned
 * interval since the previous scheduled run, so a tightening or relaxing schedule shows as the
 * interval line falling or rising. Test runs are plotted but have no interval (they are off-schedule).
 */
import { formatDuration } from '../lib/time';
import { isAiSource, type Run } from './run-format';

export type TimelineCategory = 'baseline' | 'ai' | 'test' | 'failed';

export interface TimelinePoint {
  runId: string;
  /** startedAt, ms since the epoch. */
  time: number;
  durationMs: number;
  /** scheduledAt minus the previous scheduled run's scheduledAt; null for test runs and the first run. */
  intervalMs: number | null;
  category: TimelineCategory;
  status: string;
  source: string;
}

export function categorize(run: Pick<Run, 'status' | 'source'>): TimelineCategory {
  if (run.status !== 'success') return 'failed';
  if (run.source === 'test') return 'test';
  return isAiSource(run.source) ? 'ai' : 'baseline';
}

/** Runs in any order → points oldest first. */
export function buildTimeline(runs: Run[]): TimelinePoint[] {
  const ordered = [...runs].sort((a, b) => Date.parse(a.startedAt) - Date.parse(b.startedAt));
  let previousScheduledMs: number | null = null;
  return ordered.map((run) => {
    const scheduledMs = Date.parse(run.scheduledAt);
    let intervalMs: number | null = null;
    if (run.source !== 'test') {
      if (previousScheduledMs !== null) intervalMs = scheduledMs - previousScheduledMs;
      previousScheduledMs = scheduledMs;
    }
    return {
      runId: run.id,
      time: Date.parse(run.startedAt),
      durationMs: run.durationMs,
      intervalMs,
      category: categorize(run),
      status: run.status,
      source: run.source,
    };
  });
}

/** The chart in one or two sentences, for screen readers and as a caption. */
export function summarizeTimeline(points: TimelinePoint[], now: number): string {
  if (points.length === 0) return 'No runs yet.';
  const first = points[0]!;
  const failed = points.filter((point) => point.status !== 'success').length;
  const ai = points.filter((point) => isAiSource(point.source)).length;
  const parts = [
    `${points.length} ${points.length === 1 ? 'run' : 'runs'} in the last ${formatDuration(Math.max(now - first.time, 1000))}`,
    `${points.length - failed} succeeded, ${failed} failed`,
  ];
  if (ai > 0) parts.push(`${ai} decided by AI hints`);
  let summary = `${parts.join('; ')}.`;
  const intervals = points.map((point) => point.intervalMs).filter((ms): ms is number => ms !== null);
  if (intervals.length >= 2) {
    const firstMs = intervals[0]!;
    const lastMs = intervals[intervals.length - 1]!;
    const range = `shortest ${formatDuration(Math.min(...intervals))}, longest ${formatDuration(Math.max(...intervals))}`;
    const change =
      lastMs === firstMs
        ? `held at ${formatDuration(lastMs)}`
        : `${lastMs < firstMs ? 'tightened' : 'relaxed'} from ${formatDuration(firstMs)} to ${formatDuration(lastMs)}`;
    summary += ` The interval between scheduled runs ${change} (${range}).`;
  }
  return summary;
}
