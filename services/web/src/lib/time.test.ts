import { describe, expect, it } from 'vitest';
import { formatDuration, formatRelative } from './time';

describe('formatDuration', () => {
  it.each([
    [250, '250 ms'],
    [1000, '1 s'],
    [90_000, '1 min 30 s'],
    [3_600_000, '1 h'],
    [5_400_000, '1 h 30 min'],
    [86_400_000 * 2 + 3_600_000, '2 d 1 h'],
    [59_600, '1 min'], // rounding carries into the larger unit
    [18 * 60_000 + 59_700, '19 min'],
    [8 * 86_400_000 + 23.6 * 3_600_000, '9 d'],
    [3_600_000 + 30_000, '1 h 1 min'],
    [-90_000, '-1 min 30 s'],
  ])('%d ms → %s', (ms, text) => expect(formatDuration(ms)).toBe(text));
});

describe('formatRelative', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  it('says future times as "in …" and past ones as "… ago"', () => {
    expect(formatRelative('2026-01-01T00:00:12Z', now)).toBe('in 12 s');
    expect(formatRelative('2025-12-31T23:57:00Z', now)).toBe('3 min ago');
    expect(formatRelative(null, now)).toBe('—');
  });
});
