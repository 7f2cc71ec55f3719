/**
 * limit/offset paging arithmetic for the list pagers. An account may have 100,000 endpoints (1,000
 * pages of 100), so besides previous / next a pager jumps to the first, the last or any page number.
 */
export interface PageNav {
  /** 1-based number of the page that starts at the current offset (on the limit grid from 0). */
  page: number;
  /** Pages in all (at least 1, so an empty list reads "page 1 of 1"). */
  pageCount: number;
  /** 1-based positions of the first and last item shown; from > to when the page is empty. */
  from: number;
  to: number;
  prevOffset: number | null;
  nextOffset: number | null;
  lastOffset: number;
}

export function pageNav(offset: number, limit: number, total: number): PageNav {
  const pageCount = Math.max(1, Math.ceil(total / limit));
  const to = Math.min(offset + limit, total);
  return {
    page: Math.floor(offset / limit) + 1,
    pageCount,
    from: offset + 1,
    to,
    prevOffset: offset > 0 ? Math.max(0, Math.min(offset, total) - limit) : null,
    nextOffset: offset + limit < total ? offset + limit : null,
    lastOffset: (pageCount - 1) * limit,
  };
}

/** The offset of a typed page number, clamped to 1…pageCount; null when it is not a number. */
export function offsetOfPage(input: string, limit: number, pageCount: number): number | null {
  const page = Number(input.trim());
  if (input.trim() === '' || !Number.isInteger(page)) return null;
  return (Math.min(Math.max(page, 1), pageCount) - 1) * limit;
}
