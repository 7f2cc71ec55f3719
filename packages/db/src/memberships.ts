/**
 * Memberships: which users belong to an account, and with which role (packages/core/src/roles.ts).
 * An account keeps at least one owner: changing or removing the last owner is refused (CONFLICT),
 * under a lock on the account's row so two concurrent demotions cannot both pass the check.
 */
import { AppError, newId, type MemberRole } from '@kairos/core';
import type { Database } from './client.js';
import type { Invitation, Membership, Prisma } from './generated/prisma/client.js';

export interface Member {
  userId: string;
  email: string;
  name: string | null;
  role: MemberRole;
  createdAt: Date;
}

export interface AccountOfUser {
  accountId: string;
  name: string;
  role: MemberRole;
  disabledAt: Date | null;
}

/** The members of an account, owners first then by join date. */
export async function listMembers(db: Database, accountId: string): Promise<Member[]> {
  const rows = await db.prisma.membership.findMany({
    where: { accountId },
    include: { user: { select: { email: true, name: true } } },
    orderBy: [{ createdAt: 'asc' }, { userId: 'asc' }],
  });
  const rank = { owner: 0, admin: 1, editor: 2, viewer: 3 } as const;
  return rows
    .map((row) => ({
      userId: row.userId,
      email: row.user.email,
      name: row.user.name,
      role: row.role,
      createdAt: row.createdAt,
    }))
    .sort((a, b) => rank[a.role] - rank[b.role]);
}

export async function getMember(db: Database, accountId: string, userId: string): Promise<Member | null> {
  const row = await db.prisma.membership.findUnique({
    where: { userId_accountId: { userId, accountId } },
    include: { user: { select: { email: true, name: true } } },
  });
  return row
    ? { userId: row.userId, email: row.user.email, name: row.user.name, role: row.role, createdAt: row.createdAt }
    : null;
}

async function lockAccount(tx: Prisma.TransactionClient, accountId: string): Promise<void> {
  await tx.$queryRaw`SELECT 1 FROM accounts WHERE id = ${accountId}::uuid FOR UPDATE`;
}

async function assertAnotherOwner(tx: Prisma.TransactionClient, accountId: string, userId: string): Promise<void> {
  const owners = await tx.membership.count({ where: { accountId, role: 'owner', userId: { not: userId } } });
  if (owners === 0) {
    throw new AppError('CONFLICT', 'an account keeps at least one owner: make another member owner first', {
      field: 'role',
    });
  }
}

/**
 * Sets a member's role; null when the user is not a member. Returns the role before and after.
 * Demoting the last owner is refused.
 */
export async function setMemberRole(
  db: Database,
  accountId: string,
  userId: string,
  role: MemberRole,
): Promise<{ before: MemberRole; after: MemberRole } | null> {
  return db.prisma.$transaction(async (tx) => {
    await lockAccount(tx, accountId);
    const current = await tx.membership.findUnique({ where: { userId_accountId: { userId, accountId } } });
    if (!current) return null;
    if (current.role === 'owner' && role !== 'owner') await assertAnotherOwner(tx, accountId, userId);
    if (current.role !== role) {
      await tx.membership.update({ where: { userId_accountId: { userId, accountId } }, data: { role } });
    }
    return { before: current.role, after: role };
  });
}

/** Removes a member (their API keys of this account stop working with them); null when not a member. */
export async function removeMember(db: Database, accountId: string, userId: string): Promise<Membership | null> {
  return db.prisma.$transaction(async (tx) => {
    await lockAccount(tx, accountId);
    const current = await tx.membership.findUnique({ where: { userId_accountId: { userId, accountId } } });
    if (!current) return null;
    if (current.role === 'owner') await assertAnotherOwner(tx, accountId, userId);
    await tx.membership.delete({ where: { userId_accountId: { userId, accountId } } });
    // Sessions acting for this account fall back to the user's other accounts.
    await tx.webSession.updateMany({ where: { userId, accountId }, data: { accountId: null } });
    return current;
  });
}

/** The role of a user in an account, or null when the user is not a member (system: auth lookups). */
export async function findMemberRole(db: Database, userId: string, accountId: string): Promise<MemberRole | null> {
  const row = await db.prisma.membership.findUnique({
    where: { userId_accountId: { userId, accountId } },
    select: { role: true },
  });
  return row?.role ?? null;
}

