/**
 * People and how they sign in: users, their external identities (OIDC issuer + subject, GitHub
 * id), browser sessions and one-time sign-in links. Secrets (session cookie, link token) arrive
 * here already hashed: only SHA-256 digests are stored.
 */
import type { Database } from './client.js';
import type { Account, Membership, User, UserRole, WebSession } from './generated/prisma/client.js';
import { Prisma } from './generated/prisma/client.js';
import { newId } from '@kairos/core';

export type UserWithAccount = User & { account: Account };
export type SessionWithUser = WebSession & {
  user: UserWithAccount & { memberships: (Membership & { account: Pick<Account, 'disabledAt'> })[] };
};

const withAccount = { account: true } as const;

export async function findUserByIdentity(
  db: Database,
  provider: string,
  subject: string,
): Promise<UserWithAccount | null> {
  const identity = await db.prisma.userIdentity.findUnique({
    where: { provider_subject: { provider, subject } },
    include: { user: { include: withAccount } },
  });
  return identity?.user ?? null;
}

/**
 * The user with this address: the one who proved it (emailVerified), else the one who did not. An
 * address has at most one of each (prisma/schema.prisma, User).
 */
export async function findUserByEmail(db: Database, email: string): Promise<UserWithAccount | null> {
  return db.prisma.user.findFirst({
    where: { email: email.toLowerCase() },
    orderBy: { emailVerified: 'desc' },
    include: withAccount,
  });
}

/** The user who proved this address (an identity provider verified it, or an operator created the user). */
export async function findVerifiedUserByEmail(db: Database, email: string): Promise<UserWithAccount | null> {
  return db.prisma.user.findUnique({
    where: { email_emailVerified: { email: email.toLowerCase(), emailVerified: true } },
    include: withAccount,
  });
}

/**
 * Records that the user's address is now verified (its own identity's provider vouched for it).
 * False when another user already holds the address verified: this one stays unverified.
 */
export async function markEmailVerified(db: Database, userId: string): Promise<boolean> {
  try {
    await db.prisma.user.update({ where: { id: userId }, data: { emailVerified: true } });
    return true;
  } catch (error) {
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002') return false;
    throw error;
  }
}

export async function getUserWithAccount(db: Database, userId: string): Promise<UserWithAccount | null> {
  return db.prisma.user.findUnique({ where: { id: userId }, include: withAccount });
}

/** Links an external identity to a user; linking the same identity twice is a no-op. */
export async function linkIdentity(db: Database, userId: string, provider: string, subject: string): Promise<void> {
  try {
    await db.prisma.userIdentity.create({ data: { id: newId(), userId, provider, subject } });
  } catch (error) {
    if (!(error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002')) throw error;
  }
}

export async function recordSignIn(db: Database, userId: string, at: Date): Promise<void> {
  await db.prisma.user.update({ where: { id: userId }, data: { lastLoginAt: at } });
}

/** Operator CLI: the user findUserByEmail finds. Returns null when no user has that email. */
export async function setUserRole(db: Database, email: string, role: UserRole): Promise<User | null> {
  const user = await findUserByEmail(db, email);
  if (!user) return null;
  return db.prisma.user.update({ where: { id: user.id }, data: { role } });
}

// --- browser sessions -------------------------------------------------------------------------

export async function createWebSession(
  db: Database,
  input: { userId: string; tokenHash: string; csrfToken: string; expiresAt: Date; now: Date },
): Promise<WebSession> {
  return db.prisma.webSession.create({
    data: {
      id: newId(),
      userId: input.userId,
      tokenHash: input.tokenHash,
      csrfToken: input.csrfToken,
      expiresAt: input.expiresAt,
      createdAt: input.now,
      lastSeenAt: input.now,
    },
  });
}

/** The session with this cookie hash, unless it was revoked or has expired. */
export async function findLiveWebSession(db: Database, tokenHash: string, now: Date): Promise<SessionWithUser | null> {
  const session = await db.prisma.webSession.findUnique({
    where: { tokenHash },
    include: {
      user: {
        include: { ...withAccount, memberships: { include: { account: { select: { disabledAt: true } } } } },
      },
    },
  });
  if (!session || session.revokedAt || session.expiresAt.getTime() <= now.getTime()) return null;
  return session;
}

export async function getWebSession(db: Database, sessionId: string): Promise<WebSession | null> {
  return db.prisma.webSession.findUnique({ where: { id: sessionId } });
}

export async function touchWebSession(db: Database, sessionId: string, at: Date): Promise<void> {
  await db.prisma.webSession.update({ where: { id: sessionId }, data: { lastSeenAt: at } });
}

export async function revokeWebSession(db: Database, sessionId: string, at: Date): Promise<void> {
  await db.prisma.webSession.updateMany({ where: { id: sessionId, revokedAt: null }, data: { revokedAt: at } });
}

// --- one-time sign-in links -------------------------------------------------------------------

export async function createLoginToken(
  db: Database,
  input: { userId: string; tokenHash: string; expiresAt: Date },
): Promise<void> {
  await db.prisma.loginToken.create({ data: { id: newId(), ...input } });
}

/**
 * Consumes a sign-in link: one conditional UPDATE, so two concurrent uses of the same link cannot
 * both succeed. Returns the user id, or null when the link is unknown, used or expired.
 */
export async function consumeLoginToken(db: Database, tokenHash: string, now: Date): Promise<string | null> {
  const { rows } = await db.pool.query<{ userId: string }>(
    `UPDATE login_tokens SET "consumedAt" = $2
      WHERE "tokenHash" = $1 AND "consumedAt" IS NULL AND "expiresAt" > $2
      RETURNING "userId"`,
    [tokenHash, now],
  );
  return rows[0]?.userId ?? null;
}
