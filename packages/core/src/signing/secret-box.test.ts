import { randomBytes } from 'node:crypto';
import { decryptSecret, encryptSecret, parseMasterKey } from './secret-box.js';

const MASTER_KEY = Buffer.from('000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f', 'hex');
const SIGNING_KEY = '5f0c2a9e8b7d6c5f4e3d2c1b0a998877665544332211ffeeddccbbaa00112233';

/** Replaces one base64 part of an encoded secret with the same bytes, one bit flipped. */
function flipBit(encoded: string, partIndex: number): string {
  const parts = encoded.split('.');
  const bytes = Buffer.from(parts[partIndex]!, 'base64');
  bytes[0] = bytes[0]! ^ 0x01;
  parts[partIndex] = bytes.toString('base64');
  return parts.join('.');
}

describe('encryptSecret / decryptSecret', () => {
  it('round-trips, including empty and multi-byte values', () => {
    for (const plaintext of [SIGNING_KEY, '', 'clé secrète ☀']) {
      expect(decryptSecret(encryptSecret(plaintext, MASTER_KEY), MASTER_KEY)).toBe(plaintext);
    }
  });

  it('uses the versioned v1.<iv>.<tag>.<ciphertext> format with a fresh IV each time', () => {
    const first = encryptSecret(SIGNING_KEY, MASTER_KEY);
    const second = encryptSecret(SIGNING_KEY, MASTER_KEY);
    expect(first).toMatch(/^v1\.[A-Za-z0-9+/=]{16}\.[A-Za-z0-9+/=]{24}\.[A-Za-z0-9+/=]+$/);
    expect(first).not.toBe(second);
    expect(first).not.toContain(SIGNING_KEY);
  });

  it('fails with another master key', () => {
    const encoded = encryptSecret(SIGNING_KEY, MASTER_KEY);
    expect(() => decryptSecret(encoded, randomBytes(32))).toThrow(/failed authentication/);
  });

  it.each([
    ['ciphertext', 3],
    ['tag', 2],
    ['iv', 1],
  ])('fails when the %s is altered', (_name, partIndex) => {
    const encoded = encryptSecret(SIGNING_KEY, MASTER_KEY);
    expect(() => decryptSecret(flipBit(encoded, partIndex), MASTER_KEY)).toThrow(/failed authentication/);
  });

  it.each(['', 'v1.abc', 'v3.AAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA==.AA==', SIGNING_KEY])(
    'rejects a malformed value %j',
    (encoded) => {
      expect(() => decryptSecret(encoded, MASTER_KEY)).toThrow(/not in the v1 format/);
    },
  );

  it('rejects a value sealed by a named key this master key does not hold', () => {
    expect(() => decryptSecret('v2.AAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA==.AA==', MASTER_KEY)).toThrow(
      /master key AAAAAAAAAAAAAAAA, which is not configured/,
    );
  });

  it('refuses a master key of the wrong length', () => {
    expect(() => encryptSecret(SIGNING_KEY, randomBytes(16))).toThrow(/32 bytes/);
  });
});

describe('parseMasterKey', () => {
  it('accepts 64 hex characters', () => {
    expect(parseMasterKey(MASTER_KEY.toString('hex'))).toEqual(MASTER_KEY);
    expect(parseMasterKey(` ${MASTER_KEY.toString('hex').toUpperCase()}\n`)).toEqual(MASTER_KEY);
  });

  it('accepts base64 of 32 bytes', () => {
    expect(parseMasterKey(MASTER_KEY.toString('base64'))).toEqual(MASTER_KEY);
  });

  it.each([
    ['empty', ''],
    ['too short hex', 'abcd'],
    ['63 hex characters', MASTER_KEY.toString('hex').slice(1)],
    ['base64 of 16 bytes', randomBytes(16).toString('base64')],
    ['not base64', 'this is not a key!'],
  ])('rejects %s with a message that does not echo the value', (_name, value) => {
    expect(() => parseMasterKey(value)).toThrow(/64 hexadecimal characters or base64 of 32 bytes/);
    try {
      parseMasterKey(value);
    } catch (error) {
      if (value.length > 0) expect((error as Error).message).not.toContain(value);
    }
  });
});
