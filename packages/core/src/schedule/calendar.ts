/**
 * Calendars (opt-in per endpoint): when runs may start. An endpoint's `activeFrom` / `activeUntil`
 * bound its active period, [activeFrom, activeUntil); its `blackouts` are windows during which no run
 * starts, each either recurring (`{ cron, durationMs }`: a window opens at every cron time in the
 * endpoint's time zone and lasts durationMs of real time, so a daily 01:00 window follows the wall
 * clock across a DST change) or absolute (`{ from, to }`, ISO times). Windows are half-open: a run
 * may start at a window's end.
 *
 * This module only answers "what holds back a run starting at t"; the scheduling rules
 * (next-run.ts) move the run past it: to the first baseline or interval-hint slot at or after the
 * window's end, an exact time (a one-shot hint, a pause end) to the window's end itself.
 */
import { latestCronTimeAtOrBefore } from './cron.js';

/** The stored and API shape of one blackout window. */
export type BlackoutWindow = { cron: string; durationMs: number } | { from: string; to: string };

export interface CalendarInput {
  /** No run starts before it; null or absent: no start. */
  activeFrom?: Date | null;
  /** No run starts at or after it; null or absent: no end. */
  activeUntil?: Date | null;
  /** null or absent: none. */
  blackouts?: readonly BlackoutWindow[] | null;
}

/** At most this many blackout windows per endpoint (each is looked at for every planned run). */
export const BLACKOUTS_MAX = 50;
/** A recurring window lasts at least a second and at most 31 days. */
export const BLACKOUT_DURATION_MIN_MS = 1_000;
export const BLACKOUT_DURATION_MAX_MS = 31 * 24 * 3_600_000;

/** What held a run back: a blackout window (its place in `blackouts`) or the start of the active period. */
export type CalendarHold =
  { kind: 'blackout'; index: number; from: Date; to: Date } | { kind: 'activeFrom'; from: null; to: Date };

export function hasCalendar(input: CalendarInput): boolean {
  return (
    (input.activeFrom ?? null) !== null ||
    (input.activeUntil ?? null) !== null ||
    (input.blackouts !== undefined && input.blackouts !== null && input.blackouts.length > 0)
  );
}

/**
 * The window `at` falls in, or null when a run may start at `at` (as far as the start of the active
 * period and the blackouts go; the end of the active period is the caller's). With several windows
 * holding `at`, the one ending last.
 */
export function findCalendarHold(input: CalendarInput, timezone: string, at: Date): CalendarHold | null {
  const atMs = at.getTime();
  const activeFrom = input.activeFrom ?? null;
  let hold: CalendarHold | null =
    activeFrom !== null && atMs < activeFrom.getTime() ? { kind: 'activeFrom', from: null, to: activeFrom } : null;
  const blackouts = input.blackouts ?? [];
  for (let index = 0; index < blackouts.length; index++) {
    const window = windowAt(blackouts[index]!, timezone, atMs);
    if (window !== null && (hold === null || window.to > hold.to.getTime())) {
      hold = { kind: 'blackout', index, from: new Date(window.from), to: new Date(window.to) };
    }
  }
  return hold;
}

/** The occurrence of `window` that holds `atMs`, as epoch ms, or null. */
function windowAt(window: BlackoutWindow, timezone: string, atMs: number): { from: number; to: number } | null {
  if ('cron' in window) {
    // The latest opening at or before `at` that is still open then (durationMs is under the cron's
    // shortest gap, endpoint.ts, so one occurrence's window ends before the next opens).
    const opened = latestCronTimeAtOrBefore(
      window.cron,
      timezone,
      new Date(atMs),
      new Date(atMs - window.durationMs + 1),
    );
    return opened === null ? null : { from: opened.getTime(), to: opened.getTime() + window.durationMs };
  }
  const from = Date.parse(window.from);
  const to = Date.parse(window.to);
  return from <= atMs && atMs < to ? { from, to } : null;
}

/** A hold as the API answers it: times as ISO text, the index null for activeFrom. */
export function toCalendarHoldRecord(hold: CalendarHold): {
  kind: CalendarHold['kind'];
  index: number | null;
  from: string | null;
  to: string;
} {
  return {
    kind: hold.kind,
    index: hold.kind === 'blackout' ? hold.index : null,
    from: hold.from === null ? null : hold.from.toISOString(),
    to: hold.to.toISOString(),
  };
}
