import { CronExpressionParser } from 'cron-parser';
import fc from 'fast-check';
import { AppError } from '../errors.js';
import { latestCronTimeAtOrBefore, nextCronTime, parseCron, shortestCronGapMs } from './cron.js';
import { fromWallClockMs } from './zoned-time.js';

const at = (iso: string): Date => new Date(iso);
const EPOCH = at('1970-01-01T00:00:00Z');

/** Every occurrence in (from, to), by repeated nextCronTime. */
function listOccurrences(expression: string, timezone: string, from: string, to: string): string[] {
  const occurrences: string[] = [];
  for (let time = nextCronTime(expression, timezone, at(from)); time < at(to);) {
    occurrences.push(time.toISOString());
    time = nextCronTime(expression, timezone, time);
  }
  return occurrences;
}

describe('parseCron', () => {
  it.each([
    ['*/5 * * * *', 'UTC'],
    ['30 2 * * *', 'America/New_York'],
    ['0 9 * * MON-FRI', 'Europe/Berlin'],
    ['0 9 * * THU', 'UTC'],
    ['0 0 L * *', 'UTC'],
    ['  15   3 * * *  ', 'UTC'],
    ['*/10 * * * * *', 'UTC'],
  ])('accepts %p in %p', (expression, timezone) => {
    expect(parseCron(expression, timezone)).toEqual({ ok: true });
  });

  it.each([
    ['', 'UTC', /5 fields/],
    ['* * * *', 'UTC', /5 fields/],
    ['0 0 0 1 1 * 2025', 'UTC', /5 fields/],
    ['@daily', 'UTC', /5 fields/],
    ['H * * * *', 'UTC', /"H"/],
    ['60 * * * *', 'UTC', /60/],
    ['0 0 30 2 *', 'UTC', /day of month/],
    ['0 0 * * *', 'Nowhere/Land', /time zone/],
    ['0 0 * * *', '', /time zone/],
  ])('rejects %p in %p', (expression, timezone, message) => {
    const check = parseCron(expression, timezone);
    expect(check.ok).toBe(false);
    if (!check.ok) expect(check.message).toMatch(message);
  });
});

describe('nextCronTime', () => {
  it.each([
    ['*/5 * * * *', 'UTC', '2025-01-15T12:01:00Z', '2025-01-15T12:05:00.000Z'],
    ['*/5 * * * *', 'UTC', '2025-01-15T12:05:00Z', '2025-01-15T12:10:00.000Z'],
    ['*/5 * * * *', 'UTC', '2025-01-15T12:04:59.999Z', '2025-01-15T12:05:00.000Z'],
    ['*/10 * * * * *', 'UTC', '2025-01-15T12:00:05Z', '2025-01-15T12:00:10.000Z'],
    ['0 9 * * *', 'Europe/Berlin', '2025-01-15T12:00:00Z', '2025-01-16T08:00:00.000Z'],
    ['0 9 * * *', 'Europe/Berlin', '2025-07-15T12:00:00Z', '2025-07-16T07:00:00.000Z'],
    ['0 9 * * *', 'America/New_York', '2025-01-15T12:00:00Z', '2025-01-15T14:00:00.000Z'],
    ['0 0 29 2 *', 'UTC', '2025-01-01T00:00:00Z', '2028-02-29T00:00:00.000Z'],
  ])('%p in %p after %s is %s', (expression, timezone, after, expected) => {
    expect(nextCronTime(expression, timezone, at(after)).toISOString()).toBe(expected);
  });

  it('throws VALIDATION_ERROR for an invalid expression', () => {
    expect(() => nextCronTime('not cron', 'UTC', EPOCH)).toThrow(AppError);
  });
});

