/**
 * The outbound-signature test vectors receivers check their verifier against
 * (docs/signature-test-vectors.json, explained in docs/verifying-signatures.md), built with the very
 * signing functions the executor uses (`signPayload`, and `signPayloadWithKeys` for the header a
 * rotation's grace window sends: `sha256=<new> sha256=<old>`, of @kairos/core).
 *
 *   node --conditions=source --import tsx scripts/signature-test-vectors.ts          # print
 *   node --conditions=source --import tsx scripts/signature-test-vectors.ts --write  # rewrite the file
 *
 * test/signature-vectors.test.ts fails when the file differs from what this builds, so the
 * vectors cannot drift from the signing code.
 *
 * Everything is fixed (keys derived from a label, fixed timestamps): a rebuild gives the same bytes.
 */
import { createHash, createHmac } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  MAX_SIGNATURES_PER_HEADER,
  SIGNATURE_HEADER,
  SIGNATURE_TIMESTAMP_HEADER,
  SIGNATURE_TOLERANCE_SEC,
  signPayload,
  signPayloadWithKeys,
} from '@kairos/core';

export const VECTORS_PATH = join(dirname(fileURLToPath(import.meta.url)), '../docs/signature-test-vectors.json');

/** What Kairos sends: the two header values for one request. */
export interface SignedVector {
  name: string;
  key: string;
  timestamp: string;
  body: string;
  signature: string;
}

/** What Kairos sends inside a key rotation's grace window: one header, the current key's signature first. */
export interface RotationSignedVector {
  name: string;
  /** The current key, then the previous one. */
  keys: [string, string];
  timestamp: string;
  body: string;
  signature: string;
}

/** What a receiver must decide for a request arriving at `now` (unix seconds). */
export interface VerificationVector {
  name: string;
  key: string;
  timestamp: string;
  body: string;
  signature: string;
  now: number;
  valid: boolean;
}

export interface SignatureTestVectors {
  about: string;
  headers: { signature: string; timestamp: string };
  toleranceSeconds: number;
  maxSignaturesPerHeader: number;
  signed: SignedVector[];
  signedDuringRotation: RotationSignedVector[];
  verifications: VerificationVector[];
}

/** A fixed 64-hex-character signing key, shaped like the ones Kairos issues. */
const keyFor = (label: string) => createHash('sha256').update(`kairos signature test vector ${label}`).digest('hex');

// 2025-11-24T16:00:00Z: any fixed instant would do; it only has to stay the same across rebuilds.
const T = 1764000000;

