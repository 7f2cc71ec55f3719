/**
 * Wall-clock time in an IANA time zone, as plain numbers, so that cron fields can be matched on the
 * local clock without any DST logic (see cron.ts).
 *
 * A "wall-clock ms" value is a local date and time encoded as if it were UTC: 02:30 on 2025-03-09
 * in America/New_York is Date.UTC(2025, 2, 9, 2, 30), whatever instant (if any) it names.
 *
 * Mapping a wall-clock time back to an instant (`fromWallClockMs`) is where DST is decided:
 * - a local time that occurs twice (fall-back overlap) maps to its FIRST instant;
 * - a local time that does not exist (spring-forward gap) maps to the first instant after the gap,
 *   i.e. the transition itself (03:00 local in New York and Berlin).
 * Both choices keep the mapping monotone (a later wall-clock time never maps to an earlier instant),
 * which the cron search relies on.
 */
import { LRUCache } from 'lru-cache';

const HOUR_MS = 3_600_000;

/**
 * Every instant with a given wall-clock time lies within [wall - 14 h, wall + 12 h] (UTC offsets
 * range from -12 h to +14 h); sampling the offset slightly beyond both ends finds both offsets
 * around any transition near that wall-clock time.
 */
const OFFSET_SAMPLES_MS = [-15 * HOUR_MS, 0, 15 * HOUR_MS];

/**
 * Intl formatters are costly to build; one per time zone name is cached (a memo, not state). Intl
 * accepts a zone's name in any letter case ('europe/berlin', 'EUROPE/BERLIN', …), so the names a
 * process sees are not bounded by the zone list: the least recently used go beyond 1,000.
 */
const formatters = new LRUCache<string, Intl.DateTimeFormat>({ max: 1000 });

function formatterFor(timezone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timezone);
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: timezone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timezone, formatter);
  }
  return formatter;
}

/**
 * True for any zone name Intl knows (IANA names such as 'Europe/Berlin', 'UTC'). Fixed UTC offsets
 * ('+01:00') are not zones (no DST rules): Node 24's Intl accepts them as time zones, Node 20's did not.
 */
export function isValidTimezone(timezone: string): boolean {
  if (timezone.trim() === '' || /^\s*[+-]/.test(timezone)) return false;
  try {
    formatterFor(timezone);
    return true;
  } catch {
    return false;
  }
}

/** The local date and time of `instantMs` in `timezone`, encoded as wall-clock ms. */
export function toWallClockMs(instantMs: number, timezone: string): number {
  const millisecond = ((instantMs % 1000) + 1000) % 1000;
  const fields = { year: 0, month: 1, day: 1, hour: 0, minute: 0, second: 0 };
  for (const part of formatterFor(timezone).formatToParts(instantMs - millisecond)) {
    if (part.type in fields) fields[part.type as keyof typeof fields] = Number(part.value);
  }
  const { year, month, day, hour, minute, second } = fields;
  return Date.UTC(year, month - 1, day, hour, minute, second, millisecond);
}

/**
 * The instant at which the local clock of `timezone` shows `wallMs`: the first one when the time
 * occurs twice, the end of the gap when it does not occur (see the doc block above).
 */
export function fromWallClockMs(wallMs: number, timezone: string): number {
  const offsets = new Set(
    OFFSET_SAMPLES_MS.map((deltaMs) => toWallClockMs(wallMs + deltaMs, timezone) - (wallMs + deltaMs)),
  );
  const candidates = [...offsets].map((offsetMs) => wallMs - offsetMs).sort((a, b) => a - b);
  for (const instantMs of candidates) {
    if (toWallClockMs(instantMs, timezone) === wallMs) return instantMs;
  }
  // In a gap: the clock reads before `wallMs` at the first candidate and after it at the last one.
  // Binary search for the first instant whose wall-clock time is past `wallMs` (the transition).
  let beforeMs = candidates[0] ?? wallMs;
  let afterMs = candidates[candidates.length - 1] ?? wallMs;
  while (afterMs - beforeMs > 1) {
    const middleMs = Math.floor((beforeMs + afterMs) / 2);
    if (toWallClockMs(middleMs, timezone) > wallMs) afterMs = middleMs;
    else beforeMs = middleMs;
  }
  return afterMs;
}

/**
 * When the local clock at `instantMs` shows a time it already showed earlier (the second pass of a
 * fall-back overlap), the wall-clock time at which that repetition ends (02:00 in New York on
 * 2025-11-02); otherwise null.
 */
export function endOfRepeatedWallClockMs(instantMs: number, timezone: string): number | null {
  const wallMs = toWallClockMs(instantMs, timezone);
  const firstPassMs = fromWallClockMs(wallMs, timezone);
  if (firstPassMs >= instantMs) return null;
  // The transition lies in (firstPassMs, instantMs]: find the first instant with today's offset.
  const offsetMs = wallMs - instantMs;
  let beforeMs = firstPassMs;
  let afterMs = instantMs;
  while (afterMs - beforeMs > 1) {
    const middleMs = Math.floor((beforeMs + afterMs) / 2);
    if (toWallClockMs(middleMs, timezone) - middleMs === offsetMs) afterMs = middleMs;
    else beforeMs = middleMs;
  }
  return toWallClockMs(beforeMs, timezone) + 1;
}