describe('DST: a skipped local time runs once at the end of the gap, a repeated one runs once', () => {
  // Each row lists every occurrence on the transition day (local midnight to local midnight).
  it.each([
    // New York spring forward, 2025-03-09 02:00 EST -> 03:00 EDT (07:00Z).
    ['30 2 * * *', 'America/New_York', '2025-03-09T04:59:59Z', '2025-03-10T04:00:00Z', ['2025-03-09T07:00:00.000Z']],
    ['0 2 * * *', 'America/New_York', '2025-03-09T04:59:59Z', '2025-03-10T04:00:00Z', ['2025-03-09T07:00:00.000Z']],
    ['* 2 * * *', 'America/New_York', '2025-03-09T04:59:59Z', '2025-03-10T04:00:00Z', ['2025-03-09T07:00:00.000Z']],
    ['0 30 2 * * *', 'America/New_York', '2025-03-09T04:59:59Z', '2025-03-10T04:00:00Z', ['2025-03-09T07:00:00.000Z']],
    ['30 3 * * *', 'America/New_York', '2025-03-09T04:59:59Z', '2025-03-10T04:00:00Z', ['2025-03-09T07:30:00.000Z']],
    // New York fall back, 2025-11-02 02:00 EDT -> 01:00 EST (06:00Z); 01:xx happens twice.
    ['30 1 * * *', 'America/New_York', '2025-11-02T03:59:59Z', '2025-11-03T05:00:00Z', ['2025-11-02T05:30:00.000Z']],
    [
      '*/30 1,2 * * *',
      'America/New_York',
      '2025-11-02T03:59:59Z',
      '2025-11-03T05:00:00Z',
      ['2025-11-02T05:00:00.000Z', '2025-11-02T05:30:00.000Z', '2025-11-02T07:00:00.000Z', '2025-11-02T07:30:00.000Z'],
    ],
    // Berlin spring forward, 2025-03-30 02:00 CET -> 03:00 CEST (01:00Z).
    ['30 2 * * *', 'Europe/Berlin', '2025-03-29T22:59:59Z', '2025-03-30T22:00:00Z', ['2025-03-30T01:00:00.000Z']],
    // Berlin fall back, 2025-10-26 03:00 CEST -> 02:00 CET (01:00Z); 02:xx happens twice.
    ['30 2 * * *', 'Europe/Berlin', '2025-10-25T21:59:59Z', '2025-10-26T23:00:00Z', ['2025-10-26T00:30:00.000Z']],
    // Lord Howe springs forward by 30 minutes, 2025-10-05 02:00 -> 02:30 (2025-10-04T15:30Z).
    ['15 2 * * *', 'Australia/Lord_Howe', '2025-10-04T13:29:59Z', '2025-10-05T13:00:00Z', ['2025-10-04T15:30:00.000Z']],
  ])('%p in %p', (expression, timezone, from, to, expected) => {
    expect(listOccurrences(expression, timezone, from, to)).toEqual(expected);
  });

  it.each([
    ['0 * * * *', 'America/New_York', '2025-03-09T04:59:59Z', '2025-03-10T04:00:00Z', 23],
    ['0 * * * *', 'America/New_York', '2025-11-02T03:59:59Z', '2025-11-03T05:00:00Z', 24],
    ['0 * * * *', 'Europe/Berlin', '2025-03-29T22:59:59Z', '2025-03-30T22:00:00Z', 23],
    ['0 * * * *', 'Europe/Berlin', '2025-10-25T21:59:59Z', '2025-10-26T23:00:00Z', 24],
    ['*/30 * * * *', 'America/New_York', '2025-03-09T04:59:59Z', '2025-03-10T04:00:00Z', 46],
    ['*/30 * * * *', 'Europe/Berlin', '2025-10-25T21:59:59Z', '2025-10-26T23:00:00Z', 48],
    ['0 0 9 * * *', 'Europe/Berlin', '2025-10-25T21:59:59Z', '2025-10-26T23:00:00Z', 1],
  ])('%p in %p from %s to %s: %i runs', (expression, timezone, from, to, count) => {
    expect(listOccurrences(expression, timezone, from, to)).toHaveLength(count);
  });

  it('a per-second expression skips the repeated hour in one step', () => {
    expect(nextCronTime('* * * * * *', 'America/New_York', at('2025-11-02T06:00:00Z')).toISOString()).toBe(
      '2025-11-02T07:00:00.000Z',
    );
  });
});

