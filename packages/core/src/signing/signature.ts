/**
 * Outbound request signing (SPEC "Authentication > Outbound").
 *
 * Every execution request carries `X-Service-Timestamp: <unix seconds>` and
 * `X-Service-Signature: sha256=<hex>`, where the digest is HMAC-SHA256 over the exact string
 * `<timestamp>.<body>` (`body` is the raw request body, the empty string when none is sent).
 *
 * Keying decision: the HMAC key is the rawKey *string* as UTF-8 bytes (its 64 hex characters), not
 * the 32 bytes the hex encodes. A receiver holds the rawKey exactly as it was shown to them and
 * naturally writes `createHmac('sha256', rawKey)`; decoding the hex first would be a trap for every
 * receiver in every language. The key still carries 256 bits of entropy either way.
 *
 * `verifySignature` is the reference implementation for receivers and for our tests.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'X-Service-Signature';
export const SIGNATURE_TIMESTAMP_HEADER = 'X-Service-Timestamp';
/** Recommended replay tolerance for receivers (SPEC "Limits"). */
export const SIGNATURE_TOLERANCE_SEC = 300;

const SIGNING_KEY_BYTES = 32;
const SIGNING_KEY_PREFIX_LENGTH = 8;
const SIGNATURE_PATTERN = /^sha256=([0-9a-f]{64})$/i;

/** A new account signing key: 32 random bytes as 64 lowercase hex characters. */
export function generateSigningKey(): string {
  return randomBytes(SIGNING_KEY_BYTES).toString('hex');
}

/** The short, non-secret prefix shown in key listings (`keyPrefix`). */
export function signingKeyPrefix(rawKey: string): string {
  return rawKey.slice(0, SIGNING_KEY_PREFIX_LENGTH);
}

function computeDigest(rawKey: string, timestampSec: number, body: string): Buffer {
  if (!Number.isSafeInteger(timestampSec)) {
    throw new RangeError(`Signature timestamp must be an integer number of seconds, got ${timestampSec}`);
  }
  return createHmac('sha256', Buffer.from(rawKey, 'utf8')).update(`${timestampSec}.${body}`, 'utf8').digest();
}

/** The `X-Service-Signature` value for a body sent at `timestampSec` (unix seconds). */
export function signPayload(rawKey: string, timestampSec: number, body: string): string {
  return `sha256=${computeDigest(rawKey, timestampSec, body).toString('hex')}`;
}

/**
 * True when `signatureHeader` is the signature of `<timestampSec>.<body>` under `rawKey` and the
 * timestamp lies within `toleranceSec` of `nowSec` (either side: old requests are replays,
 * far-future ones are forged or come from a broken clock). The digest comparison is constant-time.
 */
export function verifySignature(
  rawKey: string,
  timestampSec: number,
  body: string,
  signatureHeader: string,
  nowSec: number,
  toleranceSec: number = SIGNATURE_TOLERANCE_SEC,
): boolean {
  if (!Number.isSafeInteger(timestampSec) || Math.abs(nowSec - timestampSec) > toleranceSec) return false;
  const match = SIGNATURE_PATTERN.exec(signatureHeader.trim());
  if (!match?.[1]) return false;
  const received = Buffer.from(match[1], 'hex');
  const expected = computeDigest(rawKey, timestampSec, body);
  return received.length === expected.length && timingSafeEqual(received, expected);
}
