/**
 * The account's outbound signing key (SPEC "Signing keys"): one per account, stored only
 * encrypted under the master key (AES-256-GCM, core/signing/secret-box.ts). The raw key leaves
 * these functions only on create and rotate, to be shown once. Rotation replaces the key in place:
 * the executor reads it for every execution (no cache), so the old key is invalid at once.
 */
import { AppError, encryptSecret, generateSigningKey, newId, signingKeyPrefix } from '@kairos/core';
import type { Database } from './client.js';
import type { SigningKey } from './generated/prisma/client.js';
import { Prisma } from './generated/prisma/client.js';

export type SigningKeyInfo = Omit<SigningKey, 'encryptedKey'>;

export interface IssuedSigningKey {
  /** Shown once; never stored or logged. */
  rawKey: string;
  key: SigningKeyInfo;
}

const withoutSecret = { id: true, accountId: true, keyPrefix: true, createdAt: true, rotatedAt: true } as const;

/** A fresh key, as the raw value and the columns to store (used by createAccount too). */
export function newSigningKey(masterKey: Buffer): { rawKey: string; keyPrefix: string; encryptedKey: string } {
  const rawKey = generateSigningKey();
  return { rawKey, keyPrefix: signingKeyPrefix(rawKey), encryptedKey: encryptSecret(rawKey, masterKey) };
}

export async function getSigningKeyInfo(db: Database, accountId: string): Promise<SigningKeyInfo | null> {
  return db.prisma.signingKey.findUnique({ where: { accountId }, select: withoutSecret });
}

/** CONFLICT when the account already has a key (rotate it instead). */
export async function createSigningKey(db: Database, accountId: string, masterKey: Buffer): Promise<IssuedSigningKey> {
  const { rawKey, keyPrefix, encryptedKey } = newSigningKey(masterKey);
  try {
    const key = await db.prisma.signingKey.create({
      data: { id: newId(), accountId, keyPrefix, encryptedKey },
      select: withoutSecret,
    });
    return { rawKey, key };
  } catch (error) {
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002') {
      throw new AppError('CONFLICT', 'a signing key already exists; rotate it with POST /api/signing-keys/rotate');
    }
    throw error;
  }
}

/** NOT_FOUND when the account has no key (create one first). */
export async function rotateSigningKey(
  db: Database,
  accountId: string,
  masterKey: Buffer,
  now: Date,
): Promise<IssuedSigningKey> {
  const { rawKey, keyPrefix, encryptedKey } = newSigningKey(masterKey);
  const { count } = await db.prisma.signingKey.updateMany({
    where: { accountId },
    data: { keyPrefix, encryptedKey, rotatedAt: now },
  });
  if (count === 0) throw new AppError('NOT_FOUND', 'no signing key exists; create one with POST /api/signing-keys');
  const key = await db.prisma.signingKey.findUniqueOrThrow({ where: { accountId }, select: withoutSecret });
  return { rawKey, key };
}
