/**
 * Durations as people type them (a number and a unit) ↔ the API's milliseconds. The API keeps
 * every duration in whole milliseconds (baselineIntervalMs, minIntervalMs, maxIntervalMs, timeoutMs).
 */

export type DurationUnit = 's' | 'min' | 'h';

export const DURATION_UNITS: readonly { unit: DurationUnit; label: string; ms: number }[] = [
  { unit: 's', label: 'seconds', ms: 1000 },
  { unit: 'min', label: 'minutes', ms: 60_000 },
  { unit: 'h', label: 'hours', ms: 3_600_000 },
];

/** A duration as typed: `amount` stays a string so a half-typed number is not rewritten. */
export interface Duration {
  amount: string;
  unit: DurationUnit;
}

function unitMs(unit: DurationUnit): number {
  return DURATION_UNITS.find((entry) => entry.unit === unit)?.ms ?? 1000;
}

/**
 * 300_000 → 5 min; 5_400_000 → 90 min; 1500 → 1.5 s. The largest unit that divides the value
 * exactly, so what the form shows converts back to the same number of milliseconds.
 */
export function msToDuration(ms: number | null | undefined, emptyUnit: DurationUnit = 'min'): Duration {
  if (ms === null || ms === undefined) return { amount: '', unit: emptyUnit };
  for (const entry of [...DURATION_UNITS].reverse()) {
    if (ms >= entry.ms && ms % entry.ms === 0) return { amount: String(ms / entry.ms), unit: entry.unit };
  }
  return { amount: String(ms / 1000), unit: 's' };
}

export type DurationResult = { ok: true; ms: number | null } | { ok: false; message: string };

/** '' → null (not set); '1.5' min → 90 000; anything that is not a positive number is an error. */
export function durationToMs(duration: Duration): DurationResult {
  const text = duration.amount.trim();
  if (text === '') return { ok: true, ms: null };
  const amount = Number(text);
  if (!Number.isFinite(amount) || amount <= 0) return { ok: false, message: 'enter a positive number' };
  return { ok: true, ms: Math.round(amount * unitMs(duration.unit)) };
}

const WORD_UNITS: readonly [string, number][] = [
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
  ['second', 1000],
];

/** A bound in words: 1000 → "1 second", 300_000 → "5 minutes", 90_000 → "90 seconds", 100 → "0.1 seconds". */
export function durationWords(ms: number): string {
  const [unit, size] = WORD_UNITS.find(([, unitMs]) => ms >= unitMs && ms % unitMs === 0) ?? ['second', 1000];
  const amount = Math.round((ms / size) * 1000) / 1000;
  return `${amount.toLocaleString('en-US')} ${unit}${amount === 1 ? '' : 's'}`;
}
