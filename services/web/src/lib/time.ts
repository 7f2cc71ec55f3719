/** Formatting of times and durations for people (the API speaks ISO strings and milliseconds). */

const UNITS: [string, number][] = [
  ['d', 86_400_000],
  ['h', 3_600_000],
  ['min', 60_000],
  ['s', 1000],
];

/** 90_000 → "1 min 30 s"; 250 → "250 ms". At most two units, rounded in the smaller one (never "60 s"). */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return '—';
  const abs = Math.abs(ms);
  if (abs < 1000) return `${Math.round(ms)} ms`;
  const largest = UNITS.findIndex(([, size]) => abs >= size);
  // Round to the unit below the largest one (seconds at most), then split exactly: a carry (59.6 s → 1 min) is whole.
  const step = UNITS[Math.min(largest + 1, UNITS.length - 1)]![1];
  let rest = Math.round(abs / step) * step;
  const parts: string[] = [];
  for (const [unit, size] of UNITS) {
    if (parts.length === 2) break;
    const count = Math.floor(rest / size);
    if (count > 0) {
      parts.push(`${count} ${unit}`);
      rest -= count * size;
    } else if (parts.length > 0) break;
  }
  return `${ms < 0 ? '-' : ''}${parts.join(' ')}`;
}

/** "in 12 s" / "3 min ago" relative to now. */
export function formatRelative(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return '—';
  const delta = new Date(iso).getTime() - now;
  if (Math.abs(delta) < 1000) return 'now';
  return delta > 0 ? `in ${formatDuration(delta)}` : `${formatDuration(-delta)} ago`;
}

/** Local date and time, to the second. */
export function formatDateTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  return new Date(iso).toLocaleString(undefined, {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  });
}
