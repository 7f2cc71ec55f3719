import { describe, expect, it } from 'vitest';
import { formatUserCode, normalizeUserCode } from './device-code';

describe('normalizeUserCode', () => {
  it.each([
    ['BCDF-GHJK', 'BCDFGHJK'],
    ['bcdf-ghjk', 'BCDFGHJK'],
    ['bcdfghjk', 'BCDFGHJK'],
    [' BCDF GHJK ', 'BCDFGHJK'],
    ['B-C-D-F-G-H-J-K', 'BCDFGHJK'],
    ['BCDF-GHJ', null], // 7 letters
    ['BCDF-GHJKL', null], // 9 letters
    ['BCDF-GHJ1', null], // a digit
    ['', null],
  ])('%j → %s', (input, code) => expect(normalizeUserCode(input)).toBe(code));
});

describe('formatUserCode', () => {
  it.each([
    ['bcdfghjk', 'BCDF-GHJK'],
    ['BCDF GHJK', 'BCDF-GHJK'],
    ['  bcd  ', 'bcd'], // not a code yet: left as typed
    ['', ''],
  ])('%j → %j', (input, text) => expect(formatUserCode(input)).toBe(text));
});
