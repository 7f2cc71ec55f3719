/**
 * Paging over the API's lists: each page answers `X-Total-Count` and an RFC 8288 `Link` header
 * (first, prev, next, last). `pages` follows `next` until it is absent, so it reads every item once
 * whatever the list's filters; the caller's function sends the request (typed by openapi-fetch) with
 * the limit and offset the link names.
 */
import { toApiError } from './errors.js';

export interface Page<T> {
  items: T[];
  /** X-Total-Count: the items matching the filter over all pages. */
  total: number;
  /** Where the next page starts, from the Link header; null on the last page. */
  next: { limit: number; offset: number } | null;
}

export interface Paging {
  limit?: number;
  offset?: number;
}

type ListCall<T> = (paging: Paging) => Promise<{ data?: T[]; error?: unknown; response: Response }>;

/** The relations of a Link header: `{ next: '/api/jobs?limit=100&offset=100', … }`. */
export function parseLinkHeader(header: string | null): Record<string, string> {
  const links: Record<string, string> = {};
  for (const match of (header ?? '').matchAll(/<([^>]*)>\s*((?:;\s*[^;,]+)*)/g)) {
    const rel = /;\s*rel="?([^";]+)"?/.exec(match[2] ?? '')?.[1];
    if (rel) for (const name of rel.trim().split(/\s+/)) links[name] = match[1]!;
  }
  return links;
}

/** The limit and offset a link names (it is relative to the request, or absolute). */
function pagingOf(link: string): { limit: number; offset: number } {
  const query = new URL(link, 'http://link.invalid').searchParams;
  return { limit: Number(query.get('limit')), offset: Number(query.get('offset')) };
}

/** One page of a list call, its total and where the next page starts. Throws KairosApiError. */
export async function fetchPage<T>(list: ListCall<T>, paging: Paging = {}): Promise<Page<T>> {
  const { data, error, response } = await list(paging);
  if (!response.ok) throw toApiError(response.status, error);
  const items = data ?? [];
  const total = Number(response.headers.get('x-total-count'));
  const next = parseLinkHeader(response.headers.get('link')).next;
  return { items, total: Number.isFinite(total) ? total : items.length, next: next ? pagingOf(next) : null };
}

/**
 * Every page from `start`, following the Link header:
 * `for await (const page of pages((paging) => kairos.GET('/api/jobs', { params: { query: paging } })))`.
 */
export async function* pages<T>(list: ListCall<T>, start: Paging = {}): AsyncGenerator<Page<T>> {
  let paging: Paging | null = start;
  while (paging) {
    const page: Page<T> = await fetchPage(list, paging);
    yield page;
    paging = page.next;
  }
}

/** Every item of a list (all pages). */
export async function listAll<T>(list: ListCall<T>, start: Paging = {}): Promise<T[]> {
  const items: T[] = [];
  for await (const page of pages(list, start)) items.push(...page.items);
  return items;
}
