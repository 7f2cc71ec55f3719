/**
 * Account administration (operators: CLI and /api/admin) and quota usage counts.
 */
import type { Database } from './client.js';
import type { Account, Tier, UserRole } from './generated/prisma/client.js';
import { Prisma } from './generated/prisma/client.js';

export interface AccountUsage {
  /** Jobs not archived. */
  jobs: number;
  /** Endpoints not archived. */
  endpoints: number;
  /** Runs started since `since` (the month's start), test runs included. */
  runs: number;
}

export async function countActiveJobs(db: Database, accountId: string): Promise<number> {
  return db.prisma.job.count({ where: { accountId, archivedAt: null } });
}

export async function countActiveEndpoints(db: Database, accountId: string): Promise<number> {
  return db.prisma.endpoint.count({ where: { accountId, archivedAt: null } });
}

export async function countRunsSince(db: Database, accountId: string, since: Date): Promise<number> {
  return db.prisma.run.count({ where: { accountId, startedAt: { gte: since } } });
}

export async function getAccountUsage(db: Database, accountId: string, since: Date): Promise<AccountUsage> {
  const [jobs, endpoints, runs] = await Promise.all([
    countActiveJobs(db, accountId),
    countActiveEndpoints(db, accountId),
    countRunsSince(db, accountId, since),
  ]);
  return { jobs, endpoints, runs };
}

export type AccountWithUsers = Account & {
  users: { id: string; email: string; emailVerified: boolean; role: UserRole }[];
};

const withUsers = {
  users: { select: { id: true, email: true, emailVerified: true, role: true }, orderBy: { createdAt: 'asc' } },
} as const;

export async function listAccounts(
  db: Database,
  query: { limit: number; offset: number },
): Promise<{ accounts: AccountWithUsers[]; total: number }> {
  const [accounts, total] = await Promise.all([
    db.prisma.account.findMany({
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      take: query.limit,
      skip: query.offset,
      include: withUsers,
    }),
    db.prisma.account.count(),
  ]);
  return { accounts, total };
}

export async function getAccountWithUsers(db: Database, accountId: string): Promise<AccountWithUsers | null> {
  return db.prisma.account.findUnique({ where: { id: accountId }, include: withUsers });
}

export interface AccountChange {
  tier?: Tier;
  /** Merged into the stored overrides; a null value removes that override. */
  quotaOverrides?: Record<string, number | null>;
  disabled?: boolean;
}

/**
 * Applies an operator's change under a row lock (two operators merging overrides concurrently
 * both keep their keys). Null when there is no such account.
 */
export async function updateAccount(
  db: Database,
  accountId: string,
  change: AccountChange,
  now: Date,
): Promise<AccountWithUsers | null> {
  return db.prisma.$transaction(async (tx) => {
    const rows = await tx.$queryRaw<{ quotaOverrides: unknown; disabledAt: Date | null }[]>`
      SELECT "quotaOverrides", "disabledAt" FROM accounts WHERE id = ${accountId}::uuid FOR UPDATE`;
    const current = rows[0];
    if (!current) return null;
    const data: Prisma.AccountUpdateInput = {};
    if (change.tier) data.tier = change.tier;
    if (change.disabled !== undefined) data.disabledAt = change.disabled ? (current.disabledAt ?? now) : null;
    if (change.quotaOverrides) {
      const merged: Record<string, unknown> =
        current.quotaOverrides && typeof current.quotaOverrides === 'object' ? { ...current.quotaOverrides } : {};
      for (const [key, value] of Object.entries(change.quotaOverrides)) {
        if (value === null) delete merged[key];
        else merged[key] = value;
      }
      data.quotaOverrides = Object.keys(merged).length > 0 ? (merged as Prisma.InputJsonObject) : Prisma.DbNull;
    }
    return tx.account.update({ where: { id: accountId }, data, include: withUsers });
  });
}
