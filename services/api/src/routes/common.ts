import { errorBody } from '@kairos/core';
import { z } from 'zod';
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

/** A timestamp in a response record, and the presenter for nullable ones. */
export const isoTime = z.string().meta({ format: 'date-time', description: 'ISO 8601 UTC timestamp' });
export const isoOrNull = (date: Date | null): string | null => date?.toISOString() ?? null;
