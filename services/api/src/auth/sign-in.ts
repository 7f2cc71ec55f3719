/**
 * From an external identity to a signed-in user.
 *
 * 1. An identity already linked signs in its user.
 * 2. Otherwise a user with the same email is linked, only if the provider verified the email
 *    (else anyone could claim an address at a provider that does not check, and take the account).
 * 3. Otherwise this is a first sign-in: a new account (free tier, with its signing key) and user.
 */
import { AppError, toStorableText } from '@kairos/core';
import {
  createAccount,
  findUserByEmail,
  findUserByIdentity,
  getUserWithAccount,
  linkIdentity,
  recordSignIn,
  type UserWithAccount,
} from '@kairos/db/system';
import type { Request, Response } from 'express';
import { recordAuditEvent } from '../audit.js';
import type { ApiDeps } from '../routes/deps.js';
import type { ExternalIdentity } from './providers.js';
import { startSession } from './sessions.js';

export async function resolveExternalUser(deps: ApiDeps, claimed: ExternalIdentity): Promise<UserWithAccount> {
  // The provider's claims are outside data: made storable (U+FFFD for U+0000 and lone surrogates)
  // so an odd display name cannot fail the sign-in's writes (issue #12).
  const clean = (text: string | null) => (text === null ? null : toStorableText(text));
  const identity = {
    ...claimed,
    subject: toStorableText(claimed.subject),
    email: clean(claimed.email),
    name: clean(claimed.name),
  };
  const linked = await findUserByIdentity(deps.db, identity.provider, identity.subject);
  if (linked) return linked;
  if (!identity.email) {
    throw new AppError('FORBIDDEN', 'the identity provider did not share an email address; allow the email scope');
  }
  const existing = await findUserByEmail(deps.db, identity.email);
  if (existing) {
    if (!identity.emailVerified) {
      throw new AppError(
        'FORBIDDEN',
        `a user with ${identity.email} exists and the identity provider has not verified this address`,
      );
    }
    await linkIdentity(deps.db, existing.id, identity.provider, identity.subject);
    return existing;
  }
  try {
    const created = await createAccount(
      deps.db,
      { email: identity.email, ...(identity.name ? { name: identity.name } : {}) },
      { masterKey: deps.masterKey },
    );
    await linkIdentity(deps.db, created.user.id, identity.provider, identity.subject);
    await recordAuditEvent(deps, {
      accountId: created.account.id,
      actorType: 'user',
      actorId: created.user.id,
      action: 'account.created',
      targetType: 'account',
      targetId: created.account.id,
      details: { provider: identity.provider },
    });
    return { ...created.user, account: created.account };
  } catch (error) {
    // A concurrent first sign-in with the same email won the race: use its user.
    if (error instanceof AppError && error.code === 'CONFLICT') {
      const winner = await findUserByEmail(deps.db, identity.email);
      if (winner && identity.emailVerified) {
        await linkIdentity(deps.db, winner.id, identity.provider, identity.subject);
        return winner;
      }
    }
    throw error;
  }
}

/** Starts the browser session of a user who proved who they are, and records it. */
export async function completeSignIn(
  deps: ApiDeps,
  req: Request,
  res: Response,
  user: UserWithAccount,
  method: string,
): Promise<void> {
  const fresh = (await getUserWithAccount(deps.db, user.id)) ?? user;
  if (fresh.account.disabledAt) throw new AppError('FORBIDDEN', 'this account is disabled');
  const now = deps.now();
  await startSession(deps.db, req, res, { userId: user.id, now, publicUrl: deps.config.KAIROS_PUBLIC_URL });
  await recordSignIn(deps.db, user.id, now);
  await recordAuditEvent(deps, {
    accountId: user.accountId,
    actorType: 'user',
    actorId: user.id,
    action: 'auth.signed_in',
    targetType: 'user',
    targetId: user.id,
    details: { method },
  });
}
