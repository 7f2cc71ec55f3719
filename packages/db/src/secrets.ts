/**
 * Shared secrets (tenant-scoped): names and timestamps are answered, values only ever leave
 * encrypted (packages/core/src/signing/secret-box.ts); the executor decrypts them at call time.
 */
import { AppError, newId } from '@kairos/core';
import type { Database } from './client.js';
import { Prisma } from './generated/prisma/client.js';

export interface SecretInfo {
  name: string;
  createdAt: Date;
  updatedAt: Date;
}

const INFO = { name: true, createdAt: true, updatedAt: true } as const;

export async function listSecrets(db: Database, accountId: string): Promise<SecretInfo[]> {
  return db.prisma.secret.findMany({ where: { accountId }, select: INFO, orderBy: { name: 'asc' } });
}

/** CONFLICT when the account already has a secret of that name. */
export async function createSecret(
  db: Database,
  accountId: string,
  name: string,
  encryptedValue: string,
): Promise<SecretInfo> {
  try {
    return await db.prisma.secret.create({ data: { id: newId(), accountId, name, encryptedValue }, select: INFO });
  } catch (error) {
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002') {
      throw new AppError('CONFLICT', `a secret named ${name} already exists (PUT /api/secrets/${name} changes it)`, {
        field: 'name',
      });
    }
    throw error;
  }
}

/** null when the account has no secret of that name. */
export async function updateSecret(
  db: Database,
  accountId: string,
  name: string,
  encryptedValue: string,
): Promise<SecretInfo | null> {
  const { count } = await db.prisma.secret.updateMany({ where: { accountId, name }, data: { encryptedValue } });
  if (count === 0) return null;
  return db.prisma.secret.findUnique({ where: { accountId_name: { accountId, name } }, select: INFO });
}

/** null when the account has no secret of that name. */
export async function deleteSecret(db: Database, accountId: string, name: string): Promise<SecretInfo | null> {
  const found = await db.prisma.secret.findUnique({ where: { accountId_name: { accountId, name } }, select: INFO });
  if (!found) return null;
  await db.prisma.secret.deleteMany({ where: { accountId, name } });
  return found;
}

/** The encrypted values of an account's secrets (the executor, at call time). */
export async function loadEncryptedSecrets(
  db: Database,
  accountId: string,
): Promise<{ name: string; encryptedValue: string }[]> {
  return db.prisma.secret.findMany({
    where: { accountId },
    select: { name: true, encryptedValue: true },
  });
}
