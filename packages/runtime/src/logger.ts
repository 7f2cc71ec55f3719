/**
 * winston JSON logs. Secrets never reach a log line: known secret fields are redacted wherever
 * they appear, and request logging records method, path, status and ids only (never headers or bodies).
 */
import { trace } from '@opentelemetry/api';
import winston from 'winston';

const SECRET_KEYS =
  /^(x-api-key|authorization|cookie|apikey|api_key|rawkey|password|token|access_token|device_code|secret)$/i;

const redact = winston.format((info) => {
  for (const key of Object.keys(info)) {
    if (SECRET_KEYS.test(key)) info[key] = '[redacted]';
  }
  return info;
});

/**
 * `trace_id` and `span_id` of the active span (tracing on only: with the API's no-op context manager
 * there is never one), so a log line leads to its trace.
 */
const traceIds = winston.format((info) => {
  const span = trace.getActiveSpan();
  if (span) {
    const { traceId, spanId } = span.spanContext();
    info.trace_id = traceId;
    info.span_id = spanId;
  }
  return info;
});

export function createLogger(service: string, level = process.env.LOG_LEVEL ?? 'info'): winston.Logger {
  return winston.createLogger({
    level,
    defaultMeta: { service },
    format: winston.format.combine(
      redact(),
      traceIds(),
      winston.format.timestamp(),
      winston.format.errors({ stack: true }),
      winston.format.json(),
    ),
    transports: [new winston.transports.Console({ silent: process.env.KAIROS_SILENT_LOGS === 'true' })],
  });
}

export type Logger = winston.Logger;
