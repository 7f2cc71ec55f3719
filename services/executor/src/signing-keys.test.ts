import { randomBytes } from 'node:crypto';
import { encryptSecret } from '@kairos/core';
import { SigningKeys } from './signing-keys.js';

const masterKey = randomBytes(32);

it('returns the key each stored value holds, and a rotated key at once (a new ciphertext)', () => {
  const keys = new SigningKeys(masterKey);
  const first = encryptSecret('whsec_first', masterKey);
  expect(keys.decrypt(first)).toBe('whsec_first');
  expect(keys.decrypt(first)).toBe('whsec_first');
  // Rotation stores a new ciphertext; even the same key encrypted again is a new value.
  expect(keys.decrypt(encryptSecret('whsec_second', masterKey))).toBe('whsec_second');
  expect(keys.decrypt(encryptSecret('whsec_first', masterKey))).toBe('whsec_first');
  expect(keys.size).toBe(3);
});

it('throws for a value it cannot decrypt, every time, and keeps nothing of it', () => {
  const keys = new SigningKeys(masterKey);
  const foreign = encryptSecret('whsec_other', randomBytes(32));
  expect(() => keys.decrypt(foreign)).toThrow(/failed authentication/);
  expect(() => keys.decrypt(foreign)).toThrow(/failed authentication/);
  expect(keys.size).toBe(0);
});

it('serves a cached key without decrypting, and keeps at most its capacity, least recently used out', () => {
  const ownMaster = Buffer.from(masterKey);
  const keys = new SigningKeys(ownMaster, 2);
  const [a, b, c] = ['a', 'b', 'c'].map((key) => encryptSecret(`whsec_${key}`, masterKey));
  keys.decrypt(a!);
  keys.decrypt(b!);
  keys.decrypt(a!); // a is now the most recently used: b is the oldest
  keys.decrypt(c!); // over capacity: b goes
  // From here nothing can be decrypted (the master key's bytes are gone): only cached keys answer.
  ownMaster.fill(0);
  expect(keys.decrypt(a!)).toBe('whsec_a');
  expect(keys.decrypt(c!)).toBe('whsec_c');
  expect(() => keys.decrypt(b!)).toThrow(/failed authentication/);
  expect(keys.size).toBe(2);
});
