/**
 * From an external identity to a signed-in user. A user records whether its address is verified
 * (users.emailVerified: an identity provider vouched for it, or an operator created the user), and an
 * identity is linked by address only from verified to verified, so whoever signs in first with an
 * address they do not own never shares an account with its owner (pre-account takeover).
 *
 * 1. An identity already linked signs in its user (and marks the address verified when its provider
 *    now vouches for that same address).
 * 2. A verified address: linked to the user who proved the same address, if there is one; otherwise a
 *    new account and user, even when a user created from an unverified sign-in holds the address: that
 *    user is never linked to (the owner gets an account of their own, the other keeps theirs).
 * 3. An unverified address: refused when any user holds it (it cannot be linked); otherwise a new
 *    account and user, recorded unverified.
 * A new account is on the free tier, with its signing key.
 */
import { AppError, toStorableText } from '@kairos/core';
import {
  createAccount,
  findUserByEmail,
  findUserByIdentity,
  findVerifiedUserByEmail,
  getUserWithAccount,
  linkIdentity,
  markEmailVerified,
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
  // so an odd display name cannot fail the sign-in's writes.
  const clean = (text: string | null) => (text === null ? null : toStorableText(text));
  const identity = {
    ...claimed,
    subject: toStorableText(claimed.subject),
    email: clean(claimed.email),
    name: clean(claimed.name),
  };
  const linked = await findUserByIdentity(deps.db, identity.provider, identity.subject);
  if (linked) {
    if (identity.emailVerified && !linked.emailVerified && identity.email === linked.email) {
      if (await markEmailVerified(deps.db, linked.id)) return { ...linked, emailVerified: true };
    }
    return linked;
  }
  if (!identity.email) {
    throw new AppError('FORBIDDEN', 'the identity provider did not share an email address; allow the email scope');
  }
  const email = identity.email;
  const refuseUnverified = () =>
    new AppError('FORBIDDEN', `a user with ${email} exists and the identity provider has not verified this address`);
  if (identity.emailVerified) {
    const owner = await findVerifiedUserByEmail(deps.db, email);
    if (owner) {
      await linkIdentity(deps.db, owner.id, identity.provider, identity.subject);
      return owner;
    }
  } else if (await findUserByEmail(deps.db, email)) {
    throw refuseUnverified();
  }
  try {
    return await createUser(deps, identity, email);
  } catch (error) {
    if (!(error instanceof AppError && error.code === 'CONFLICT')) throw error;
    // A concurrent first sign-in with the same address, verified the same way, won the race: a
    // verified one is linked to (verified to verified), an unverified one refuses as above.
    const winner = identity.emailVerified ? await findVerifiedUserByEmail(deps.db, email) : null;
    if (!winner) throw identity.emailVerified ? error : refuseUnverified();
    await linkIdentity(deps.db, winner.id, identity.provider, identity.subject);
    return winner;
  }
}

/** A first sign-in: a new account with its user (verified as the provider says), linked to the identity. */
async function createUser(
  deps: ApiDeps,
  identity: ExternalIdentity & { name: string | null },
  email: string,
): Promise<UserWithAccount> {
  const created = await createAccount(
    deps.db,
    { email, emailVerified: identity.emailVerified, ...(identity.name ? { name: identity.name } : {}) },
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
    details: { provider: identity.provider, emailVerified: identity.emailVerified },
  });
  return { ...created.user, account: created.account };
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
