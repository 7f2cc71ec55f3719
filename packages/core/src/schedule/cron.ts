/**
 * Cron expressions evaluated in an endpoint's IANA time zone.
 *
 * Syntax: 5 fields (minute hour day-of-month month day-of-week), or 6 with a leading seconds field,
 * both as cron-parser 5 reads them (ranges, steps, lists, month and weekday names, L, W, #, ?).
 * Rejected: other field counts (including @daily-style aliases, so a stored expression always shows
 * its fields) and the hashed `H` token, which cron-parser resolves with Math.random() unless given
 * a seed, so the same expression would give different times on different calls.
 *
 * DST rule (the same in every zone):
 * - A local time skipped by a spring-forward transition runs ONCE, at the first valid instant after
 *   the gap (the transition itself). `30 2 * * *` in America/New_York on 2025-03-09 runs once at
 *   03:00 EDT (07:00Z); every skipped minute of `* 2 * * *` collapses into that same single run.
 * - A local time repeated by a fall-back transition runs ONCE, at its first (daylight-time)
 *   instant. `30 1 * * *` in America/New_York on 2025-11-02 runs at 01:30 EDT (05:30Z) only; for
 *   `0 * * * *` in Europe/Berlin on 2025-10-26 the 25-hour day has 24 runs, 02:00 running once.
 *   Trade-off: sub-hourly and hourly expressions leave a longer real gap during the repeated hour.
 *
 * cron-parser's own tz mode does not follow this rule (it runs `30 2` at 03:30 after a gap, and
 * `0 * * * *` at both 02:00s of a repeated hour), so cron fields are matched on the wall clock (cron-parser in UTC, where
 * there is no DST) and each wall-clock time is mapped to an instant by zoned-time.ts. That mapping
 * is monotone, so the next occurrence is the first wall-clock match after the clock reading of
 * `after` (after the end of the repetition when `after` is in the second pass of a repeated hour).
 */
import { CronExpression, CronExpressionParser } from 'cron-parser';
import type { CronFieldCollection } from 'cron-parser';
import { AppError } from '../errors.js';
import { endOfRepeatedWallClockMs, fromWallClockMs, isValidTimezone, toWallClockMs } from './zoned-time.js';

export { isValidTimezone } from './zoned-time.js';

export type CronCheck = { ok: true } | { ok: false; message: string };

/** Validates an expression and time zone without computing any time. */
export function parseCron(expression: string, timezone: string): CronCheck {
  const parsed = parseFields(expression, timezone);
  return parsed.ok ? { ok: true } : parsed;
}

/** The first occurrence strictly after `after`. */
export function nextCronTime(expression: string, timezone: string, after: Date): Date {
  const afterMs = after.getTime();
  // Wall-clock matches up to the clock reading of `after` map to instants <= after (monotone), and
  // in the second pass of a repeated hour so do those up to the end of the repetition.
  const searchFromWallMs = endOfRepeatedWallClockMs(afterMs, timezone) ?? toWallClockMs(afterMs, timezone) + 1;
  const wallMs = parseOnWallClock(expression, timezone, searchFromWallMs - 1)
    .next()
    .getTime();
  return new Date(fromWallClockMs(wallMs, timezone));
}

/**
 * The shortest gap between consecutive occurrences among the first 64 after a fixed instant
 * (2026-01-01 UTC): a cron's period for validation (jitter must stay under it). 64 occurrences cover
 * every weekday pattern of a daily schedule and a month of a weekly one; a validation needs no clock.
 */
export function shortestCronGapMs(expression: string, timezone: string): number {
  let previous = nextCronTime(expression, timezone, new Date(Date.UTC(2026, 0, 1)));
  let shortest = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 64; i += 1) {
    const next = nextCronTime(expression, timezone, previous);
    shortest = Math.min(shortest, next.getTime() - previous.getTime());
    previous = next;
  }
  return shortest;
}

/**
 * The latest occurrence at or before `at`, or null when there is none at or after `notBefore`
 * (used to collapse the slots missed during downtime into one run).
 */
export function latestCronTimeAtOrBefore(expression: string, timezone: string, at: Date, notBefore: Date): Date | null {
  const atMs = at.getTime();
  const searchBeforeWallMs = endOfRepeatedWallClockMs(atMs, timezone) ?? toWallClockMs(atMs, timezone) + 1;
  let wallMs: number;
  try {
    wallMs = parseOnWallClock(expression, timezone, searchBeforeWallMs).prev().getTime();
  } catch (error) {
    if (error instanceof AppError) throw error;
    return null; // cron-parser found no earlier match within its search limit
  }
  const latestMs = fromWallClockMs(wallMs, timezone);
  return latestMs >= notBefore.getTime() ? new Date(latestMs) : null;
}

/**
 * Parsing costs ~150 µs (the matching itself ~40-100 µs per step), and the scheduler evaluates the
 * same few expressions over and over, so parsed fields (immutable) are memoised, up to a bound.
 */
const MAX_MEMOISED_EXPRESSIONS = 1000;
const parsedFields = new Map<string, CronFieldCollection>();

type ParsedFields = { ok: true; fields: CronFieldCollection } | { ok: false; message: string };

function parseFields(expression: string, timezone: string): ParsedFields {
  if (!isValidTimezone(timezone)) return { ok: false, message: `unknown time zone "${timezone}" (use an IANA name)` };
  // At most 7 pieces: 7 already says "too many fields" (a long text is not split to the end).
  const normalised = expression.trim().split(/\s+/, 7);
  if (normalised.length !== 5 && normalised.length !== 6) {
    return {
      ok: false,
      message: 'a cron expression has 5 fields (minute hour day-of-month month day-of-week), or 6 with seconds first',
    };
  }
  if (normalised.some((field) => field.toUpperCase().replaceAll('THU', '').includes('H'))) {
    return { ok: false, message: 'the hashed "H" token is not supported' };
  }
  const key = normalised.join(' ');
  const memoised = parsedFields.get(key);
  if (memoised !== undefined) return { ok: true, fields: memoised };
  try {
    const { fields } = CronExpressionParser.parse(key, { tz: 'UTC' });
    if (parsedFields.size >= MAX_MEMOISED_EXPRESSIONS) parsedFields.clear();
    parsedFields.set(key, fields);
    return { ok: true, fields };
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
}

/** Cron matching on the wall clock, positioned at `wallMs`; throws VALIDATION_ERROR when invalid. */
function parseOnWallClock(expression: string, timezone: string, wallMs: number): CronExpression {
  const parsed = parseFields(expression, timezone);
  if (!parsed.ok) throw new AppError('VALIDATION_ERROR', parsed.message, { field: 'baselineCron' });
  return new CronExpression(parsed.fields, { tz: 'UTC', currentDate: new Date(wallMs) });
}
