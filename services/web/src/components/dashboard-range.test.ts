import { describe, expect, it } from 'vitest';
import { describeRange, parseRange, rangeDates, utcDate } from './dashboard-range';

describe('parseRange', () => {
  it.each([
    ['today', 'today'],
    ['7d', '7d'],
    ['30d', '30d'],
    [null, '7d'],
    ['90d', '7d'],
    ['', '7d'],
  ])('%s → %s', (value, expected) => expect(parseRange(value)).toBe(expected));
});

describe('rangeDates', () => {
  // 00:30 UTC on 1 March 2028 (a leap year): the UTC day decides, whatever the local zone.
  const now = Date.parse('2028-03-01T00:30:00Z');
  it.each([
    ['today', '2028-03-01', '2028-03-01'],
    ['7d', '2028-02-24', '2028-03-01'],
    ['30d', '2028-02-01', '2028-03-01'],
  ] as const)('%s → %s … %s', (range, startDate, endDate) =>
    expect(rangeDates(range, now)).toEqual({ startDate, endDate }),
  );

  it('uses the UTC day just before midnight UTC', () => {
    expect(utcDate(Date.parse('2026-11-21T23:59:59.999Z'))).toBe('2026-11-21');
  });
});

describe('describeRange', () => {
  it('names one day once and marks the days as UTC', () => {
    expect(describeRange({ startDate: '2026-11-21', endDate: '2026-11-21' })).toMatch(/^\S+ \S+ \(UTC\)$/);
    expect(describeRange({ startDate: '2026-11-21', endDate: '2026-11-27' })).toContain(' – ');
  });
});
