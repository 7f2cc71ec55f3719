/** limit/offset paging for list endpoints that answer with X-Total-Count. */
import { unwrap } from '../api/client';

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
  if (total <= limit && offset === 0) return null;
  const last = Math.min(offset + limit, total);
  return (
    <nav className="actions pager" aria-label={`Pages of ${what}`}>
      <button type="button" disabled={offset === 0} onClick={() => onChange(Math.max(0, offset - limit))}>
        Previous page
      </button>
      <span className="muted" aria-live="polite">
        {total === 0 ? 'none' : `${offset + 1}–${last} of ${total} ${what}`}
      </span>
      <button type="button" disabled={last >= total} onClick={() => onChange(offset + limit)}>
        Next page
      </button>
    </nav>
  );
}
