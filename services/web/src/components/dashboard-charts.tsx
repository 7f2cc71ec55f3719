/**
 * The dashboard's run charts: runs per day (succeeded/failed stacked), runs by source (grouped
 * baseline / AI / test) and lateness percentiles. Each sits in a ChartPanel that names it and
 * summarises it in words, with its key as a text list. Animations are off: the page refetches
 * every few seconds.
 */
import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { Schemas } from '../api/client';
import { ChartLegend, ChartPanel } from './dashboard-chart-panel';
import { formatDay } from './dashboard-range';
import {
  formatLatenessMs,
  groupRunsBySource,
  latenessBars,
  summariseLateness,
  summariseRunsOverTime,
  summariseSources,
} from './dashboard-stats';

type Dashboard = Schemas['Dashboard'];

export const RUN_COLORS = { success: '#1a7f37', failed: '#cf222e' } as const;
const AXIS_TICK = { fontSize: 12, fill: '#59636e' };
const count = (value: number) => value.toLocaleString();

export function RunsOverTimeChart({ days }: { days: Dashboard['runsOverTime'] }) {
  const data = days.map((day) => ({ ...day, label: formatDay(day.date) }));
  const success = days.reduce((sum, day) => sum + day.success, 0);
  const failed = days.reduce((sum, day) => sum + day.failed, 0);
  const legend = (
    <ChartLegend
      items={[
        { key: 'success', label: 'Succeeded', value: count(success), color: RUN_COLORS.success },
        { key: 'failed', label: 'Failed', value: count(failed), color: RUN_COLORS.failed },
      ]}
    />
  );
  return (
    <ChartPanel
      title="Runs over time"
      summary={summariseRunsOverTime(days)}
      isEmpty={success + failed === 0}
      legend={legend}
    >
      <ResponsiveContainer width="100%" height="100%">
        <BarChart data={data} margin={{ top: 8, right: 8, bottom: 0, left: 0 }} accessibilityLayer={false}>
          <CartesianGrid strokeDasharray="3 3" vertical={false} />
          <XAxis dataKey="label" tick={AXIS_TICK} interval="preserveStartEnd" minTickGap={12} />
          <YAxis allowDecimals={false} tick={AXIS_TICK} width={40} />
          <Tooltip />
          <Bar dataKey="success" name="Succeeded" stackId="runs" fill={RUN_COLORS.success} isAnimationActive={false} />
          <Bar dataKey="failed" name="Failed" stackId="runs" fill={RUN_COLORS.failed} isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    </ChartPanel>
  );
}

export function RunsBySourceChart({ runsBySource }: { runsBySource: Dashboard['runsBySource'] }) {
  const grouping = groupRunsBySource(runsBySource);
  const legend = (
    <ChartLegend
      items={grouping.series.map((series) => ({
        key: series.source,
        label: series.label,
        value: count(runsBySource[series.source] ?? 0),
        color: series.color,
      }))}
    />
  );
  return (
    <ChartPanel
      title="Runs by source"
      summary={summariseSources(grouping)}
      isEmpty={grouping.total === 0}
      height={48 + grouping.rows.length * 44}
      legend={legend}
    >
      <ResponsiveContainer width="100%" height="100%">
        <BarChart
          data={grouping.rows}
          layout="vertical"
          margin={{ top: 8, right: 16, bottom: 0, left: 0 }}
          accessibilityLayer={false}
        >
          <CartesianGrid strokeDasharray="3 3" horizontal={false} />
          <XAxis type="number" allowDecimals={false} tick={AXIS_TICK} />
          <YAxis type="category" dataKey="group" tick={AXIS_TICK} width={72} />
          <Tooltip />
          {grouping.series.map((series) => (
            <Bar
              key={series.source}
              dataKey={series.source}
              name={series.label}
              stackId="sources"
              fill={series.color}
              stroke="#ffffff"
              isAnimationActive={false}
              maxBarSize={28}
            />
          ))}
        </BarChart>
      </ResponsiveContainer>
    </ChartPanel>
  );
}

export function LatenessChart({ lateness }: { lateness: Dashboard['lateness'] }) {
  const bars = latenessBars(lateness);
  const legend = (
    <ChartLegend items={bars.map((bar) => ({ key: bar.label, label: bar.label, value: formatLatenessMs(bar.ms) }))} />
  );
  return (
    <ChartPanel
      title="Lateness of scheduled runs"
      summary={summariseLateness(lateness)}
      isEmpty={lateness.runs === 0}
      legend={legend}
    >
      <ResponsiveContainer width="100%" height="100%">
        <BarChart data={bars} margin={{ top: 8, right: 8, bottom: 0, left: 0 }} accessibilityLayer={false}>
          <CartesianGrid strokeDasharray="3 3" vertical={false} />
          <XAxis dataKey="label" tick={AXIS_TICK} />
          <YAxis tickFormatter={(ms: number) => formatLatenessMs(ms)} tick={AXIS_TICK} width={64} />
          <Tooltip formatter={(ms) => formatLatenessMs(Number(ms))} />
          <Bar dataKey="ms" name="Started late by" fill="#0969da" isAnimationActive={false} maxBarSize={56} />
        </BarChart>
      </ResponsiveContainer>
    </ChartPanel>
  );
}
