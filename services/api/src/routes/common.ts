import { errorBody } from '@kairos/core';
import type { ResponseSpec } from '../http/route.js';

/** Error responses every authenticated route can give, for the OpenAPI document. */
export const errorResponses = (...statuses: number[]): Record<number, ResponseSpec> => {
  const descriptions: Record<number, string> = {
    400: 'VALIDATION_ERROR: invalid request data',
    401: 'UNAUTHORIZED: missing or invalid credentials',
    403: 'FORBIDDEN: insufficient permissions',
    404: 'NOT_FOUND: no such resource in your account',
    409: 'CONFLICT: the resource is in a state that does not allow this (e.g. archived)',
    413: 'PAYLOAD_TOO_LARGE: request body over the limit',
  };
  return Object.fromEntries(
    [401, ...statuses].map((status) => [status, { description: descriptions[status] ?? 'error', schema: errorBody }]),
  );
};

/** List routes answer a plain array and say the total in this header. */
export const TOTAL_COUNT_HEADER = 'X-Total-Count';
