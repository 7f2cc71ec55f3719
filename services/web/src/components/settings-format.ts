/** Pure formatting for the settings page: counts, quota fractions and the words beside each meter. */

const COUNT = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** 12345 → "12,345" (the UI is in English, so one grouping style everywhere). */
export function formatCount(value: number): string {
  return Number.isFinite(value) ? COUNT.format(value) : '—';
}

/** Share of a quota used, 0–100 (rounded down, so 99.9 % never reads as full); null when there is no quota. */
export function percentUsed(used: number, limit: number): number | null {
  if (!Number.isFinite(used) || !Number.isFinite(limit) || limit <= 0) return null;
  return Math.min(100, Math.max(0, Math.floor((used / limit) * 100)));
}

/** "12,345 of 100,000 tokens this month"; "3 of 10 jobs". `unit` is plural; one item reads singular. */
export function usageText(used: number, limit: number, unit: string, suffix = ''): string {
  const noun = limit === 1 && unit.endsWith('s') ? unit.slice(0, -1) : unit;
  return `${formatCount(used)} of ${formatCount(limit)} ${noun}${suffix ? ` ${suffix}` : ''}`;
}

export type QuotaLevel = 'ok' | 'high' | 'full';

/** How close a quota is to its limit: "high" from 80 %, "full" when nothing is left. */
export function quotaLevel(used: number, limit: number): QuotaLevel {
  if (limit <= 0 || used >= limit) return 'full';
  return used / limit >= 0.8 ? 'high' : 'ok';
}

const TIER_NAMES: Record<string, string> = { free: 'Free', pro: 'Pro', enterprise: 'Enterprise' };

/** "pro" → "Pro"; an unknown tier is shown as the API names it. */
export function tierName(tier: string): string {
  return TIER_NAMES[tier] ?? tier;
}

/** 60_000 → "1 min": the shortest interval an endpoint may use. */
export function formatIntervalLimit(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  if (ms % 1000 === 0) return `${ms / 1000} s`;
  return `${ms} ms`;
}

const DAY = new Intl.DateTimeFormat('en-US', { year: 'numeric', month: 'short', day: 'numeric', timeZone: 'UTC' });

/** A monthly period (UTC, end exclusive) → "Nov 1 – Dec 1, 2026 (UTC)"; years shown on both ends when they differ. */
export function formatPeriod(startIso: string, endIso: string): string {
  const start = new Date(startIso);
  const end = new Date(endIso);
  if (Number.isNaN(start.getTime()) || Number.isNaN(end.getTime())) return '—';
  const sameYear = start.getUTCFullYear() === end.getUTCFullYear();
  const from = sameYear ? DAY.format(start).replace(/,? \d{4}$/, '') : DAY.format(start);
  return `${from} – ${DAY.format(end)} (UTC)`;
}
