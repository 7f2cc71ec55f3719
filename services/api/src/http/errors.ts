/**
 * Every failure leaves in the API's error shape { error: { code, message, details? } }: AppErrors as
 * they are, body-parser failures (malformed JSON, too large) mapped by their `type`, anything
 * else as INTERNAL_ERROR with the request id — never an HTML page, never a stack trace.
 */
import { AppError, LIMITS } from '@kairos/core';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from '@kairos/runtime';

interface BodyParserError extends Error {
  type?: string;
  status?: number;
  /** http-errors marks client errors (4xx) as safe to show. */
  expose?: boolean;
}

export function toAppError(error: unknown): AppError | null {
  if (error instanceof AppError) return error;
  const parserError = error as BodyParserError;
  switch (parserError?.type) {
    case 'entity.parse.failed':
      return new AppError('VALIDATION_ERROR', 'request body is not valid JSON', { reason: parserError.message });
    case 'entity.too.large':
      return new AppError('PAYLOAD_TOO_LARGE', `request body exceeds ${LIMITS.requestBodyMaxBytes} bytes`, {
        limitBytes: LIMITS.requestBodyMaxBytes,
      });
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new AppError('VALIDATION_ERROR', parserError.message);
    default:
      // Any other client error from reading the body (a corrupt gzip stream answers zlib's
      // "incorrect header check" as a bare 400) is the caller's: 400, never INTERNAL_ERROR.
      if (parserError?.expose && typeof parserError.status === 'number' && parserError.status < 500) {
        return new AppError('VALIDATION_ERROR', `request body could not be read: ${parserError.message}`);
      }
      return null;
  }
}

export function errorHandler(logger: Logger) {
  return (error: unknown, req: Request, res: Response, _next: NextFunction) => {
    const appError = toAppError(error);
    if (appError) {
      // Every RATE_LIMITED answer says when to come back (the rate limiter's, the device-code cap's).
      const retryAfterSec = appError.details?.retryAfterSeconds;
      if (appError.code === 'RATE_LIMITED' && typeof retryAfterSec === 'number') {
        res.setHeader('Retry-After', String(retryAfterSec));
      }
      res.status(appError.status).json(appError.toBody());
      return;
    }
    logger.error('unhandled error', {
      requestId: req.requestId,
      method: req.method,
      path: req.path,
      error: error instanceof Error ? { message: error.message, stack: error.stack } : String(error),
    });
    if (res.headersSent) return;
    res
      .status(500)
      .json(new AppError('INTERNAL_ERROR', 'internal server error', { requestId: req.requestId ?? null }).toBody());
  };
}

export function notFoundHandler(req: Request, _res: Response, next: NextFunction) {
  next(new AppError('NOT_FOUND', `no route for ${req.method} ${req.path}`));
}
