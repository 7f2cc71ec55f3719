import { errorBody } from '@kairos/core';
import type { Request } from 'express';
import { z } from 'zod';
import { withoutTrailingSlashes } from '../auth/pages.js';
import type { ResponseSpec } from '../http/route.js';

/** Error responses every authenticated route can give, for the OpenAPI document. */
export const errorResponses = (...statuses: number[]): Record<number, ResponseSpec> => {
  const descriptions: Record<number, string> = {
    400: 'VALIDATION_ERROR: invalid request data',
    401: 'UNAUTHORIZED: missing or invalid credentials',
    403: 'FORBIDDEN: insufficient permissions (or QUOTA_EXCEEDED: an account quota, named in details.quota)',
    404: 'NOT_FOUND: no such resource in your account',
    409: 'CONFLICT: the resource is in a state that does not allow this (e.g. archived)',
    413: 'PAYLOAD_TOO_LARGE: request body over the limit',
    429: 'RATE_LIMITED: too many requests (see Retry-After and the X-RateLimit-* headers)',
  };
  // Every authenticated route can refuse credentials (401), a disabled account, a CSRF check or a
  // quota (403) and the rate limit (429).
  return Object.fromEntries(
    [...new Set([401, 403, 429, ...statuses])].map((status) => [
      status,
      { description: descriptions[status] ?? 'error', schema: errorBody },
    ]),
  );
};

/** List routes answer a plain array and say the total in this header. */
export const TOTAL_COUNT_HEADER = 'X-Total-Count';

/** RFC 8288 links to the neighbouring pages of a list (first, prev, next, last). */
export const LINK_HEADER = 'Link';

/** The OpenAPI description of the headers every paged list answers with. */
export const pageHeaderDocs = (total: string): Record<string, string> => ({
  [TOTAL_COUNT_HEADER]: total,
  [LINK_HEADER]:
    'RFC 8288 links to the first, prev, next and last pages, e.g. `</api/jobs?limit=100&offset=100>; rel="next"`: ' +
    'the request with only offset (and limit) changed, relative to the request, absolute under KAIROS_PUBLIC_URL ' +
    'when set. A relation is absent when there is no such page (no next on the last page, no prev on the first; ' +
    'no header at all for an empty list).',
});

export interface PageLinkInput {
  limit: number;
  offset: number;
  total: number;
}

/**
 * The Link header value for one page, or null when the list is empty. Pages sit on the grid of the
 * request's limit from offset 0 (first, last); prev and next step by limit from the request's
 * offset, so a client following next from any offset reads every item once. Other query
 * parameters (filters) are kept as the client sent them.
 */
export function pageLinks(pathAndQuery: string, page: PageLinkInput, publicUrl?: string): string | null {
  const { limit, offset, total } = page;
  if (total <= 0) return null;
  const parsed = new URL(pathAndQuery, 'http://placeholder');
  const base = publicUrl ? withoutTrailingSlashes(publicUrl) : '';
  const href = (pageOffset: number): string => {
    const params = new URLSearchParams(parsed.search);
    params.set('limit', String(limit));
    params.set('offset', String(pageOffset));
    return `${base}${parsed.pathname}?${params.toString()}`;
  };
  const links: [string, number][] = [['first', 0]];
  if (offset > 0) links.push(['prev', Math.max(0, Math.min(offset, total) - limit)]);
  if (offset + limit < total) links.push(['next', offset + limit]);
  links.push(['last', Math.floor((total - 1) / limit) * limit]);
  return links.map(([rel, pageOffset]) => `<${href(pageOffset)}>; rel="${rel}"`).join(', ');
}

/** X-Total-Count and Link for a paged list response. */
export function pageHeaders(req: Request, page: PageLinkInput, publicUrl?: string): Record<string, string> {
  const link = pageLinks(req.originalUrl, page, publicUrl);
  return { [TOTAL_COUNT_HEADER]: String(page.total), ...(link ? { [LINK_HEADER]: link } : {}) };
}

/** A timestamp in a response record, and the presenter for nullable ones. */
export const isoTime = z.string().meta({ format: 'date-time', description: 'ISO 8601 UTC timestamp' });
export const isoOrNull = (date: Date | null): string | null => date?.toISOString() ?? null;
