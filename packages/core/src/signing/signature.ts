/**
 * Outbound request signing (X-Service-Signature on every call).
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
 * Grace window (opt-in): with the account setting `signingKeyGraceMinutes` > 0, a rotation
 * keeps the previous key until the window ends, and the header then lists both signatures in one
 * value, space-separated, the current key first: `sha256=<new> sha256=<old>`. A receiver accepts the
 * request when any listed signature verifies, so it can switch to the new key at any point inside the
 * window. With the default 0 the header carries exactly one signature.
 *
 * `verifySignature` is the reference implementation for receivers and for our tests.
 */
import { createHmac, createSecretKey, randomBytes, timingSafeEqual, type KeyObject } from 'node:crypto';

export const SIGNATURE_HEADER = 'X-Service-Signature';
export const SIGNATURE_TIMESTAMP_HEADER = 'X-Service-Timestamp';
/** Recommended replay tolerance for receivers. */
export const SIGNATURE_TOLERANCE_SEC = 300;

/** Upper bound of `signingKeyGraceMinutes`: 7 days, long enough for a weekly deploy of every receiver. */
export const SIGNING_KEY_GRACE_MAX_MINUTES = 10_080;
/** A header lists at most this many signatures; receivers ignore a header with more (no unbounded HMAC work). */
export const MAX_SIGNATURES_PER_HEADER = 4;

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

/**
 * Per raw key: its HMAC key object and the last signature it made. Node 24's createHmac turns a Buffer
 * key into a key object on every call, and first probes it with checks that throw and catch inside
 * Node: 11 µs per signature at an executor's stack depth against 1.6 µs with a key object (measured
 * on this machine), 4 % of the executor's CPU at saturation (`node --cpu-prof`, 3,000 endpoints at
 * 1 s: prepareSecretKey). 10,000 accounts' keys take ≈ 2 MB; the executor holds their raw keys
 * already (services/executor/src/signing-keys.ts). Most recently used last.
 */
interface KeyEntry {
  key: KeyObject;
  /** The last signature made with this key and what it signed (memo: signPayload). */
  timestampSec: number;
  body: string;
  signature: string;
}
const keyEntries = new Map<string, KeyEntry>();
const HMAC_KEY_CAPACITY = 10_000;
/**
 * A signature covers `<timestamp seconds>.<body>`, so the requests of one account in one second with
 * one body (every GET: the empty body) carry the same signature: the last one is kept and handed out
 * again: 1.2 µs of an executor's main thread per request against 9–12 µs signing each one, ≈ 2 % of
 * an execution's CPU in all processes (docs/decisions/0017-signing-keys-cached-and-signatures-reused.md). An instance of many accounts with one endpoint each gains nothing and loses a string
 * comparison. Only bodies up to this length are kept: the memo holds at most 10,000 × 512 characters.
 */
const MEMO_MAX_BODY_CHARS = 512;

function keyEntryOf(rawKey: string): KeyEntry {
  let entry = keyEntries.get(rawKey);
  if (entry === undefined) {
    entry = { key: createSecretKey(Buffer.from(rawKey, 'utf8')), timestampSec: Number.NaN, body: '', signature: '' };
    if (keyEntries.size >= HMAC_KEY_CAPACITY) keyEntries.delete(keyEntries.keys().next().value!);
  } else {
    keyEntries.delete(rawKey);
  }
  keyEntries.set(rawKey, entry);
  return entry;
}

function computeDigest(key: KeyObject, timestampSec: number, body: string): Buffer {
  if (!Number.isSafeInteger(timestampSec)) {
    throw new RangeError(`Signature timestamp must be an integer number of seconds, got ${timestampSec}`);
  }
  return createHmac('sha256', key).update(`${timestampSec}.${body}`, 'utf8').digest();
}

/** The `X-Service-Signature` value for a body sent at `timestampSec` (unix seconds). */
export function signPayload(rawKey: string, timestampSec: number, body: string): string {
  const entry = keyEntryOf(rawKey);
  if (entry.timestampSec === timestampSec && entry.body === body) return entry.signature;
  const signature = `sha256=${computeDigest(entry.key, timestampSec, body).toString('hex')}`;
  if (body.length <= MEMO_MAX_BODY_CHARS) {
    entry.timestampSec = timestampSec;
    entry.body = body;
    entry.signature = signature;
  }
  return signature;
}

/**
 * The header value for several keys (current key first): each signature, space-separated.
 * One key gives exactly `signPayload`'s value.
 */
export function signPayloadWithKeys(rawKeys: readonly string[], timestampSec: number, body: string): string {
  if (rawKeys.length === 0 || rawKeys.length > MAX_SIGNATURES_PER_HEADER) {
    throw new RangeError(`Sign with 1 to ${MAX_SIGNATURES_PER_HEADER} keys, got ${rawKeys.length}`);
  }
  return rawKeys.map((rawKey) => signPayload(rawKey, timestampSec, body)).join(' ');
}

/**
 * True when `signatureHeader` lists a signature of `<timestampSec>.<body>` under `rawKey` and the
 * timestamp lies within `toleranceSec` of `nowSec` (either side: old requests are replays,
 * far-future ones are forged or come from a broken clock). The header holds one signature, or
 * several separated by spaces during a key rotation's grace window; any one of them may match.
 * A malformed entry or more than MAX_SIGNATURES_PER_HEADER entries rejects the whole header.
 * Each digest comparison is constant-time.
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
  // One piece more than allowed is enough to refuse (a long header is not split to the end).
  const entries = signatureHeader.trim().split(/\s+/, MAX_SIGNATURES_PER_HEADER + 1);
  if (entries.length > MAX_SIGNATURES_PER_HEADER) return false;
  const received: Buffer[] = [];
  for (const entry of entries) {
    const match = SIGNATURE_PATTERN.exec(entry);
    if (!match?.[1]) return false;
    received.push(Buffer.from(match[1], 'hex'));
  }
  const expected = computeDigest(keyEntryOf(rawKey).key, timestampSec, body);
  // Compare against every entry (no early exit), so timing does not tell which one matched.
  let isMatch = false;
  for (const digest of received) {
    if (digest.length === expected.length && timingSafeEqual(digest, expected)) isMatch = true;
  }
  return isMatch;
}
