/**
 * First start without an identity provider (a fresh `pnpm start`): the api makes sure a local
 * admin exists (operator role, enterprise tier; created once, found again on every later start)
 * and prints a one-time sign-in link to stderr. The link is valid for 15 minutes and works once;
 * every start prints a new one, and `kairos login-link` issues one without a restart. Only the
 * SHA-256 of the link's token is stored.
 */
import { AppError, generateSecret } from '@kairos/core';
import { type Database } from '@kairos/db';
import {
  createAccount,
  createLoginToken,
  findUserByEmail,
  findVerifiedUserByEmail,
  type UserWithAccount,
} from '@kairos/db/system';

export const LOGIN_LINK_TTL_MS = 15 * 60_000;
export const LOCAL_SIGN_IN_PATH = '/api/auth/local';

/**
 * The local admin user, created with its account (and signing key) when missing. Idempotent. The
 * operator vouches for the address (verified); a user created from an unverified sign-in with the
 * same address is never taken for the admin.
 */
export async function ensureLocalAdmin(db: Database, email: string, masterKey: Buffer): Promise<UserWithAccount> {
  const existing = await findVerifiedUserByEmail(db, email);
  if (existing) return existing;
  try {
    const created = await createAccount(
      db,
      { email, emailVerified: true, name: 'Local admin', tier: 'enterprise', operator: true },
      { masterKey },
    );
    return { ...created.user, account: created.account };
  } catch (error) {
    // Another replica created it at the same moment.
    if (error instanceof AppError && error.code === 'CONFLICT') {
      const winner = await findVerifiedUserByEmail(db, email);
      if (winner) return winner;
    }
    throw error;
  }
}

/** A new one-time sign-in link for the user. */
export async function createSignInLink(
  db: Database,
  input: { userId: string; baseUrl: string; now: Date },
): Promise<{ url: string; expiresAt: Date }> {
  const secret = generateSecret('kls');
  const expiresAt = new Date(input.now.getTime() + LOGIN_LINK_TTL_MS);
  await createLoginToken(db, { userId: input.userId, tokenHash: secret.hash, expiresAt });
  const url = new URL(LOCAL_SIGN_IN_PATH, input.baseUrl);
  url.searchParams.set('token', secret.raw);
  return { url: url.toString(), expiresAt };
}

/**
 * A fresh link for `email` (`kairos login-link`): the local admin is created first when it is the
 * one asked for and missing (the CLI may run before the api's first start); any other user must exist.
 */
export async function issueSignInLink(
  db: Database,
  input: { email: string; adminEmail: string; masterKey: () => Buffer; baseUrl: string; now: Date },
): Promise<{ url: string; expiresAt: Date; user: UserWithAccount }> {
  const email = input.email.toLowerCase();
  const user =
    email === input.adminEmail.toLowerCase()
      ? await ensureLocalAdmin(db, email, input.masterKey())
      : await findUserByEmail(db, email);
  if (!user) throw new AppError('NOT_FOUND', `no user with email ${input.email}`);
  const link = await createSignInLink(db, { userId: user.id, baseUrl: input.baseUrl, now: input.now });
  return { ...link, user };
}

/** Ensures the admin, creates a link and prints it (stderr: the link is a credential, not a log line). */
export async function announceLocalSignIn(
  db: Database,
  input: { email: string; masterKey: Buffer; baseUrl: string; now: Date; write?: (text: string) => void },
): Promise<{ url: string; expiresAt: Date; user: UserWithAccount }> {
  const user = await ensureLocalAdmin(db, input.email, input.masterKey);
  const link = await createSignInLink(db, { userId: user.id, baseUrl: input.baseUrl, now: input.now });
  const write = input.write ?? ((text: string) => process.stderr.write(text));
  write(
    `\nNo identity provider is configured (KAIROS_OIDC_ISSUER, KAIROS_GITHUB_CLIENT_ID).\n` +
      `Sign in as the local admin (${user.email}) with this one-time link, valid for 15 minutes:\n\n  ${link.url}\n\n`,
  );
  return { ...link, user };
}
