import { describe, expect, it } from 'vitest';
import {
  formatCount,
  formatIntervalLimit,
  formatPeriod,
  percentUsed,
  quotaLevel,
  tierName,
  usageText,
} from './settings-format';

describe('formatCount', () => {
  it.each([
    [0, '0'],
    [999, '999'],
    [12_345, '12,345'],
    [100_000, '100,000'],
    [5_000_000, '5,000,000'],
    [Number.NaN, '—'],
  ])('%d → %s', (value, text) => expect(formatCount(value)).toBe(text));
});

describe('percentUsed', () => {
  it.each([
    [0, 100, 0],
    [12_345, 100_000, 12],
    [999, 1000, 99], // rounded down: not full until it is
    [1000, 1000, 100],
    [1500, 1000, 100], // over the quota still reads 100
    [-5, 100, 0],
    [5, 0, null], // no quota
    [5, Number.NaN, null],
  ])('%d of %d → %s', (used, limit, percent) => expect(percentUsed(used, limit)).toBe(percent));
});

describe('usageText', () => {
  it.each([
    [12_345, 100_000, 'tokens', 'this month', '12,345 of 100,000 tokens this month'],
    [3, 10, 'jobs', '', '3 of 10 jobs'],
    [0, 1, 'jobs', '', '0 of 1 job'],
    [1, 1, 'endpoints', undefined, '1 of 1 endpoint'],
  ])('%d of %d %s', (used, limit, unit, suffix, text) => expect(usageText(used, limit, unit, suffix)).toBe(text));
});

describe('quotaLevel', () => {
  it.each([
    [0, 10, 'ok'],
    [7, 10, 'ok'],
    [8, 10, 'high'],
    [9, 10, 'high'],
    [10, 10, 'full'],
    [11, 10, 'full'],
    [0, 0, 'full'],
  ] as const)('%d of %d → %s', (used, limit, level) => expect(quotaLevel(used, limit)).toBe(level));
});

describe('tierName', () => {
  it.each([
    ['free', 'Free'],
    ['pro', 'Pro'],
    ['enterprise', 'Enterprise'],
    ['custom', 'custom'],
  ])('%s → %s', (tier, name) => expect(tierName(tier)).toBe(name));
});

describe('formatIntervalLimit', () => {
  it.each([
    [60_000, '1 min'],
    [7_200_000, '2 h'],
    [30_000, '30 s'],
    [1500, '1500 ms'],
  ])('%d ms → %s', (ms, text) => expect(formatIntervalLimit(ms)).toBe(text));
});

describe('formatPeriod', () => {
  it.each([
    ['2026-11-01T00:00:00Z', '2026-12-01T00:00:00Z', 'Nov 1 – Dec 1, 2026 (UTC)'],
    ['2026-12-01T00:00:00Z', '2027-01-01T00:00:00Z', 'Dec 1, 2026 – Jan 1, 2027 (UTC)'],
    ['not a date', '2027-01-01T00:00:00Z', '—'],
  ])('%s – %s → %s', (start, end, text) => expect(formatPeriod(start, end)).toBe(text));
});
