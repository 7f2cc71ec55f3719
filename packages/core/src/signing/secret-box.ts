/**
 * Encryption at rest for secrets the service must read back (account signing keys): the closest
 * product stored them in plain text. AES-256-GCM with a random 96-bit IV per value; the GCM tag
 * authenticates the ciphertext, so a wrong master key or a tampered value fails to decrypt
 * instead of yielding garbage.
 *
 * Encoded form: `v1.<base64 iv>.<base64 tag>.<base64 ciphertext>` (standard base64, which never
 * contains `.`), or with named master keys (KAIROS_MASTER_KEY_FILE, `id:key` lines, current first)
 * `v2.<key id>.<iv>.<tag>.<ciphertext>`: a value says which key sealed it, so several keys can be
 * configured while `kairos master-key rotate` re-encrypts every value under the current one.
 *
 * A master key is a Buffer (its 32 bytes) everywhere; named keys are that Buffer with its ring
 * registered beside it (masterKeyRing): the current key encrypts, any key of the ring decrypts. A
 * single unnamed key keeps the v1 format: with nothing new configured, nothing changes.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const FORMAT_VERSION = 'v1';
const NAMED_FORMAT_VERSION = 'v2';
const KEY_ID_PATTERN = /^[A-Za-z0-9_-]{1,32}$/;
const CIPHER = 'aes-256-gcm';
const MASTER_KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const HEX_KEY_PATTERN = /^[0-9a-fA-F]{64}$/;
const BASE64_PATTERN = /^[A-Za-z0-9+/]+={0,2}$/;

function assertMasterKey(masterKey: Buffer): void {
  if (masterKey.length !== MASTER_KEY_BYTES) {
    throw new Error(`Master key must be ${MASTER_KEY_BYTES} bytes, got ${masterKey.length}`);
  }
}

/**
 * Parses the master key from configuration: 64 hex characters, or base64 of exactly 32 bytes.
 * The error never echoes the value (it is a secret).
 */
export function parseMasterKey(value: string): Buffer {
  const trimmed = value.trim();
  if (HEX_KEY_PATTERN.test(trimmed)) return Buffer.from(trimmed, 'hex');
  if (BASE64_PATTERN.test(trimmed)) {
    const decoded = Buffer.from(trimmed, 'base64');
    if (decoded.length === MASTER_KEY_BYTES) return decoded;
  }
  throw new Error(
    `Master key must be 64 hexadecimal characters or base64 of ${MASTER_KEY_BYTES} bytes ` +
      `(got ${trimmed.length} characters); generate one with: openssl rand -hex 32`,
  );
}

export interface NamedMasterKey {
  id: string;
  key: Buffer;
}

/** Named keys of a master key Buffer (masterKeyRing); none for a plain key. */
const RINGS = new WeakMap<Buffer, NamedMasterKey[]>();

/** The master key for `keys` (current first): the current key's bytes, knowing the others. */
export function masterKeyRing(keys: NamedMasterKey[]): Buffer {
  const [current] = keys;
  if (!current) throw new Error('at least one master key is needed');
  const ids = new Set<string>();
  for (const { id, key } of keys) {
    if (!KEY_ID_PATTERN.test(id))
      throw new Error(`master key id ${JSON.stringify(id)} must be 1 to 32 of A-Z a-z 0-9 _ -`);
    if (ids.has(id)) throw new Error(`master key id ${id} is configured twice`);
    ids.add(id);
    assertMasterKey(key);
  }
  const masterKey = Buffer.from(current.key);
  RINGS.set(
    masterKey,
    keys.map(({ id, key }) => ({ id, key: Buffer.from(key) })),
  );
  return masterKey;
}

/** The id of the key that encrypts (null: a single unnamed key, the v1 format). */
export function currentMasterKeyId(masterKey: Buffer): string | null {
  return RINGS.get(masterKey)?.[0]?.id ?? null;
}

/** The ids of the configured named keys, current first. */
export function masterKeyIds(masterKey: Buffer): string[] {
  return (RINGS.get(masterKey) ?? []).map(({ id }) => id);
}

/** True when `encoded` was sealed by the current named key (nothing to re-encrypt). */
export function isUnderCurrentMasterKey(encoded: string, masterKey: Buffer): boolean {
  const id = currentMasterKeyId(masterKey);
  return id !== null && encoded.startsWith(`${NAMED_FORMAT_VERSION}.${id}.`);
}

/**
 * Parses configured master keys: one key (64 hex or base64 of 32 bytes) as today, or several named
 * keys `id:key`, current first, separated by commas or new lines (blank lines and # comments skipped).
 */
export function parseMasterKeys(text: string): Buffer {
  const entries = text
    .split(/[\n,]/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  if (entries.length === 1 && !entries[0]!.includes(':')) return parseMasterKey(entries[0]!);
  if (entries.length === 0) throw new Error('no master key configured');
  return masterKeyRing(
    entries.map((entry) => {
      const separator = entry.indexOf(':');
      if (separator <= 0) throw new Error('with several master keys, each is written id:key (current first)');
      return { id: entry.slice(0, separator).trim(), key: parseMasterKey(entry.slice(separator + 1)) };
    }),
  );
}

export function encryptSecret(plaintext: string, masterKey: Buffer): string {
  assertMasterKey(masterKey);
  const keyId = currentMasterKeyId(masterKey);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv(CIPHER, masterKey, iv, { authTagLength: TAG_BYTES });
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  const tag = cipher.getAuthTag();
  const prefix = keyId === null ? [FORMAT_VERSION] : [NAMED_FORMAT_VERSION, keyId];
  return [...prefix, iv, tag, ciphertext]
    .map((part) => (typeof part === 'string' ? part : part.toString('base64')))
    .join('.');
}

/** Throws when the value is malformed, was encrypted under another master key, or was altered. */
export function decryptSecret(encoded: string, masterKey: Buffer): string {
  assertMasterKey(masterKey);
  const ring = RINGS.get(masterKey);
  if (encoded.startsWith(`${NAMED_FORMAT_VERSION}.`)) {
    const [, keyId, ...parts] = encoded.split('.');
    const named = ring?.find(({ id }) => id === keyId);
    if (!named) throw new Error(`Encrypted secret was sealed by master key ${String(keyId)}, which is not configured`);
    return decryptV1([FORMAT_VERSION, ...parts].join('.'), named.key);
  }
  // v1 values name no key: the current key first, then the others of the ring.
  const candidates = ring ? ring.map(({ key }) => key) : [masterKey];
  let failure: unknown;
  for (const key of candidates) {
    try {
      return decryptV1(encoded, key);
    } catch (error) {
      failure ??= error;
    }
  }
  throw failure;
}

function decryptV1(encoded: string, masterKey: Buffer): string {
  const [version, ivText, tagText, ciphertextText, ...rest] = encoded.split('.');
  if (
    version !== FORMAT_VERSION ||
    ivText === undefined ||
    tagText === undefined ||
    ciphertextText === undefined ||
    rest.length > 0
  ) {
    throw new Error(`Encrypted secret is not in the ${FORMAT_VERSION} format`);
  }
  const iv = Buffer.from(ivText, 'base64');
  const tag = Buffer.from(tagText, 'base64');
  if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) {
    throw new Error(`Encrypted secret is not in the ${FORMAT_VERSION} format`);
  }
  const decipher = createDecipheriv(CIPHER, masterKey, iv, { authTagLength: TAG_BYTES });
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([decipher.update(Buffer.from(ciphertextText, 'base64')), decipher.final()]).toString('utf8');
  } catch {
    throw new Error('Encrypted secret failed authentication: wrong master key or altered value');
  }
}
