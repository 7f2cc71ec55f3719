import { randomBytes } from 'node:crypto';
import {
  currentMasterKeyId,
  decryptSecret,
  encryptSecret,
  isUnderCurrentMasterKey,
  masterKeyRing,
  parseMasterKeys,
} from './secret-box.js';

const a = randomBytes(32);
const b = randomBytes(32);

describe('named master keys', () => {
  it('keeps the v1 format for one unnamed key', () => {
    const key = parseMasterKeys(a.toString('hex'));
    expect(currentMasterKeyId(key)).toBeNull();
    expect(encryptSecret('x', key)).toMatch(/^v1\./);
  });

  it('seals under the current key, naming it, and opens values of every configured key', () => {
    const old = masterKeyRing([{ id: 'old', key: a }]);
    const ring = parseMasterKeys(`# keys\nnew:${b.toString('hex')}\nold:${a.toString('base64')}\n`);
    expect(currentMasterKeyId(ring)).toBe('new');
    const sealedOld = encryptSecret('value', old);
    const sealedV1 = encryptSecret('legacy', a);
    const sealedNew = encryptSecret('value', ring);
    expect(sealedOld).toMatch(/^v2\.old\./);
    expect(sealedNew).toMatch(/^v2\.new\./);
    expect(decryptSecret(sealedOld, ring)).toBe('value');
    expect(decryptSecret(sealedV1, ring)).toBe('legacy');
    expect(isUnderCurrentMasterKey(sealedNew, ring)).toBe(true);
    expect(isUnderCurrentMasterKey(sealedOld, ring)).toBe(false);
    expect(() => decryptSecret(sealedNew, old)).toThrow(/master key new, which is not configured/);
  });

  it('refuses malformed configurations without echoing a key', () => {
    expect(() => parseMasterKeys(`${a.toString('hex')},${b.toString('hex')}`)).toThrow(/id:key/);
    expect(() => parseMasterKeys(`x:${a.toString('hex')},x:${b.toString('hex')}`)).toThrow(/twice/);
    expect(() => parseMasterKeys('k:short')).toThrow(/64 hexadecimal/);
    expect(() => parseMasterKeys('k:short')).not.toThrow(/short/);
  });
});
