/**
 * API errors as values of one type: the API's `{ error: { code, message, details } }` with the HTTP
 * status, or SERVICE_UNAVAILABLE with no status when no answer arrived (unreachable, timed out).
 */
import type { components } from './schema.js';

/** The API's error codes (VALIDATION_ERROR, NOT_FOUND, RATE_LIMITED …), as its OpenAPI document lists them. */
export type ApiErrorCode = components['schemas']['Error']['error']['code'];
/** A code the client gives itself: an answer that is not the API's error shape. */
export type ClientErrorCode = 'HTTP_ERROR';

export interface FieldIssue {
  field: string;
  message: string;
}

export class KairosApiError extends Error {
  constructor(
    /** The API's error.code, or SERVICE_UNAVAILABLE when unreachable, HTTP_ERROR for a foreign answer. */
    readonly code: ApiErrorCode | ClientErrorCode,
    message: string,
    /** HTTP status; null when no response arrived. */
    readonly status: number | null,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'KairosApiError';
  }

  /** VALIDATION_ERROR's problems, each naming its field (`jobs[1].endpoints[0].baselineIntervalMs`). */
  get issues(): FieldIssue[] {
    const issues = this.details?.issues;
    return Array.isArray(issues) ? (issues as FieldIssue[]) : [];
  }

  /** The first message per field, for showing errors beside form inputs. */
  fieldErrors(): Record<string, string> {
    const errors: Record<string, string> = {};
    for (const issue of this.issues) if (issue.field && !errors[issue.field]) errors[issue.field] = issue.message;
    return errors;
  }
}

/** The API's error body, or a code from the status for any other answer (a proxy's HTML page). */
export function toApiError(status: number, body: unknown): KairosApiError {
  const error = (body as { error?: unknown } | null | undefined)?.error;
  if (error && typeof error === 'object' && typeof (error as { code?: unknown }).code === 'string') {
    const { code, message, details } = error as { code: ApiErrorCode; message?: unknown; details?: unknown };
    return new KairosApiError(
      code,
      typeof message === 'string' ? message : code,
      status,
      details && typeof details === 'object' ? (details as Record<string, unknown>) : undefined,
    );
  }
  const code = STATUS_CODES[status] ?? (status >= 500 ? 'INTERNAL_ERROR' : 'HTTP_ERROR');
  const text = typeof body === 'string' && body ? `: ${body.slice(0, 200)}` : '';
  return new KairosApiError(code, `the API answered HTTP ${status}${text}`, status);
}

const STATUS_CODES: Record<number, ApiErrorCode> = {
  400: 'VALIDATION_ERROR',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  429: 'RATE_LIMITED',
  503: 'SERVICE_UNAVAILABLE',
};

/** The outcome of an openapi-fetch call: its data, or (settle) the error as a value. */
type FetchResult<T> = Promise<{ data?: T; error?: unknown; response: Response }>;

/** The data of a call, or throws its KairosApiError. */
export async function unwrap<T>(call: FetchResult<T>): Promise<T> {
  const result = await call;
  if (!result.response.ok) throw toApiError(result.response.status, result.error);
  return result.data as T;
}

/** The data of a call or its error, as a value: `{ ok: true, data }` or `{ ok: false, error }`. */
export async function settle<T>(
  call: FetchResult<T>,
): Promise<{ ok: true; data: T; response: Response } | { ok: false; error: KairosApiError }> {
  try {
    const result = await call;
    if (!result.response.ok) return { ok: false, error: toApiError(result.response.status, result.error) };
    return { ok: true, data: result.data as T, response: result.response };
  } catch (error) {
    if (error instanceof KairosApiError) return { ok: false, error };
    throw error;
  }
}