/** Every account the user belongs to, the one they signed up with first (system: sessions, switching). */
export async function listAccountsOfUser(db: Database, userId: string): Promise<AccountOfUser[]> {
  const rows = await db.prisma.membership.findMany({
    where: { userId },
    include: { account: { select: { name: true, disabledAt: true } }, user: { select: { accountId: true } } },
    orderBy: [{ createdAt: 'asc' }, { accountId: 'asc' }],
  });
  return rows
    .map((row) => ({
      accountId: row.accountId,
      name: row.account.name,
      role: row.role,
      disabledAt: row.account.disabledAt,
      home: row.user.accountId === row.accountId,
    }))
    .sort((a, b) => Number(b.home) - Number(a.home))
    .map(({ home: _home, ...account }) => account);
}

/** Adds a membership (an accepted invitation); an existing membership is kept as it is. */
export async function addMembership(
  db: Database | Prisma.TransactionClient,
  input: { userId: string; accountId: string; role: MemberRole },
): Promise<void> {
  const prisma = 'prisma' in db ? db.prisma : db;
  await prisma.membership.upsert({
    where: { userId_accountId: { userId: input.userId, accountId: input.accountId } },
    create: input,
    update: {},
  });
}

/** Points a browser session at another account of its user (system: POST /api/account/switch). */
export async function setSessionAccount(db: Database, sessionId: string, accountId: string | null): Promise<void> {
  await db.prisma.webSession.update({ where: { id: sessionId }, data: { accountId } });
}

export const INVITATION_TTL_MS = 7 * 24 * 3600 * 1000;

export type InvitationInfo = Omit<Invitation, 'tokenHash'>;
const INVITATION_INFO = {
  id: true,
  accountId: true,
  email: true,
  role: true,
  invitedByUserId: true,
  expiresAt: true,
  acceptedAt: true,
  acceptedByUserId: true,
  createdAt: true,
} as const;

/** A new invitation; the caller hands out the raw token (only its hash is stored). */
export async function createInvitation(
  db: Database,
  accountId: string,
  input: { email: string; role: MemberRole; tokenHash: string; invitedByUserId: string | null; now: Date },
): Promise<InvitationInfo> {
  return db.prisma.invitation.create({
    data: {
      id: newId(),
      accountId,
      email: input.email.toLowerCase(),
      role: input.role,
      tokenHash: input.tokenHash,
      invitedByUserId: input.invitedByUserId,
      expiresAt: new Date(input.now.getTime() + INVITATION_TTL_MS),
    },
    select: INVITATION_INFO,
  });
}

/** The account's invitations not yet accepted (expired ones included, newest first). */
export async function listInvitations(db: Database, accountId: string): Promise<InvitationInfo[]> {
  return db.prisma.invitation.findMany({
    where: { accountId, acceptedAt: null },
    select: INVITATION_INFO,
    orderBy: { createdAt: 'desc' },
  });
}

/** Revokes (deletes) an invitation of the account; null when there is none. */
export async function deleteInvitation(db: Database, accountId: string, id: string): Promise<InvitationInfo | null> {
  const found = await db.prisma.invitation.findFirst({ where: { id, accountId }, select: INVITATION_INFO });
  if (!found) return null;
  await db.prisma.invitation.deleteMany({ where: { id, accountId } });
  return found;
}

/**
 * Accepts an invitation by its token hash (system: the token names the account): adds the
 * membership, once. null when the token is unknown, used, revoked or expired.
 */
export async function acceptInvitation(
  db: Database,
  tokenHash: string,
  userId: string,
  now: Date,
): Promise<InvitationInfo | null> {
  return db.prisma.$transaction(async (tx) => {
    const claimed = await tx.invitation.updateMany({
      where: { tokenHash, acceptedAt: null, expiresAt: { gt: now } },
      data: { acceptedAt: now, acceptedByUserId: userId },
    });
    if (claimed.count === 0) return null;
    const invitation = await tx.invitation.findUniqueOrThrow({ where: { tokenHash }, select: INVITATION_INFO });
    await addMembership(tx, { userId, accountId: invitation.accountId, role: invitation.role });
    return invitation;
  });
}
