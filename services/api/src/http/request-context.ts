import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from '@kairos/runtime';

export const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** Request id (client's X-Request-Id when sane, else new), echoed back and put on every log line. */
export function requestContext(logger: Logger) {
  return (req: Request, res: Response, next: NextFunction) => {
    const given = req.headers['x-request-id'];
    const requestId = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    req.requestId = requestId;
    res.setHeader('X-Request-Id', requestId);
    const startedAt = process.hrtime.bigint();
    res.on('finish', () => {
      logger.http('request', {
        requestId,
        method: req.method,
        path: req.path,
        status: res.statusCode,
        durationMs: Number((process.hrtime.bigint() - startedAt) / 1_000_000n),
        accountId: req.auth?.accountId,
      });
    });
    next();
  };
}
