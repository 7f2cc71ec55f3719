/** limit/offset paging for list endpoints that answer with X-Total-Count. */
import { useId, useState } from 'react';
import { unwrap } from '../api/client';
import { offsetOfPage, pageNav } from './page-nav';

export interface Page<T> {
  items: T[];
  total: number;
}

/** Like unwrap, and reads the X-Total-Count header (the number of items matching the filter). */
export async function unwrapPage<T>(
  call: Promise<{ data?: T[]; error?: unknown; response: Response }>,
): Promise<Page<T>> {
  const items = await unwrap(call);
  const { response } = await call;
  const total = Number(response.headers.get('X-Total-Count'));
  return { items, total: Number.isFinite(total) && response.headers.has('X-Total-Count') ? total : items.length };
}

/**
 * Previous / next, first / last and a page-number jump, so every item of a long list (100,000
 * endpoints are 1,000 pages) is a few keystrokes away. All controls are native buttons and a
 * labelled number input; the position is announced politely.
 */
export function Pager({
  offset,
  limit,
  total,
  what,
  onChange,
}: {
  offset: number;
  limit: number;
  total: number;
  what: string;
  onChange: (offset: number) => void;
}) {
  const [pageInput, setPageInput] = useState('');
  const inputId = useId();
  if (total <= limit && offset === 0) return null;
  const nav = pageNav(offset, limit, total);
  const go = (target: number) => {
    setPageInput('');
    onChange(target);
  };
  return (
    <nav className="actions pager" aria-label={`Pages of ${what}`}>
      <button type="button" disabled={offset === 0} onClick={() => go(0)}>
        First page
      </button>
      <button type="button" disabled={nav.prevOffset === null} onClick={() => go(nav.prevOffset ?? 0)}>
        Previous page
      </button>
      <span className="muted" aria-live="polite">
        {nav.to < nav.from
          ? `none here (${total} ${what})`
          : `${nav.from}–${nav.to} of ${total} ${what}, page ${nav.page} of ${nav.pageCount}`}
      </span>
      <button type="button" disabled={nav.nextOffset === null} onClick={() => go(nav.nextOffset ?? offset)}>
        Next page
      </button>
      <button type="button" disabled={offset === nav.lastOffset} onClick={() => go(nav.lastOffset)}>
        Last page
      </button>
      {nav.pageCount > 2 ? (
        <form
          className="pager-jump"
          onSubmit={(event) => {
            event.preventDefault();
            const target = offsetOfPage(pageInput, limit, nav.pageCount);
            if (target !== null) go(target);
          }}
        >
          <label htmlFor={inputId}>Page</label>
          <input
            id={inputId}
            type="number"
            inputMode="numeric"
            min={1}
            max={nav.pageCount}
            step={1}
            value={pageInput}
            placeholder={String(nav.page)}
            onChange={(event) => setPageInput(event.target.value)}
          />
          <button type="submit">Go to page</button>
        </form>
      ) : null}
    </nav>
  );
}
