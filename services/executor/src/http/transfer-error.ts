/**
 * Maps what went wrong during a transfer to a Run's errorKind and message. Classification is by
 * error type and Node error code, never by message text. got wraps errors raised in hooks and in
 * the DNS lookup (RequestError with `cause`), so the cause chain is searched.
 */
import { MaxRedirectsError } from 'got';
import { EgressBlockedError } from './egress-guard.js';
import { InvalidTargetError } from './outbound-request.js';
import type { HttpErrorKind } from './types.js';

export interface TransferError {
  kind: HttpErrorKind;
  message: string;
  /** The egress guard's refusal behind a `blocked` error (its detail is for the log only). */
  refusal?: EgressBlockedError;
}

const NETWORK_ERROR_LABELS: Record<string, string> = {
  ECONNREFUSED: 'Connection refused',
  ECONNRESET: 'Connection reset by the server',
  EPIPE: 'Connection closed by the server while sending the request',
  ENOTFOUND: 'DNS lookup failed: host not found',
  EAI_AGAIN: 'DNS lookup failed temporarily',
  EHOSTUNREACH: 'Host unreachable',
  ENETUNREACH: 'Network unreachable',
  ETIMEDOUT: 'Connection timed out',
  HPE_INVALID_CONSTANT: 'Invalid HTTP response',
  ERR_HTTP_CONTENT_LENGTH_MISMATCH: 'Response shorter than its Content-Length',
};

const MAX_CAUSE_DEPTH = 5;

/** The first error of `type` in the cause chain (got wraps errors raised in hooks and the DNS lookup). */
export function findInCauses<T extends Error>(error: unknown, type: new (...args: never[]) => T): T | null {
  let current: unknown = error;
  for (let depth = 0; depth < MAX_CAUSE_DEPTH && current instanceof Error; depth += 1) {
    if (current instanceof type) return current;
    current = current.cause;
  }
  return null;
}

function isTlsError(code: string): boolean {
  return code === 'EPROTO' || code.startsWith('ERR_TLS_') || code.startsWith('ERR_SSL_') || code.includes('CERT');
}

export function describeTransferError(error: unknown, maxRedirects: number): TransferError {
  const blocked = findInCauses(error, EgressBlockedError);
  if (blocked) return { kind: 'blocked', message: blocked.message, refusal: blocked };
  const invalidTarget = findInCauses(error, InvalidTargetError);
  if (invalidTarget) return { kind: 'invalid_request', message: `Redirect refused: ${invalidTarget.message}` };
  if (error instanceof MaxRedirectsError) {
    return { kind: 'http_status', message: `Too many redirects: more than ${maxRedirects} (maxRedirects)` };
  }
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'ERR_UNSUPPORTED_PROTOCOL') return { kind: 'invalid_request', message: `Redirect refused: ${message}` };
  if (typeof code === 'string') {
    const label = NETWORK_ERROR_LABELS[code] ?? (isTlsError(code) ? 'TLS error' : 'Network error');
    return { kind: 'network', message: `${label} (${code}): ${message}` };
  }
  return { kind: 'network', message: `Request failed: ${message}` };
}
