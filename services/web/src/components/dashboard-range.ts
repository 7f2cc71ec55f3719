/**
 * The dashboard's date ranges. GET /api/dashboard takes whole UTC days (startDate and endDate,
 * both inclusive, YYYY-MM-DD), so "today" is the current UTC day, not a sliding 24 hours.
 */

export const DASHBOARD_RANGES = [
  { id: 'today', label: 'Today', days: 1 },
  { id: '7d', label: 'Last 7 days', days: 7 },
  { id: '30d', label: 'Last 30 days', days: 30 },
] as const;

export type DashboardRangeId = (typeof DASHBOARD_RANGES)[number]['id'];

export const DEFAULT_RANGE: DashboardRangeId = '7d';

const DAY_MS = 86_400_000;

/** The range named in the URL (?range=30d), or the default for anything else. */
export function parseRange(value: string | null): DashboardRangeId {
  return DASHBOARD_RANGES.find((range) => range.id === value)?.id ?? DEFAULT_RANGE;
}

/** UTC calendar day of an instant, as the API writes dates. */
export function utcDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** The query for a range ending today (UTC): `days` whole days, today included. */
export function rangeDates(rangeId: DashboardRangeId, now: number): { startDate: string; endDate: string } {
  const range = DASHBOARD_RANGES.find((candidate) => candidate.id === rangeId) ?? DASHBOARD_RANGES[1];
  return { startDate: utcDate(now - (range.days - 1) * DAY_MS), endDate: utcDate(now) };
}

/** "21 Nov" for a YYYY-MM-DD day (read as UTC, so it never shifts to the day before). */
export function formatDay(date: string): string {
  return new Date(`${date}T00:00:00Z`).toLocaleDateString(undefined, {
    day: 'numeric',
    month: 'short',
    timeZone: 'UTC',
  });
}

/** "21 Nov – 27 Nov (UTC)", or one day when both ends match. */
export function describeRange(range: { startDate: string; endDate: string }): string {
  const days =
    range.startDate === range.endDate
      ? formatDay(range.startDate)
      : `${formatDay(range.startDate)} – ${formatDay(range.endDate)}`;
  return `${days} (UTC)`;
}
