import { generateSecret, hashSecret, newId, type ApiKeyScope } from '@kairos/core';
import type { Database } from './client.js';
import type { Account, ApiKey } from './generated/prisma/client.js';

export async function createApiKey(
  db: Database,
  accountId: string,
  name: string,
  userId: string | null = null,
  options: { scope?: ApiKeyScope; expiresAt?: Date | null } = {},
): Promise<{ record: ApiKey; raw: string }> {
  const secret = generateSecret('kairos');
  const record = await db.prisma.apiKey.create({
    data: {
      id: newId(),
      accountId,
      userId,
      name,
      prefix: secret.prefix,
      keyHash: secret.hash,
      scope: options.scope ?? 'write',
      expiresAt: options.expiresAt ?? null,
    },
  });
  return { record, raw: secret.raw };
}

export async function listApiKeys(db: Database, accountId: string): Promise<ApiKey[]> {
  return db.prisma.apiKey.findMany({ where: { accountId }, orderBy: { createdAt: 'desc' } });
}

/**
 * Revokes one of the account's keys (tenant-scoped: another account's key answers null, as a
 * missing one does). Idempotent: a key already revoked is returned unchanged.
 */
export async function revokeApiKey(db: Database, accountId: string, keyId: string): Promise<ApiKey | null> {
  return revokeKeyWhere(db, { id: keyId, accountId });
}

/** Operator only (the CLI): revokes any account's key by id; null when there is no such key. */
export async function revokeApiKeyAsOperator(db: Database, keyId: string): Promise<ApiKey | null> {
  return revokeKeyWhere(db, { id: keyId });
}

async function revokeKeyWhere(db: Database, where: { id: string; accountId?: string }): Promise<ApiKey | null> {
  const key = await db.prisma.apiKey.findFirst({ where });
  if (!key) return null;
  if (key.revokedAt) return key;
  return db.prisma.apiKey.update({ where: { id: key.id }, data: { revokedAt: new Date() } });
}

/** The live (unrevoked, unexpired) key with this raw value and its account, or null. */
export async function findApiKeyBySecret(
  db: Database,
  raw: string,
  now: Date = new Date(),
): Promise<(ApiKey & { account: Account }) | null> {
  const key = await db.prisma.apiKey.findUnique({ where: { keyHash: hashSecret(raw) }, include: { account: true } });
  if (!key || key.revokedAt) return null;
  return key.expiresAt && key.expiresAt.getTime() <= now.getTime() ? null : key;
}

export async function touchApiKey(db: Database, keyId: string, at: Date): Promise<void> {
  await db.prisma.apiKey.update({ where: { id: keyId }, data: { lastUsedAt: at } });
}
