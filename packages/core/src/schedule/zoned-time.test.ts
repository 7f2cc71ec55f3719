import { fromWallClockMs, isValidTimezone, toWallClockMs } from './zoned-time.js';

const wall = (iso: string): number => Date.parse(`${iso}Z`);
const instant = (iso: string): number => Date.parse(iso);

describe('isValidTimezone', () => {
  it.each([
    ['UTC', true],
    ['America/New_York', true],
    ['Europe/Berlin', true],
    ['Australia/Lord_Howe', true],
    ['Nowhere/Land', false],
    ['', false],
    ['+01:00', false],
  ])('%p -> %p', (timezone, valid) => {
    expect(isValidTimezone(timezone)).toBe(valid);
  });
});

describe('toWallClockMs', () => {
  it.each([
    ['2025-01-15T12:00:00.250Z', 'UTC', '2025-01-15T12:00:00.250'],
    ['2025-01-15T12:00:00.000Z', 'America/New_York', '2025-01-15T07:00:00.000'],
    ['2025-07-15T12:00:00.000Z', 'America/New_York', '2025-07-15T08:00:00.000'],
    ['2025-07-15T23:30:00.000Z', 'Europe/Berlin', '2025-07-16T01:30:00.000'],
    ['1969-12-31T23:59:59.500Z', 'UTC', '1969-12-31T23:59:59.500'],
  ])('%s in %s reads %s', (at, timezone, local) => {
    expect(toWallClockMs(instant(at), timezone)).toBe(wall(local));
  });
});

describe('fromWallClockMs', () => {
  it.each([
    ['ordinary time', '2025-01-15T07:00:00.000', 'America/New_York', '2025-01-15T12:00:00.000Z'],
    ['spring-forward gap -> end of gap', '2025-03-09T02:30:00.000', 'America/New_York', '2025-03-09T07:00:00.000Z'],
    ['first instant after the gap', '2025-03-09T03:00:00.000', 'America/New_York', '2025-03-09T07:00:00.000Z'],
    ['fall-back overlap -> first instant', '2025-11-02T01:30:00.000', 'America/New_York', '2025-11-02T05:30:00.000Z'],
    ['Berlin gap', '2025-03-30T02:15:00.000', 'Europe/Berlin', '2025-03-30T01:00:00.000Z'],
    ['Berlin overlap', '2025-10-26T02:30:00.000', 'Europe/Berlin', '2025-10-26T00:30:00.000Z'],
    ['Lord Howe 30-minute gap', '2025-10-05T02:10:00.000', 'Australia/Lord_Howe', '2025-10-04T15:30:00.000Z'],
  ])('%s: %s in %s is %s', (_case, local, timezone, at) => {
    expect(new Date(fromWallClockMs(wall(local), timezone)).toISOString()).toBe(at);
  });
});
