/**
 * The web UI's API client: `@kairos/client` (types generated from the api's OpenAPI document by
 * `pnpm web:api`; `pnpm test` fails when they are stale, so a renamed field breaks the build) on the
 * page's own origin. The browser authenticates with the session cookie; every write carries the
 * CSRF token the api sets in the readable `kairos_csrf` cookie (services/api/src/auth/sessions.ts).
 */
import { KairosApiError, createKairosClient, toApiError, type FieldIssue, type Schemas } from '@kairos/client';
import type { Middleware } from 'openapi-fetch';

export type { FieldIssue, Schemas };

/** An API error in the API's shape ({ error: { code, message, details } }), or a network failure (status 0). */
export class ApiError extends KairosApiError {
  declare readonly status: number;

  constructor(
    status: number,
    code: string,
    message: string,
    issues: FieldIssue[] = [],
    /** The error's details as the API sent them (e.g. `field` and `limit` of QUOTA_EXCEEDED). */
    details: Record<string, unknown> = {},
  ) {
    super(code as KairosApiError['code'], message, status, issues.length > 0 ? { ...details, issues } : details);
    this.name = 'ApiError';
  }
}

export const CSRF_COOKIE = 'kairos_csrf';

export function readCookie(name: string): string | null {
  for (const part of document.cookie.split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return decodeURIComponent(value.join('='));
  }
  return null;
}

const csrf: Middleware = {
  onRequest({ request }) {
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      const token = readCookie(CSRF_COOKIE);
      if (token) request.headers.set('X-CSRF-Token', token);
    }
    return request;
  },
};

export const api = createKairosClient({ baseUrl: '', requestCredentials: 'same-origin' });
api.use(csrf);

/** Awaits an openapi-fetch call: the data on success, else throws an ApiError. */
export async function unwrap<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  let result: { data?: T; error?: unknown; response: Response };
  try {
    result = await call;
  } catch (error) {
    throw new ApiError(0, 'NETWORK', `Kairos could not be reached: ${(error as Error).message}`);
  }
  if (!result.response.ok) {
    const error = toApiError(result.response.status, result.error);
    throw new ApiError(error.status ?? 0, error.code, error.message, error.issues, error.details);
  }
  return result.data as T;
}
