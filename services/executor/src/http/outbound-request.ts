/**
 * Turns an endpoint's request spec into the exact request that goes on the wire: URL checks,
 * templates, body serialisation, header policy and the signature.
 *
 * Header policy: the service's own headers (X-Service-Signature, X-Service-Timestamp,
 * X-Service-Run-Id, User-Agent) always win; user headers with those names (any case) are dropped,
 * as are Host, Content-Length and the hop-by-hop headers (Connection, Transfer-Encoding,
 * Keep-Alive, Proxy-Connection, TE, Upgrade), which the HTTP client owns. When the execution sends
 * its trace context (tracing on, the endpoint's propagateTrace: call-span.ts), its traceparent and
 * tracestate replace user headers of those names as a pair (a user tracestate beside our traceparent
 * would describe another trace); otherwise user headers of those names go as written.
 *
 * Body: GET never sends one (a GET body is ignored). Objects are sent as JSON (content-type
 * application/json unless the user set a content type); strings are sent as written, with no
 * default content type. The signature covers the exact string sent, or '' when there is no body.
 * Inside a signing key rotation's grace window the signature header lists the current and the
 * previous key's signatures, space-separated (core/signing/signature.ts).
 */
import { validateHeaderName, validateHeaderValue } from 'node:http';
import { SIGNATURE_HEADER, SIGNATURE_TIMESTAMP_HEADER, signPayloadWithKeys } from '@kairos/core';
import { buildTemplateValues, needsRendering, renderBodyTemplate, renderUrlTemplate } from './template.js';
import type { TemplateValues } from './template.js';
import type { ExecutionContext, HttpMethod, HttpRequestSpec } from './types.js';

export const RUN_ID_HEADER = 'X-Service-Run-Id';

const METHODS: ReadonlySet<string> = new Set<HttpMethod>(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);

const DROPPED_USER_HEADERS: ReadonlySet<string> = new Set([
  SIGNATURE_HEADER.toLowerCase(),
  SIGNATURE_TIMESTAMP_HEADER.toLowerCase(),
  RUN_ID_HEADER.toLowerCase(),
  'user-agent',
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'upgrade',
]);

/** A target the service will not call: not http(s), or not a URL at all. */
export class InvalidTargetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidTargetError';
  }
}

export interface RequestSigning {
  rawKey: string;
  /** Set only inside a rotation grace window: its signature follows the current key's in the header. */
  previousRawKey: string | null;
  timestampSec: number;
}

export interface PreparedRequest {
  url: URL;
  method: HttpMethod;
  /** Lower-case names. */
  headers: Record<string, string>;
  body: string | undefined;
  signing: RequestSigning | null;
}

export type PrepareResult = { ok: true; request: PreparedRequest } | { ok: false; message: string };

/** Parses a target URL (first request or redirect hop); only http: and https: are callable. */
export function parseTargetUrl(raw: string | URL): URL | InvalidTargetError {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return new InvalidTargetError(`Invalid URL: ${String(raw)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return new InvalidTargetError(`Unsupported URL scheme "${url.protocol}": only http and https can be called`);
  }
  if (url.hostname === 'unix') {
    // got reads http://unix/<socket>:<path> as a UNIX socket address.
    return new InvalidTargetError('The host name "unix" is reserved for UNIX sockets and cannot be called');
  }
  return url;
}

export function signatureHeaders(signing: RequestSigning, body: string): Record<string, string> {
  return {
    [SIGNATURE_HEADER.toLowerCase()]: signPayloadWithKeys(
      signing.previousRawKey === null ? [signing.rawKey] : [signing.rawKey, signing.previousRawKey],
      signing.timestampSec,
      body,
    ),
    [SIGNATURE_TIMESTAMP_HEADER.toLowerCase()]: String(signing.timestampSec),
  };
}

/** User headers minus the dropped names, lower-cased; an invalid name or value is an error (values are never echoed). */
function sanitiseUserHeaders(headers: Record<string, string>): Record<string, string> | string {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lowerName = name.trim().toLowerCase();
    if (DROPPED_USER_HEADERS.has(lowerName)) continue;
    try {
      validateHeaderName(lowerName);
    } catch {
      return `Invalid header name "${name}"`;
    }
    try {
      validateHeaderValue(lowerName, String(value));
    } catch {
      return `Invalid value for header "${name}" (control characters are not allowed)`;
    }
    result[lowerName] = String(value);
  }
  return result;
}

function serialiseBody(body: HttpRequestSpec['body']): string | undefined {
  if (body === null) return undefined;
  return typeof body === 'string' ? body : JSON.stringify(body);
}

export function prepareRequest(
  spec: HttpRequestSpec,
  ctx: ExecutionContext,
  options: { userAgent: string; now: Date },
): PrepareResult {
  if (!METHODS.has(spec.method)) return { ok: false, message: `Unsupported HTTP method "${String(spec.method)}"` };
  if (!Number.isFinite(spec.timeoutMs) || spec.timeoutMs <= 0) {
    return { ok: false, message: `timeoutMs must be a positive number of milliseconds, got ${spec.timeoutMs}` };
  }
  if (!Number.isFinite(spec.maxResponseSizeKb) || spec.maxResponseSizeKb < 0) {
    return { ok: false, message: `maxResponseSizeKb must be zero or more, got ${spec.maxResponseSizeKb}` };
  }
  // Built on first use: the URL and body rarely hold a token (template.ts).
  let values: TemplateValues | undefined;
  const templateValues = () => (values ??= buildTemplateValues(ctx, options.now));
  const url = parseTargetUrl(needsRendering(spec.url) ? renderUrlTemplate(spec.url, templateValues()) : spec.url);
  if (url instanceof InvalidTargetError) return { ok: false, message: url.message };

  const userHeaders = sanitiseUserHeaders(spec.headers);
  if (typeof userHeaders === 'string') return { ok: false, message: userHeaders };
  const traceHeaders = ctx.traceHeaders?.traceparent ? ctx.traceHeaders : null;
  if (traceHeaders) {
    delete userHeaders.traceparent;
    delete userHeaders.tracestate;
  }

  const body =
    spec.method === 'GET'
      ? undefined
      : serialiseBody(needsRendering(spec.body) ? renderBodyTemplate(spec.body, templateValues()) : spec.body);
  const isJsonBody = body !== undefined && spec.body !== null && typeof spec.body === 'object';
  const signing =
    ctx.signingKey === null
      ? null
      : {
          rawKey: ctx.signingKey,
          previousRawKey: ctx.previousSigningKey ?? null,
          timestampSec: Math.floor(options.now.getTime() / 1000),
        };

  const headers: Record<string, string> = {
    ...(isJsonBody && !('content-type' in userHeaders) ? { 'content-type': 'application/json' } : {}),
    ...userHeaders,
    ...traceHeaders,
    'user-agent': options.userAgent,
    [RUN_ID_HEADER.toLowerCase()]: ctx.runId,
    ...(signing ? signatureHeaders(signing, body ?? '') : {}),
  };
  return { ok: true, request: { url, method: spec.method, headers, body, signing } };
}
