/**
 * The account's outbound signing key : one per account, stored only
 * encrypted under the master key (AES-256-GCM, core/signing/secret-box.ts). The raw key leaves
 * these functions only on create and rotate, to be shown once. Rotation replaces the key in place:
 * the executor reads it for every execution (no cache), so the old key is invalid at once.
 *
 * Grace window (opt-in): when the account's `signingKeyGraceMinutes` is above 0, the
 * rotation moves the replaced key (still encrypted) to `previousEncryptedKey` with
 * `previousExpiresAt` = rotation time + the window; the executor signs with both until then. Only one
 * previous key is kept: rotating again inside a window drops the older one. `revokePreviousSigningKey`
 * ends the window at once. With 0 (the default) a rotation clears any previous key.
 *
 * Shown once: `revealedAt` records when the raw key was shown. Create and rotate show it
 * in their answer, the operator CLI prints the key of the account it creates; an account created at
 * sign-in has never shown its key, so `revealSigningKey` answers it once (decrypted), then CONFLICT.
 */
import { AppError, decryptSecret, encryptSecret, generateSigningKey, newId, signingKeyPrefix } from '@kairos/core';
import type { Database } from './client.js';
import type { SigningKey } from './generated/prisma/client.js';
import { Prisma } from './generated/prisma/client.js';

export type SigningKeyInfo = Omit<SigningKey, 'encryptedKey' | 'previousEncryptedKey'>;

export interface IssuedSigningKey {
  /** Shown once; never stored or logged. */
  rawKey: string;
  key: SigningKeyInfo;
}

/** The columns of SigningKeyInfo: everything but the encrypted keys (accounts.ts selects them too). */
export const SIGNING_KEY_INFO = {
  id: true,
  accountId: true,
  keyPrefix: true,
  createdAt: true,
  rotatedAt: true,
  previousKeyPrefix: true,
  previousExpiresAt: true,
  revealedAt: true,
} as const;

const RETURNING_INFO = `k.id, k."accountId", k."keyPrefix", k."createdAt", k."rotatedAt", k."previousKeyPrefix", k."previousExpiresAt", k."revealedAt"`;

/** A fresh key, as the raw value and the columns to store (used by createAccount too). */
export function newSigningKey(masterKey: Buffer): { rawKey: string; keyPrefix: string; encryptedKey: string } {
  const rawKey = generateSigningKey();
  return { rawKey, keyPrefix: signingKeyPrefix(rawKey), encryptedKey: encryptSecret(rawKey, masterKey) };
}

export async function getSigningKeyInfo(db: Database, accountId: string): Promise<SigningKeyInfo | null> {
  return db.prisma.signingKey.findUnique({ where: { accountId }, select: SIGNING_KEY_INFO });
}

/** CONFLICT when the account already has a key (rotate it instead). The answer shows the key: revealed now. */
export async function createSigningKey(
  db: Database,
  accountId: string,
  masterKey: Buffer,
  now: Date,
): Promise<IssuedSigningKey> {
  const { rawKey, keyPrefix, encryptedKey } = newSigningKey(masterKey);
  try {
    const key = await db.prisma.signingKey.create({
      data: { id: newId(), accountId, keyPrefix, encryptedKey, revealedAt: now },
      select: SIGNING_KEY_INFO,
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
  // One statement: the right-hand sides read the row as it was, so the replaced key moves to
  // previous* in the same write that stores the new one (no window where neither signs).
  const { rows } = await db.pool.query<SigningKeyInfo>(
    `UPDATE signing_keys k
        SET "keyPrefix" = $2, "encryptedKey" = $3, "rotatedAt" = $4, "revealedAt" = $4,
            "previousKeyPrefix"    = CASE WHEN a."signingKeyGraceMinutes" > 0 THEN k."keyPrefix" END,
            "previousEncryptedKey" = CASE WHEN a."signingKeyGraceMinutes" > 0 THEN k."encryptedKey" END,
            "previousExpiresAt"    = CASE WHEN a."signingKeyGraceMinutes" > 0
                                          THEN $4::timestamptz + make_interval(mins => a."signingKeyGraceMinutes") END
       FROM accounts a
      WHERE a.id = k."accountId" AND k."accountId" = $1
  RETURNING ${RETURNING_INFO}`,
    [accountId, keyPrefix, encryptedKey, now],
  );
  const key = rows[0];
  if (!key) throw new AppError('NOT_FOUND', 'no signing key exists; create one with POST /api/signing-keys');
  return { rawKey, key };
}

/**
 * Ends the grace window now: the previous key stops signing from the next request on.
 * NOT_FOUND when there is no previous key still inside its window (none kept, already expired or
 * revoked, or no signing key at all): there is nothing to revoke.
 */
export async function revokePreviousSigningKey(
  db: Database,
  accountId: string,
  now: Date,
): Promise<{ key: SigningKeyInfo; revokedKeyPrefix: string }> {
  const { rows } = await db.pool.query<SigningKeyInfo & { revokedPrefix: string }>(
    `UPDATE signing_keys k
        SET "previousKeyPrefix" = NULL, "previousEncryptedKey" = NULL, "previousExpiresAt" = NULL
       FROM signing_keys old
      WHERE old.id = k.id AND k."accountId" = $1 AND k."previousExpiresAt" > $2
  RETURNING ${RETURNING_INFO}, old."previousKeyPrefix" AS "revokedPrefix"`,
    [accountId, now],
  );
  const row = rows[0];
  if (!row) throw new AppError('NOT_FOUND', 'no previous signing key is in its grace window; nothing to revoke');
  const { revokedPrefix, ...key } = row;
  return { key, revokedKeyPrefix: revokedPrefix };
}

/**
 * The raw key of an account whose key was never shown (created at sign-in), once. One conditional
 * UPDATE marks it revealed and returns it: of two concurrent calls the second waits for the first's
 * row lock, then finds revealedAt set and matches nothing, so only one caller ever gets the key.
 * CONFLICT when it was shown already (rotate for a new one); NOT_FOUND when the account has no key.
 * A key that no longer decrypts (KAIROS_MASTER_KEY changed) throws and stays marked: the executor
 * cannot sign with it either, and a rotation is the way out.
 */
export async function revealSigningKey(
  db: Database,
  accountId: string,
  masterKey: Buffer,
  now: Date,
): Promise<IssuedSigningKey> {
  const { rows } = await db.pool.query<SigningKeyInfo & { encryptedKey: string }>(
    `UPDATE signing_keys k SET "revealedAt" = $2
      WHERE k."accountId" = $1 AND k."revealedAt" IS NULL
  RETURNING ${RETURNING_INFO}, k."encryptedKey"`,
    [accountId, now],
  );
  const row = rows[0];
  if (row) {
    const { encryptedKey, ...key } = row;
    return { rawKey: decryptSecret(encryptedKey, masterKey), key };
  }
  const existing = await getSigningKeyInfo(db, accountId);
  if (!existing) throw new AppError('NOT_FOUND', 'no signing key exists; create one with POST /api/signing-keys');
  throw new AppError(
    'CONFLICT',
    'the signing key was already shown and is never shown again; rotate it with POST /api/signing-keys/rotate for a new one',
    { revealedAt: existing.revealedAt?.toISOString() ?? null },
  );
}