export function buildSignatureTestVectors(): SignatureTestVectors {
  const key = keyFor('key-1');
  const otherKey = keyFor('key-2');
  const sign = (name: string, body: string, timestamp = T, withKey = key): SignedVector => ({
    name,
    key: withKey,
    timestamp: String(timestamp),
    body,
    signature: signPayload(withKey, timestamp, body),
  });

  const signed = [
    sign('GET request: empty body', ''),
    sign('POST with a JSON body', '{"orders":42,"status":"backlog"}'),
    sign(
      'non-ASCII and a newline: the HMAC covers the UTF-8 bytes',
      '{"city":"Zürich","note":"line 1\\nline 2","icon":"⏰"}\n',
    ),
    sign('whitespace a JSON parser would drop', '{ "a" : 1,  "b" : [ 1, 2 ] }'),
    sign('another key and timestamp', 'plain text body', T + 86_400, otherKey),
  ];

  const [empty, json, unicode, spaced] = signed as [SignedVector, SignedVector, SignedVector, SignedVector];
  const at = (vector: SignedVector) => Number(vector.timestamp);
  const verify = (
    name: string,
    vector: SignedVector,
    change: Partial<Omit<VerificationVector, 'name' | 'valid'>>,
    valid: boolean,
  ): VerificationVector => ({
    name,
    key: vector.key,
    timestamp: vector.timestamp,
    body: vector.body,
    signature: vector.signature,
    now: at(vector),
    ...change,
    valid,
  });
  // The trap the signing code's header comment describes: HMAC keyed with the 32 bytes the hex
  // encodes instead of the 64 characters themselves.
  const hexDecodedKeySignature = `sha256=${createHmac('sha256', Buffer.from(key, 'hex')).update(`${json.timestamp}.${json.body}`).digest('hex')}`;

  // Grace window after a rotation: key-1 is the new key, key-3 the previous one.
  const previousKey = keyFor('key-3');
  const rotationVector = (name: string, body: string): RotationSignedVector => ({
    name,
    keys: [key, previousKey],
    timestamp: String(T),
    body,
    signature: signPayloadWithKeys([key, previousKey], T, body),
  });
  const signedDuringRotation = [
    rotationVector('rotation grace window: POST with a JSON body', '{"orders":42,"status":"backlog"}'),
    rotationVector('rotation grace window: GET request, empty body', ''),
  ];
  const [rotation] = signedDuringRotation as [RotationSignedVector];
  const rotationAsSigned = (withKey: string): SignedVector => ({ ...rotation, key: withKey });
  const [newEntry, oldEntry] = rotation.signature.split(' ') as [string, string];

  const verifications = [
    ...signed.map((vector) => verify(`valid: ${vector.name}`, vector, {}, true)),
    verify('valid: 300 s old (the tolerance is inclusive)', json, { now: at(json) + SIGNATURE_TOLERANCE_SEC }, true),
    verify('valid: sent 300 s ahead of the receiver clock', json, { now: at(json) - SIGNATURE_TOLERANCE_SEC }, true),
    verify(
      'valid: upper-case hex digest',
      json,
      { signature: json.signature.toUpperCase().replace('SHA256=', 'sha256=') },
      true,
    ),
    verify('expired: 301 s old', json, { now: at(json) + SIGNATURE_TOLERANCE_SEC + 1 }, false),
    verify('from the future: 301 s ahead', json, { now: at(json) - SIGNATURE_TOLERANCE_SEC - 1 }, false),
    verify('tampered body: one character changed', json, { body: json.body.replace('42', '43') }, false),
    verify('body re-serialised by a JSON parser', spaced, { body: JSON.stringify(JSON.parse(spaced.body)) }, false),
    verify(
      'body decoded as Latin-1 instead of UTF-8',
      unicode,
      { body: Buffer.from(unicode.body, 'utf8').toString('latin1') },
      false,
    ),
    verify('body added to a GET', empty, { body: '{}' }, false),
    verify('wrong key', json, { key: otherKey }, false),
    verify('signed with the hex-decoded key bytes', json, { signature: hexDecodedKeySignature }, false),
    verify(
      'timestamp header changed (replay with a fresh timestamp)',
      json,
      { timestamp: String(at(json) + 60), now: at(json) + 60 },
      false,
    ),
    verify('signature without the sha256= prefix', json, { signature: json.signature.slice('sha256='.length) }, false),
    verify('truncated signature', json, { signature: json.signature.slice(0, -2) }, false),
    verify('empty signature header', json, { signature: '' }, false),
    verify('timestamp header not a number', json, { timestamp: 'yesterday' }, false),
    verify('valid: two signatures (rotation), checked with the new key', rotationAsSigned(key), {}, true),
    verify('valid: two signatures (rotation), checked with the previous key', rotationAsSigned(previousKey), {}, true),
    verify(
      'valid: two signatures in the other order',
      rotationAsSigned(previousKey),
      { signature: `${oldEntry} ${newEntry}` },
      true,
    ),
    verify(
      'valid: two signatures for an empty GET body',
      { ...(signedDuringRotation[1] as RotationSignedVector), key: previousKey },
      {},
      true,
    ),
    verify('two signatures, neither from this key', rotationAsSigned(otherKey), {}, false),
    verify(
      'two signatures, tampered body',
      rotationAsSigned(previousKey),
      { body: rotation.body.replace('42', '43') },
      false,
    ),
    verify(
      'two signatures, one entry malformed',
      rotationAsSigned(key),
      { signature: `${newEntry} sha256=${'z'.repeat(64)}` },
      false,
    ),
    verify(
      `more than ${MAX_SIGNATURES_PER_HEADER} signatures in one header`,
      rotationAsSigned(key),
      {
        signature: Array<string>(MAX_SIGNATURES_PER_HEADER + 1)
          .fill(newEntry)
          .join(' '),
      },
      false,
    ),
  ];

  return {
    about:
      'Kairos outbound request signatures: HMAC-SHA256 keyed with the signing key as shown (its 64 characters as UTF-8), over "<timestamp>.<raw body>", sent as "sha256=<hex>". ' +
      "During a key rotation grace window the header lists both keys' signatures, space-separated, the current key first; a receiver accepts any one that verifies (at most maxSignaturesPerHeader entries, every entry well-formed). " +
      '"signed": header values Kairos sends for key, timestamp and body. "signedDuringRotation": the same for the current and the previous key. "verifications": what a receiver must answer for a request arriving at "now" (unix seconds). ' +
      'Generated by scripts/signature-test-vectors.ts from the signing code; see docs/verifying-signatures.md.',
    headers: { signature: SIGNATURE_HEADER, timestamp: SIGNATURE_TIMESTAMP_HEADER },
    toleranceSeconds: SIGNATURE_TOLERANCE_SEC,
    maxSignaturesPerHeader: MAX_SIGNATURES_PER_HEADER,
    signed,
    signedDuringRotation,
    verifications,
  };
}

export const renderSignatureTestVectors = () => `${JSON.stringify(buildSignatureTestVectors(), null, 2)}\n`;

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  if (process.argv.includes('--write')) writeFileSync(VECTORS_PATH, renderSignatureTestVectors());
  else process.stdout.write(renderSignatureTestVectors());
}
