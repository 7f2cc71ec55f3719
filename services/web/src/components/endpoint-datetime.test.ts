import { describe, expect, it } from 'vitest';
import { defaultDateTimeLocal, fromDateTimeLocal, toDateTimeLocal } from './endpoint-datetime';

describe('datetime-local round trip (browser zone)', () => {
  it.each(['2026-03-01T13:05', '2026-12-31T23:59', '2026-01-01T00:00'])('%s', (value) => {
    const iso = fromDateTimeLocal(value);
    expect(iso).not.toBeNull();
    expect(toDateTimeLocal(new Date(iso!))).toBe(value);
  });
});

describe('fromDateTimeLocal', () => {
  it.each(['', 'tomorrow', '2026-03-01', '13:05'])('%j → null', (value) => {
    expect(fromDateTimeLocal(value)).toBeNull();
  });
});

describe('defaultDateTimeLocal', () => {
  it('rounds up to the next whole minute', () => {
    const now = new Date(2026, 2, 1, 13, 5, 20).getTime();
    expect(defaultDateTimeLocal(now, 60)).toBe('2026-03-01T14:06');
    expect(defaultDateTimeLocal(new Date(2026, 2, 1, 13, 5, 0).getTime(), 5)).toBe('2026-03-01T13:10');
  });
});
