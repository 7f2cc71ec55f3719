/** A labelled quota meter: "Jobs", a <meter> and "3 of 10 jobs" (the numbers always in text too). */
import { useId } from 'react';
import { percentUsed, quotaLevel, usageText } from './settings-format';

export function QuotaMeter({
  label,
  used,
  limit,
  unit,
  suffix,
}: {
  label: string;
  used: number;
  limit: number;
  /** Plural noun after the numbers, e.g. "tokens". */
  unit: string;
  /** Words after the unit, e.g. "this month". */
  suffix?: string;
}) {
  const id = useId();
  const text = usageText(used, limit, unit, suffix);
  const percent = percentUsed(used, limit);
  return (
    <div className={`settings-meter settings-meter-${quotaLevel(used, limit)}`}>
      <label htmlFor={id}>{label}</label>
      <meter
        id={id}
        min={0}
        max={Math.max(limit, 1)}
        value={Math.min(used, Math.max(limit, 1))}
        low={limit * 0.8}
        high={limit * 0.95}
        optimum={0}
        aria-valuetext={percent === null ? text : `${text} (${percent} %)`}
      />
      <span>
        {text}
        {percent === null ? null : <span className="muted"> · {percent} %</span>}
      </span>
    </div>
  );
}
