/**
 * The one error type of Kairos and the one table that maps its codes to HTTP statuses.
 * Expected outcomes (a failed HTTP call, a refused proposal) are values, not errors; this is for
 * requests that cannot be served. Never map errors by matching message text.
 */
export const ERROR_STATUS = {
  VALIDATION_ERROR: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  /** The request conflicts with the resource's state (archived job, signing key exists). */
  CONFLICT: 409,
  /** The request body exceeds the size limit. */
  PAYLOAD_TOO_LARGE: 413,
  /** The request's headers exceed their size bound (answered by the HTTP server itself). */
  HEADERS_TOO_LARGE: 431,
  /** An account quota (jobs, endpoints, runs, AI tokens) would be exceeded. */
  QUOTA_EXCEEDED: 403,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
export type ErrorDetails = Record<string, unknown>;

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails | undefined;

  constructor(code: ErrorCode, message: string, details?: ErrorDetails) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.details = details;
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }

  toBody(): ErrorBody {
    return {
      error: { code: this.code, message: this.message, ...(this.details ? { details: this.details } : {}) },
    };
  }
}

export interface ErrorBody {
  error: { code: ErrorCode; message: string; details?: ErrorDetails };
}

export const notFound = (resource: string, id?: string): AppError =>
  new AppError('NOT_FOUND', `${resource} not found`, id === undefined ? undefined : { id });

export const isAppError = (error: unknown): error is AppError => error instanceof AppError;
