/**
 * The accounts' signing keys, decrypted, by their stored (encrypted) form. Decrypting per execution
 * (AES-256-GCM: Node imports the master key into a new key object for every decipher) was ≈3 % of
 * the executor's CPU at saturation (`node --cpu-prof`, 3,000 endpoints at 1 s: getKeyObjectSlots and
 * getSlots, 0.53 of 18.2 CPU-s). Cached by ciphertext, an entry can never go stale: a rotated key is
 * a new ciphertext (a fresh IV each time), so the very next request is signed with it, and the
 * master key is fixed for the process's life. A value that fails to decrypt is never cached.
 * Endpoints' sealed header values (packages/core/src/signing/sealed-headers.ts) are opened through
 * the same cache: one decryption per stored value, not per run.
 */
import { decryptSecret } from '@kairos/core';

/** 10,000 accounts' keys: ≈ 2 MB at most (a ≈ 110-character ciphertext and a ≈ 50-character key each). */
const CAPACITY = 10_000;

export class SigningKeys {
  /** In use order, oldest first (a Map keeps insertion order; a hit is moved to the end). */
  private readonly plain = new Map<string, string>();

  constructor(
    private readonly masterKey: Buffer,
    private readonly capacity = CAPACITY,
  ) {}

  /** The key `encrypted` holds; throws when it cannot be decrypted (wrong master key, altered value). */
  decrypt(encrypted: string): string {
    const cached = this.plain.get(encrypted);
    if (cached !== undefined) {
      this.plain.delete(encrypted);
      this.plain.set(encrypted, cached);
      return cached;
    }
    const key = decryptSecret(encrypted, this.masterKey);
    this.plain.set(encrypted, key);
    if (this.plain.size > this.capacity) this.plain.delete(this.plain.keys().next().value!);
    return key;
  }

  get size(): number {
    return this.plain.size;
  }
}
