/**
 * Sensitive header values at rest: the values the API masks (maskHeaders: a name matching
 * SENSITIVE_HEADER_PATTERN, not only shared-secret references) are stored sealed under the master
 * key, all of one endpoint's in one value (`sealedHeaders`, the secret-box format, naming its key),
 * while the plain headers keep each such name with the mask. Opening puts the values back in place
 * of the mask; a row without sealed values (stored before) is read as it is.
 */
import { MASKED_HEADER_VALUE } from '../schemas/limits.js';
import { maskHeaders } from '../schemas/endpoint.js';
import { encryptSecret } from './secret-box.js';

export interface SealedHeaders {
  /** The headers with every sealed value replaced by the mask. */
  headers: Record<string, string> | null;
  /** The sealed values (a JSON object, name → value, encrypted); null when none is sensitive. */
  sealedHeaders: string | null;
}

/** Seals the sensitive values of `headers` under `masterKey`. */
export function sealHeaders(headers: Record<string, string> | null, masterKey: Buffer): SealedHeaders {
  const masked = maskHeaders(headers);
  if (!headers || !masked) return { headers, sealedHeaders: null };
  const values: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (masked[name] === MASKED_HEADER_VALUE && value !== MASKED_HEADER_VALUE) values[name] = value;
  }
  if (Object.keys(values).length === 0) return { headers, sealedHeaders: null };
  return { headers: masked, sealedHeaders: encryptSecret(JSON.stringify(values), masterKey) };
}

/**
 * The headers with their sealed values in place. `decrypt` opens a secret-box value (decryptSecret
 * with the master key, or a cache of it); it throws when the value cannot be opened.
 */
export function openHeaders(
  headers: Record<string, string> | null,
  sealedHeaders: string | null,
  decrypt: (sealed: string) => string,
): Record<string, string> | null {
  if (!headers || sealedHeaders === null) return headers;
  const values = JSON.parse(decrypt(sealedHeaders)) as Record<string, string>;
  return Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [
      name,
      value === MASKED_HEADER_VALUE && Object.hasOwn(values, name) ? values[name]! : value,
    ]),
  );
}

/**
 * Shorter values are not masked in what a run records: replacing every "1" or "yes" of a response
 * body would alter it more than it protects.
 */
export const MIN_MASKED_HEADER_VALUE_LENGTH = 6;

/**
 * The sensitive values of `headers` (those maskHeaders masks) that a record must never show, the
 * longest first: each whole value and, for `Scheme credential`, the credential alone.
 */
export function sensitiveHeaderValues(headers: Record<string, string> | null): string[] {
  const masked = maskHeaders(headers);
  if (!headers || !masked) return [];
  const values = new Set<string>();
  for (const [name, value] of Object.entries(headers)) {
    if (masked[name] !== MASKED_HEADER_VALUE || value === MASKED_HEADER_VALUE) continue;
    values.add(value);
    const credential = SCHEME_AND_CREDENTIAL.exec(value)?.[1];
    if (credential !== undefined) values.add(credential);
  }
  return [...values]
    .filter((value) => value.length >= MIN_MASKED_HEADER_VALUE_LENGTH)
    .sort((a, b) => b.length - a.length);
}
const SCHEME_AND_CREDENTIAL = /^[A-Za-z-]{1,20} +(\S+)$/;

/** `value` (a string or JSON, keys too) with each of `values` replaced by the mask. */
export function maskHeaderValues(value: unknown, values: readonly string[]): unknown {
  if (values.length === 0) return value;
  if (typeof value === 'string') {
    let masked = value;
    for (const secret of values) {
      for (const form of new Set([secret, encodeURIComponent(secret)])) {
        if (masked.includes(form)) masked = masked.split(form).join(MASKED_HEADER_VALUE);
      }
    }
    return masked;
  }
  if (Array.isArray(value)) return value.map((item) => maskHeaderValues(item, values));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [maskHeaderValues(key, values), maskHeaderValues(item, values)]),
    );
  }
  return value;
}
