import { describe, expect, it } from 'vitest';
import { offsetOfPage, pageNav } from './page-nav';

describe('pageNav', () => {
  it.each([
    // offset, limit, total → page, pageCount, from, to, prev, next, last
    [0, 100, 100_000, 1, 1000, 1, 100, null, 100, 99_900],
    [50_000, 100, 100_000, 501, 1000, 50_001, 50_100, 49_900, 50_100, 99_900],
    [99_900, 100, 100_000, 1000, 1000, 99_901, 100_000, 99_800, null, 99_900],
    [0, 50, 0, 1, 1, 1, 0, null, null, 0],
    [0, 20, 20, 1, 1, 1, 20, null, null, 0],
    [40, 20, 41, 3, 3, 41, 41, 20, null, 40],
    // A stale offset past the end (items were deleted): prev leads back to the last items.
    [300, 100, 120, 4, 2, 301, 120, 20, null, 100],
  ])('offset %i, limit %i, total %i', (offset, limit, total, page, pageCount, from, to, prev, next, last) => {
    expect(pageNav(offset, limit, total)).toEqual({
      page,
      pageCount,
      from,
      to,
      prevOffset: prev,
      nextOffset: next,
      lastOffset: last,
    });
  });

  it('reaches every item exactly once by following nextOffset', () => {
    const seen = new Set<number>();
    let offset: number | null = 0;
    for (let guard = 0; offset !== null && guard < 2000; guard += 1) {
      const nav = pageNav(offset, 100, 100_000);
      for (let item = nav.from; item <= nav.to; item += 1) seen.add(item);
      offset = nav.nextOffset;
    }
    expect(seen.size).toBe(100_000);
  });
});

describe('offsetOfPage', () => {
  it('turns a page number into an offset, clamped to the pages there are', () => {
    expect(offsetOfPage('1', 100, 1000)).toBe(0);
    expect(offsetOfPage(' 734 ', 100, 1000)).toBe(73_300);
    expect(offsetOfPage('5000', 100, 1000)).toBe(99_900);
    expect(offsetOfPage('0', 100, 1000)).toBe(0);
    expect(offsetOfPage('', 100, 1000)).toBeNull();
    expect(offsetOfPage('2.5', 100, 1000)).toBeNull();
    expect(offsetOfPage('abc', 100, 1000)).toBeNull();
  });
});
