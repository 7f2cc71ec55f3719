/**
 * Device authorisation (RFC 8628) and the bearer access tokens it issues ("connected devices").
 * device_code and access tokens are stored as SHA-256 digests; user_code is short-lived, unique
 * while it exists, and only ever approves a pending, unexpired request.
 */
import { generateSecret, hashSecret, newId } from '@kairos/core';
import type { Database } from './client.js';
import type { Account, AccessToken, DeviceCode } from './generated/prisma/client.js';

export async function createDeviceCode(
  db: Database,
  input: { deviceCodeHash: string; userCode: string; clientName: string | null; intervalSec: number; expiresAt: Date },
): Promise<DeviceCode> {
  return db.prisma.deviceCode.create({ data: { id: newId(), ...input } });
}

/** Requests not yet decided nor expired across all clients, and when the first of them expires. */
export async function countPendingDeviceCodes(
  db: Database,
  now: Date,
): Promise<{ count: number; firstExpiresAt: Date | null }> {
  const pending = await db.prisma.deviceCode.aggregate({
    where: { status: 'pending', expiresAt: { gt: now } },
    _count: { _all: true },
    _min: { expiresAt: true },
  });
  return { count: pending._count._all, firstExpiresAt: pending._min.expiresAt };
}

/** Deletes codes that expired more than `graceMs` ago (their user codes become reusable). */
export async function deleteExpiredDeviceCodes(db: Database, now: Date, graceMs: number): Promise<number> {
  const { count } = await db.prisma.deviceCode.deleteMany({
    where: { expiresAt: { lt: new Date(now.getTime() - graceMs) } },
  });
  return count;
}

/** The pending, unexpired request with this user code, or null. */
export async function findPendingDeviceCode(db: Database, userCode: string, now: Date): Promise<DeviceCode | null> {
  const code = await db.prisma.deviceCode.findUnique({ where: { userCode } });
  return code && code.status === 'pending' && code.expiresAt.getTime() > now.getTime() ? code : null;
}

/**
 * The signed-in user approves or denies a pending request. A conditional update: a code already
 * decided, consumed or expired is left alone (null).
 */
export async function decideDeviceCode(
  db: Database,
  input: { userCode: string; userId: string; decision: 'approved' | 'denied'; now: Date },
): Promise<DeviceCode | null> {
  const { count } = await db.prisma.deviceCode.updateMany({
    where: { userCode: input.userCode, status: 'pending', expiresAt: { gt: input.now } },
    data: { status: input.decision, userId: input.userId },
  });
  return count === 0 ? null : db.prisma.deviceCode.findUnique({ where: { userCode: input.userCode } });
}

export type DevicePoll =
  | { kind: 'issued'; raw: string; token: AccessToken }
  | { kind: 'pending' }
  | { kind: 'slow_down'; intervalSec: number }
  | { kind: 'denied' }
  | { kind: 'expired' }
  | { kind: 'invalid' };

/** Polls faster than the interval by more than this are answered slow_down (network jitter allowance). */
const POLL_JITTER_MS = 500;
/** RFC 8628 §3.5: each slow_down adds 5 seconds to the interval. */
const SLOW_DOWN_STEP_SEC = 5;

/**
 * One token poll, under a row lock so concurrent polls of one code serialise: an approved code
 * yields exactly one access token (the code is consumed in the same transaction).
 */
export async function pollDeviceCode(
  db: Database,
  input: { deviceCodeHash: string; now: Date; tokenTtlMs: number },
): Promise<DevicePoll> {
  const { now } = input;
  return db.prisma.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT id FROM device_codes WHERE "deviceCodeHash" = ${input.deviceCodeHash} FOR UPDATE`;
    const code = await tx.deviceCode.findUnique({
      where: { deviceCodeHash: input.deviceCodeHash },
      include: { user: { select: { id: true, accountId: true } } },
    });
    if (!code || code.status === 'consumed') return { kind: 'invalid' };
    if (code.expiresAt.getTime() <= now.getTime()) return { kind: 'expired' };
    if (code.status === 'denied') return { kind: 'denied' };
    if (code.status === 'approved' && code.user) {
      const secret = generateSecret('kat');
      const token = await tx.accessToken.create({
        data: {
          id: newId(),
          accountId: code.user.accountId,
          userId: code.user.id,
          name: code.clientName ?? 'Device',
          prefix: secret.prefix,
          tokenHash: secret.hash,
          expiresAt: new Date(now.getTime() + input.tokenTtlMs),
          createdAt: now,
        },
      });
      await tx.deviceCode.update({ where: { id: code.id }, data: { status: 'consumed', lastPolledAt: now } });
      return { kind: 'issued', raw: secret.raw, token };
    }
    const sinceLastPollMs = code.lastPolledAt ? now.getTime() - code.lastPolledAt.getTime() : Infinity;
    if (sinceLastPollMs < code.intervalSec * 1000 - POLL_JITTER_MS) {
      const intervalSec = code.intervalSec + SLOW_DOWN_STEP_SEC;
      await tx.deviceCode.update({ where: { id: code.id }, data: { intervalSec, lastPolledAt: now } });
      return { kind: 'slow_down', intervalSec };
    }
    await tx.deviceCode.update({ where: { id: code.id }, data: { lastPolledAt: now } });
    return { kind: 'pending' };
  });
}

// --- access tokens ----------------------------------------------------------------------------

/** The live (unrevoked, unexpired) token with this raw value and its account, or null. */
export async function findAccessTokenBySecret(
  db: Database,
  raw: string,
  now: Date,
): Promise<(AccessToken & { account: Account }) | null> {
  const token = await db.prisma.accessToken.findUnique({
    where: { tokenHash: hashSecret(raw) },
    include: { account: true },
  });
  if (!token || token.revokedAt || token.expiresAt.getTime() <= now.getTime()) return null;
  return token;
}

/** The account's connected devices: tokens neither revoked nor expired, newest first. */
export async function listAccessTokens(db: Database, accountId: string, now: Date): Promise<AccessToken[]> {
  return db.prisma.accessToken.findMany({
    where: { accountId, revokedAt: null, expiresAt: { gt: now } },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
  });
}

/** Revokes a token of the account; idempotent (changed false). Null when the account has no such token. */
export async function revokeAccessToken(
  db: Database,
  accountId: string,
  tokenId: string,
  now: Date,
): Promise<{ token: AccessToken; changed: boolean } | null> {
  const token = await db.prisma.accessToken.findFirst({ where: { id: tokenId, accountId } });
  if (!token) return null;
  if (token.revokedAt) return { token, changed: false };
  const revoked = await db.prisma.accessToken.update({ where: { id: token.id }, data: { revokedAt: now } });
  return { token: revoked, changed: true };
}

export async function touchAccessToken(db: Database, tokenId: string, at: Date): Promise<void> {
  await db.prisma.accessToken.update({ where: { id: tokenId }, data: { lastUsedAt: at } });
}
