import { AppError, generateSecret, newId } from '@kairos/core';
import type { Database } from './client.js';
import type { Account, ApiKey, Tier, User } from './generated/prisma/client.js';
import { Prisma } from './generated/prisma/client.js';
import { SIGNING_KEY_INFO, newSigningKey, type SigningKeyInfo } from './signing-keys.js';

export interface CreateAccountInput {
  email: string;
  /**
   * The address is proved: an identity provider verified it, or an operator creates the user. Default
   * false: a sign-in through another identity never links to an unverified user (auth/sign-in.ts).
   */
  emailVerified?: boolean;
  name?: string;
  tier?: Tier;
  operator?: boolean;
  /** Name of the first API key; omit to create none. */
  apiKeyName?: string;
}

export interface CreatedAccount {
  account: Account;
  user: User;
  apiKey: { record: ApiKey; raw: string } | null;
  /**
   * Created with the account . Unless the caller shows it (signingKeyRevealedAt),
   * POST /api/signing-keys/reveal shows it once later (the web UI's first Settings visit).
   */
  signingKey: SigningKeyInfo;
  /** The raw signing key, for a caller that shows it now (the operator CLI prints it); never stored in clear. */
  rawSigningKey: string;
}

export interface CreateAccountOptions {
  /** Encrypts the account's signing key at rest. */
  masterKey: Buffer;
  /** Set when the caller shows rawSigningKey now (the operator CLI): the key then counts as revealed. */
  signingKeyRevealedAt?: Date;
}

/**
 * A new tenant with its first user, its outbound signing key (and optionally its first API key),
 * in one transaction.
 */
export async function createAccount(
  db: Database,
  input: CreateAccountInput,
  options: CreateAccountOptions,
): Promise<CreatedAccount> {
  const accountId = newId();
  const userId = newId();
  const secret = input.apiKeyName ? generateSecret('kairos') : null;
  const { rawKey: rawSigningKey, keyPrefix, encryptedKey } = newSigningKey(options.masterKey);
  try {
    return await db.prisma.$transaction(async (tx) => {
      const account = await tx.account.create({
        data: { id: accountId, name: input.name ?? input.email, tier: input.tier ?? 'free' },
      });
      const user = await tx.user.create({
        data: {
          id: userId,
          accountId,
          email: input.email.toLowerCase(),
          emailVerified: input.emailVerified ?? false,
          name: input.name ?? null,
          role: input.operator ? 'operator' : 'member',
        },
      });
      await tx.membership.createMany({ data: [{ userId, accountId, role: 'owner' }], skipDuplicates: true });
      const apiKey = secret
        ? {
            raw: secret.raw,
            record: await tx.apiKey.create({
              data: {
                id: newId(),
                accountId,
                userId,
                name: input.apiKeyName!,
                prefix: secret.prefix,
                keyHash: secret.hash,
              },
            }),
          }
        : null;
      const signingKey = await tx.signingKey.create({
        data: { id: newId(), accountId, keyPrefix, encryptedKey, revealedAt: options.signingKeyRevealedAt ?? null },
        select: SIGNING_KEY_INFO,
      });
      return { account, user, apiKey, signingKey, rawSigningKey };
    });
  } catch (error) {
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002') {
      throw new AppError('CONFLICT', `a user with email ${input.email} already exists`, { field: 'email' });
    }
    throw error;
  }
}

export async function getAccount(db: Database, accountId: string): Promise<Account | null> {
  return db.prisma.account.findUnique({ where: { id: accountId } });
}
