/**
 * Timeline of the latest runs: time on x; on y either each run's duration or the planned interval
 * since the previous scheduled run, so the schedule tightening (AI interval hints) or relaxing
 * (backoff) is visible. Points are coloured by outcome and source; a caption says the same in words.
 */
import { useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import {
  CartesianGrid,
  ComposedChart,
  Legend,
  Line,
  ResponsiveContainer,
  Scatter,
  Tooltip,
  XAxis,
  YAxis,
  type TooltipContentProps,
  type TooltipValueType,
} from 'recharts';
import { formatDateTime, formatDuration } from '../lib/time';
import { endpointRunsKey, fetchEndpointRuns, TIMELINE_RUNS } from './endpoint-queries';
import { sourceLabel } from './run-format';
import { buildTimeline, summarizeTimeline, type TimelineCategory, type TimelinePoint } from './run-timeline-data';
import { Empty, QueryView } from './states';

type Metric = 'intervalMs' | 'durationMs';

const SERIES: {
  category: TimelineCategory;
  name: string;
  color: string;
  shape: 'circle' | 'diamond' | 'square' | 'cross';
}[] = [
  { category: 'baseline', name: 'Baseline run', color: '#0969da', shape: 'circle' },
  { category: 'ai', name: 'AI hint run', color: '#8250df', shape: 'diamond' },
  { category: 'test', name: 'Test run', color: '#59636e', shape: 'square' },
  { category: 'failed', name: 'Failed run', color: '#cf222e', shape: 'cross' },
];

const METRICS: { value: Metric; label: string }[] = [
  { value: 'intervalMs', label: 'Interval between runs' },
  { value: 'durationMs', label: 'Duration' },
];

/** The x range of all runs (the same in both plots; padded when there is one instant only). */
function timeDomain(points: TimelinePoint[]): [number, number] {
  const first = points[0]!.time;
  const last = points[points.length - 1]!.time;
  return first === last ? [first - 30_000, last + 30_000] : [first, last];
}

/** Tick labels: with seconds when the runs span less than an hour (else every label reads alike). */
function clockFormat(points: TimelinePoint[]): (ms: number) => string {
  const spanMs = points.length > 1 ? points[points.length - 1]!.time - points[0]!.time : 0;
  const options: Intl.DateTimeFormatOptions =
    spanMs < 3_600_000
      ? { hour: '2-digit', minute: '2-digit', second: '2-digit' }
      : { hour: '2-digit', minute: '2-digit' };
  return (ms) => new Date(ms).toLocaleTimeString(undefined, options);
}

export function RunTimeline({ endpointId }: { endpointId: string }) {
  const [metric, setMetric] = useState<Metric>('intervalMs');
  const runs = useQuery({
    queryKey: [...endpointRunsKey(endpointId), 'timeline'],
    queryFn: () => fetchEndpointRuns(endpointId, TIMELINE_RUNS, 0, null),
  });
  const captionId = useId();
  return (
    <section aria-labelledby="timeline-heading">
      <h2 id="timeline-heading">Timeline</h2>
      <fieldset className="run-timeline-metric">
        <legend>Plot</legend>
        {METRICS.map((option) => (
          <label key={option.value}>
            <input
              type="radio"
              name={`${captionId}-metric`}
              value={option.value}
              checked={metric === option.value}
              onChange={() => setMetric(option.value)}
            />{' '}
            {option.label}
          </label>
        ))}
      </fieldset>
      <QueryView query={runs} what="Loading the timeline">
        {(page) => {
          const points = buildTimeline(page.items);
          if (points.length === 0) return <Empty title="No runs to plot yet." />;
          return <TimelineFigure points={points} metric={metric} captionId={captionId} now={runs.dataUpdatedAt} />;
        }}
      </QueryView>
    </section>
  );
}

function TimelineFigure({
  points,
  metric,
  captionId,
  now,
}: {
  points: TimelinePoint[];
  metric: Metric;
  captionId: string;
  /** When the runs were fetched: the summary's "last …" is measured to it. */
  now: number;
}) {
  const plotted = points.filter((point) => point[metric] !== null);
  const label = METRICS.find((option) => option.value === metric)!.label;
  return (
    <figure className="run-timeline" aria-labelledby={captionId}>
      <div
        className="run-timeline-chart"
        role="img"
        aria-label={`${label} of the latest ${points.length} runs over time`}
      >
        <ResponsiveContainer width="100%" height={260}>
          <ComposedChart margin={{ top: 8, right: 24, bottom: 0, left: 0 }}>
            <CartesianGrid stroke="#d1d9e0" strokeDasharray="3 3" />
            <XAxis
              dataKey="time"
              type="number"
              scale="time"
              domain={timeDomain(points)}
              tickFormatter={clockFormat(points)}
              minTickGap={24}
            />
            <YAxis dataKey={metric} type="number" tickFormatter={(ms: number) => formatDuration(ms)} width={88} />
            <Tooltip content={TimelineTooltip} />
            <Legend />
            {metric === 'intervalMs' ? (
              <Line
                data={plotted}
                dataKey={metric}
                stroke="#d1d9e0"
                dot={false}
                legendType="none"
                isAnimationActive={false}
                name="Interval"
              />
            ) : null}
            {SERIES.map((series) => (
              <Scatter
                key={series.category}
                name={series.name}
                data={plotted.filter((point) => point.category === series.category)}
                dataKey={metric}
                fill={series.color}
                shape={series.shape}
                isAnimationActive={false}
              />
            ))}
          </ComposedChart>
        </ResponsiveContainer>
      </div>
      <figcaption id={captionId} className="muted">
        {summarizeTimeline(points, now)}
      </figcaption>
    </figure>
  );
}

function TimelineTooltip({ active, payload }: TooltipContentProps<TooltipValueType, string | number>) {
  const point = active ? (payload?.[0]?.payload as TimelinePoint | undefined) : undefined;
  if (!point) return null;
  return (
    <div className="run-timeline-tooltip">
      <div>{formatDateTime(new Date(point.time).toISOString())}</div>
      <div>
        {point.status} · {sourceLabel(point.source)}
      </div>
      <div>Duration {formatDuration(point.durationMs)}</div>
      {point.intervalMs !== null ? <div>Interval {formatDuration(point.intervalMs)}</div> : null}
    </div>
  );
}