describe('latestCronTimeAtOrBefore', () => {
  it.each([
    ['*/5 * * * *', 'UTC', '2025-01-15T13:02:00Z', '1970-01-01T00:00:00Z', '2025-01-15T13:00:00.000Z'],
    ['*/5 * * * *', 'UTC', '2025-01-15T13:00:00Z', '1970-01-01T00:00:00Z', '2025-01-15T13:00:00.000Z'],
    ['*/5 * * * *', 'UTC', '2025-01-15T13:02:00Z', '2025-01-15T13:00:00Z', '2025-01-15T13:00:00.000Z'],
    ['*/5 * * * *', 'UTC', '2025-01-15T13:02:00Z', '2025-01-15T13:00:01Z', null],
    // Just after a spring-forward gap: the skipped 02:30 ran at 03:00 EDT.
    ['30 2 * * *', 'America/New_York', '2025-03-09T07:10:00Z', '1970-01-01T00:00:00Z', '2025-03-09T07:00:00.000Z'],
    // In the second pass of the repeated hour: the latest run was in the first pass.
    ['*/30 * * * *', 'America/New_York', '2025-11-02T06:45:00Z', '1970-01-01T00:00:00Z', '2025-11-02T05:30:00.000Z'],
    ['30 2 * * *', 'Europe/Berlin', '2025-10-26T01:45:00Z', '1970-01-01T00:00:00Z', '2025-10-26T00:30:00.000Z'],
  ])('%p in %p at %s not before %s is %p', (expression, timezone, atTime, notBefore, expected) => {
    const latest = latestCronTimeAtOrBefore(expression, timezone, at(atTime), at(notBefore));
    expect(latest?.toISOString() ?? null).toBe(expected);
  });
});

/**
 * Reference: every wall-clock match within `windowDays` of a transition mapped to its instant,
 * deduplicated. The searches in cron.ts must agree with it at any instant near the transition.
 */
const DAY_MS = 86_400_000;

function referenceOccurrences(
  expression: string,
  timezone: string,
  transitionMs: number,
  windowDays: number,
): number[] {
  const windowMs = windowDays * DAY_MS;
  const matches = CronExpressionParser.parse(expression, { tz: 'UTC', currentDate: new Date(transitionMs - windowMs) });
  const instants = new Set<number>();
  for (let wallMs = matches.next().getTime(); wallMs < transitionMs + windowMs; wallMs = matches.next().getTime()) {
    instants.add(fromWallClockMs(wallMs, timezone));
  }
  return [...instants].sort((a, b) => a - b);
}

describe('nextCronTime and latestCronTimeAtOrBefore agree with a brute-force reference', () => {
  const transitions: [string, string][] = [
    ['America/New_York', '2025-03-09T07:00:00Z'],
    ['America/New_York', '2025-11-02T06:00:00Z'],
    ['Europe/Berlin', '2025-03-30T01:00:00Z'],
    ['Europe/Berlin', '2025-10-26T01:00:00Z'],
    ['Australia/Lord_Howe', '2025-04-05T15:00:00Z'],
    ['Australia/Lord_Howe', '2025-10-04T15:30:00Z'],
  ];
  const expressions: [string, number][] = [
    ['*/7 * * * *', 1],
    ['30 2 * * *', 2],
    ['0,30 1,2 * * *', 2],
    ['*/20 * 1-3 * * *', 2],
    ['45 1 * * SUN', 8],
  ];

  it.each(transitions)('in %s around %s', (timezone, transition) => {
    const transitionMs = Date.parse(transition);
    for (const [expression, windowDays] of expressions) {
      const occurrences = referenceOccurrences(expression, timezone, transitionMs, windowDays);
      fc.assert(
        fc.property(fc.integer({ min: -6 * 3_600_000, max: 6 * 3_600_000 }), (offsetMs) => {
          const instantMs = transitionMs + offsetMs;
          const next = occurrences.find((occurrence) => occurrence > instantMs);
          const latest = occurrences.filter((occurrence) => occurrence <= instantMs).at(-1);
          expect(nextCronTime(expression, timezone, new Date(instantMs)).getTime()).toBe(next);
          expect(latestCronTimeAtOrBefore(expression, timezone, new Date(instantMs), EPOCH)?.getTime()).toBe(latest);
        }),
        { numRuns: 40 },
      );
    }
  });
});

describe('shortestCronGapMs: the period jitter is checked against', () => {
  it.each([
    ['*/5 * * * *', 'UTC', 5 * 60_000],
    ['0 * * * *', 'Europe/Paris', 3_600_000],
    ['0 9 * * 1-5', 'America/New_York', 86_400_000],
    ['0 9,17 * * *', 'UTC', 8 * 3_600_000],
    ['0 0 1 * *', 'UTC', 28 * 86_400_000],
  ])('%s in %s: %i ms', (expression, timezone, expected) => {
    expect(shortestCronGapMs(expression, timezone)).toBe(expected);
  });
});
