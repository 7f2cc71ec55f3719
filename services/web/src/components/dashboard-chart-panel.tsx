/**
 * A titled chart: the chart is one image to assistive technology (role="img"), named by the
 * heading and described by the visible one-sentence summary beneath it. Recharts' own keyboard
 * layer is turned off by the charts (a focus stop inside an image would announce nothing).
 */
import { useId, type ReactNode } from 'react';

export function ChartPanel({
  title,
  summary,
  height = 240,
  isEmpty = false,
  legend,
  children,
}: {
  title: string;
  summary: string;
  height?: number;
  /** Nothing to draw: show the summary alone (it says why). */
  isEmpty?: boolean;
  /** The key and its figures, as text beside the chart (readable by everyone). */
  legend?: ReactNode;
  children: ReactNode;
}) {
  const id = useId();
  return (
    <section className="panel chart-panel" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{title}</h2>
      {isEmpty ? null : (
        <div
          className="chart"
          role="img"
          aria-labelledby={`${id}-title`}
          aria-describedby={`${id}-summary`}
          style={{ height }}
        >
          {children}
        </div>
      )}
      {isEmpty ? null : legend}
      <p id={`${id}-summary`} className={isEmpty ? 'muted' : 'chart-summary'}>
        {summary}
      </p>
    </section>
  );
}

export interface LegendItem {
  key: string;
  label: string;
  value: string;
  color?: string;
}

/** A chart key as a list: colour swatch, name and figure. */
export function ChartLegend({ items }: { items: LegendItem[] }) {
  return (
    <ul className="chart-legend">
      {items.map((item) => (
        <li key={item.key}>
          {item.color ? <span className="chart-swatch" style={{ background: item.color }} aria-hidden="true" /> : null}
          {item.label} <strong>{item.value}</strong>
        </li>
      ))}
    </ul>
  );
}
