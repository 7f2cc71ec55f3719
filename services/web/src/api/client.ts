/**
 * The typed API client. Types come from schema.d.ts, generated from the api's OpenAPI document
 * (`pnpm web:api`; `pnpm test` fails when it is stale), so a renamed field breaks the build.
 * The browser authenticates with the session cookie; every write carries the CSRF token the api
 * sets in the readable `kairos_csrf` cookie (services/api/src/auth/sessions.ts).
 */
import createClient, { type Middleware } from 'openapi-fetch';
import type { components, paths } from './schema';

export type Schemas = components['schemas'];

export interface FieldIssue {
  field: string;
  message: string;
}

/** An API error in the spec's shape ({ error: { code, message, details } }), or a network failure (status 0). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly issues: FieldIssue[] = [],
    /** The error's details as the API sent them (e.g. `field` and `limit` of QUOTA_EXCEEDED). */
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** The first message per field, for showing errors beside form inputs. */
  fieldErrors(): Record<string, string> {
    const errors: Record<string, string> = {};
    for (const issue of this.issues) if (issue.field && !errors[issue.field]) errors[issue.field] = issue.message;
    return errors;
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

export const api = createClient<paths>({ baseUrl: '', credentials: 'same-origin' });
api.use(csrf);

function toApiError(status: number, body: unknown): ApiError {
  const error = (body as { error?: { code?: string; message?: string; details?: { issues?: FieldIssue[] } } })?.error;
  if (error?.code) return new ApiError(status, error.code, error.message ?? error.code, error.details?.issues ?? []);
  return new ApiError(status, 'HTTP_ERROR', `The server answered ${status}.`);
}

/** Awaits an openapi-fetch call: the data on success, else throws an ApiError. */
export async function unwrap<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  let result: { data?: T; error?: unknown; response: Response };
  try {
    result = await call;
  } catch (error) {
    throw new ApiError(0, 'NETWORK', `Kairos could not be reached: ${(error as Error).message}`);
  }
  if (!result.response.ok) throw toApiError(result.response.status, result.error);
  return result.data as T;
}
