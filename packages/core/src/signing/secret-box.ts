/**
 * Encryption at rest for secrets the service must read back (account signing keys): the closest
 * product stored them in plain text. AES-256-GCM with a random 96-bit IV per value; the GCM tag
 * authenticates the ciphertext, so a wrong master key or a tampered value fails to decrypt
 * instead of yielding garbage.
 *
 * Encoded form: `v1.<base64 iv>.<base64 tag>.<base64 ciphertext>` (standard base64, which never
 * contains `.`). The version prefix lets a later format (another cipher, associated data, key ids
 * for master-key rotation) coexist with stored v1 values.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const FORMAT_VERSION = 'v1';
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

export function encryptSecret(plaintext: string, masterKey: Buffer): string {
  assertMasterKey(masterKey);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv(CIPHER, masterKey, iv, { authTagLength: TAG_BYTES });
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  const tag = cipher.getAuthTag();
  return [FORMAT_VERSION, iv, tag, ciphertext]
    .map((part) => (typeof part === 'string' ? part : part.toString('base64')))
    .join('.');
}

/** Throws when the value is malformed, was encrypted under another master key, or was altered. */
export function decryptSecret(encoded: string, masterKey: Buffer): string {
  assertMasterKey(masterKey);
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
