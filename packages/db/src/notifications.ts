/**
 * Notification channels, notifications (one row per event and channel, with its delivery) and the
 * endpoint state changes that raise them (opt-in).
 *
 * State changes, never runs: `applyEndpointTransitions` runs after a batch of runs is recorded and,
 * in one statement under the rows' locks, moves each endpoint between healthy and failing
 * (`failingSince`) and applies auto-pause (`autoPausedAt`, `pausedUntil`). Each column is set by a
 * conditional update, so a transition is claimed once even when a delivery is retried or two
 * batches race; the caller raises one notification per claimed transition.
 *
 * Channel CRUD, listings and raising for one account are tenant-scoped (`@kairos/db`); the
 * executor's state changes, delivery bookkeeping and quota notices span accounts (`@kairos/db/system`).
 */
import {
  AppError,
  NOTIFICATION_LIMITS,
  aiBudgetPeriod,
  newId,
  notFound,
  tierLimits,
  type CreateNotificationChannelInput,
  type NotificationEvent,
  type NotificationPayload,
  type TEST_NOTIFICATION_EVENT,
} from '@kairos/core';
import type { Database } from './client.js';
import type { Notification, NotificationChannel } from './generated/prisma/client.js';
import type { Prisma } from './generated/prisma/client.js';
import { countRunsSince } from './account-admin.js';

export type { Notification, NotificationChannel };

/**
 * An auto-pause has no end of its own; it lasts until a person resumes. Stored as a pause ten years
 * long: the executor and the scheduler handle it like any pause, and the due job's BullMQ score
 * (ms × 4096) stays below 2^53 until about 2040.
 */
const AUTO_PAUSE_MS = 10 * 365 * 24 * 3600 * 1000;

/**
 * An email channel's recipients as created: those that receive at once (the account's verified users)
 * and a confirmation mail's payload for each of the others (double opt-in), raised with the channel.
 */
export interface EmailRecipientsPlan {
  /** The channel's id, chosen by the caller: the confirmation links name it. */
  channelId: string;
  confirmedRecipients: string[];
  confirmations: NotificationPayload[];
}

/** The new channel, and the ids of the confirmation notifications raised with it (to enqueue). */
export async function createNotificationChannel(
  db: Database,
  accountId: string,
  input: CreateNotificationChannelInput,
  email?: EmailRecipientsPlan,
): Promise<{ channel: NotificationChannel; confirmationIds: string[] }> {
  const count = await db.prisma.notificationChannel.count({ where: { accountId } });
  if (count >= NOTIFICATION_LIMITS.channelsMax) {
    throw new AppError('CONFLICT', `an account has at most ${NOTIFICATION_LIMITS.channelsMax} notification channels`, {
      limit: NOTIFICATION_LIMITS.channelsMax,
    });
  }
  const id = email?.channelId ?? newId();
  const confirmations = (email?.confirmations ?? []).map((payload) =>
    notificationRow({ accountId, endpointId: null, payload }, id),
  );
  const channel = await db.prisma.$transaction(async (tx) => {
    const created = await tx.notificationChannel.create({
      data: {
        id,
        accountId,
        name: input.name,
        type: input.type,
        url: input.type === 'email' ? null : input.url,
        recipients: input.type === 'email' ? input.recipients : [],
        confirmedRecipients: input.type === 'email' ? (email?.confirmedRecipients ?? []) : [],
        events: input.events ?? [],
      },
    });
    if (confirmations.length > 0) await tx.notification.createMany({ data: confirmations });
    return created;
  });
  return { channel, confirmationIds: confirmations.map((row) => row.id) };
}

/** The addresses of the account's users whose address is verified (lower case): recipients confirmed at once. */
export async function listVerifiedUserEmails(db: Database, accountId: string): Promise<string[]> {
  const users = await db.prisma.user.findMany({ where: { accountId, emailVerified: true }, select: { email: true } });
  return users.map((user) => user.email.toLowerCase());
}

/**
 * A recipient followed its confirmation link (checked by the caller): it joins the channel's confirmed
 * recipients. `unknown` when the channel is gone or no longer lists the address.
 */
export async function confirmRecipient(
  db: Database,
  channelId: string,
  recipient: string,
): Promise<'confirmed' | 'unknown'> {
  const { rows } = await db.pool.query<{ id: string }>(
    `UPDATE notification_channels
        SET "confirmedRecipients" = CASE WHEN $2 = ANY("confirmedRecipients") THEN "confirmedRecipients"
                                         ELSE array_append("confirmedRecipients", $2) END,
            "updatedAt" = now()
      WHERE id = $1::uuid AND type = 'email' AND $2 = ANY(recipients)
      RETURNING id`,
    [channelId, recipient],
  );
  return rows.length > 0 ? 'confirmed' : 'unknown';
}

export async function listNotificationChannels(
  db: Database,
  accountId: string,
  page: { limit: number; offset: number },
): Promise<{ channels: NotificationChannel[]; total: number }> {
  const [channels, total] = await Promise.all([
    db.prisma.notificationChannel.findMany({
      where: { accountId },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: page.limit,
      skip: page.offset,
    }),
    db.prisma.notificationChannel.count({ where: { accountId } }),
  ]);
  return { channels, total };
}

/** NOT_FOUND for an unknown id or another account's channel. */
export async function getNotificationChannel(
  db: Database,
  accountId: string,
  channelId: string,
): Promise<NotificationChannel> {
  const channel = await db.prisma.notificationChannel.findFirst({ where: { id: channelId, accountId } });
  if (!channel) throw notFound('notification channel', channelId);
  return channel;
}

/** The deleted channel; its notifications stay listed (channelId null). NOT_FOUND as above. */
export async function deleteNotificationChannel(
  db: Database,
  accountId: string,
  channelId: string,
): Promise<NotificationChannel> {
  const channel = await getNotificationChannel(db, accountId, channelId);
  await db.prisma.notificationChannel.deleteMany({ where: { id: channelId, accountId } });
  return channel;
}

export async function listNotifications(
  db: Database,
  accountId: string,
  query: { limit: number; offset: number; channelId?: string | undefined; event?: string | undefined },
): Promise<{ notifications: Notification[]; total: number }> {
  const where: Prisma.NotificationWhereInput = {
    accountId,
    ...(query.channelId ? { channelId: query.channelId } : {}),
    ...(query.event ? { event: query.event } : {}),
  };
  const [notifications, total] = await Promise.all([
    db.prisma.notification.findMany({
      where,
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: query.limit,
      skip: query.offset,
    }),
    db.prisma.notification.count({ where }),
  ]);
  return { notifications, total };
}

export interface RaisedEvent {
  accountId: string;
  endpointId: string | null;
  payload: NotificationPayload;
}

/**
 * One notification row (status pending) per event and channel of its account that lists the event
 * (an empty events list means all of them). Returns the new rows' ids, to enqueue; none when the
 * account has no such channel, or is disabled (then nothing else happens).
 */
export async function raiseNotifications(db: Database, events: RaisedEvent[]): Promise<string[]> {
  if (events.length === 0) return [];
  const channels = await db.prisma.notificationChannel.findMany({
    where: {
      accountId: { in: [...new Set(events.map((event) => event.accountId))] },
      account: { disabledAt: null },
      // An email channel none of whose recipients has confirmed yet sends nothing.
      OR: [{ type: { not: 'email' } }, { confirmedRecipients: { isEmpty: false } }],
    },
    select: { id: true, accountId: true, events: true },
  });
  const rows: Prisma.NotificationCreateManyInput[] = [];
  for (const event of events) {
    for (const channel of channels) {
      if (channel.accountId !== event.accountId) continue;
      if (channel.events.length > 0 && !channel.events.includes(event.payload.type)) continue;
      rows.push(notificationRow(event, channel.id));
    }
  }
  if (rows.length > 0) await db.prisma.notification.createMany({ data: rows });
  return rows.map((row) => row.id);
}

/** "Send a test notification": one row for this channel whatever its events. NOT_FOUND as above. */
export async function raiseTestNotification(
  db: Database,
  accountId: string,
  channelId: string,
  now: Date,
): Promise<Notification> {
  const channel = await getNotificationChannel(db, accountId, channelId);
  if (channel.type === 'email' && channel.confirmedRecipients.length === 0) {
    throw new AppError(
      'CONFLICT',
      'no recipient of this email channel has confirmed yet: each was sent a confirmation link',
      { pendingRecipients: channel.recipients },
    );
  }
  const payload: NotificationPayload = {
    type: 'test' satisfies typeof TEST_NOTIFICATION_EVENT,
    timestamp: now.toISOString(),
    data: { accountId, channelId: channel.id, channelName: channel.name },
  };
  return db.prisma.notification.create({ data: notificationRow({ accountId, endpointId: null, payload }, channel.id) });
}

export function notificationRow(
  event: RaisedEvent,
  channelId: string,
): Prisma.NotificationCreateManyInput & { id: string } {
  return {
    id: newId(),
    accountId: event.accountId,
    channelId,
    event: event.payload.type,
    endpointId: event.endpointId,
    payload: event.payload as unknown as Prisma.InputJsonValue,
  };
}

interface TransitionRow {
  id: string;
  accountId: string;
  jobId: string;
  name: string;
  failureCount: number;
  failing: boolean;
  recovered: boolean;
  autoPause: boolean;
  autoPauseAfterFailures: number | null;
}

/**
 * Applies the state changes the latest recorded runs of these endpoints caused, and returns them
 * as events (one per change). In one statement, the rows locked first (FOR UPDATE) so the flags read
 * are the ones the update replaces:
 * - failing: failureCount reached the account's notifyFailureThreshold and failingSince was unset;
 * - recovered: failureCount is 0 (a success) and failingSince was set;
 * - auto-paused: failureCount reached autoPauseAfterFailures (the endpoint's, else the account's),
 *   the endpoint is not paused already; it is paused "until resumed" with a reason saying so and
 *   marked schedule-dirty (the executor skips a paused endpoint's due job in any case).
 * Only endpoints with a failure, or a failing state to clear, are read, so a healthy batch costs
 * one index probe per endpoint.
 */
export async function applyEndpointTransitions(db: Database, endpointIds: string[], now: Date): Promise<RaisedEvent[]> {
  if (endpointIds.length === 0) return [];
  const { rows } = await db.pool.query<TransitionRow>(
    `WITH state AS (
       SELECT e.id, e."accountId", e."jobId", e.name, e."failureCount",
              (e."failureCount" >= a."notifyFailureThreshold" AND e."failingSince" IS NULL) AS failing,
              (e."failureCount" = 0 AND e."failingSince" IS NOT NULL) AS recovered,
              (COALESCE(e."autoPauseAfterFailures", a."autoPauseAfterFailures") IS NOT NULL
                AND e."failureCount" >= COALESCE(e."autoPauseAfterFailures", a."autoPauseAfterFailures")
                AND e."archivedAt" IS NULL
                AND (e."pausedUntil" IS NULL OR e."pausedUntil" <= $2)) AS "autoPause",
              COALESCE(e."autoPauseAfterFailures", a."autoPauseAfterFailures") AS "autoPauseAfterFailures"
         FROM endpoints e JOIN accounts a ON a.id = e."accountId"
        WHERE e.id = ANY($1::uuid[]) AND (e."failureCount" > 0 OR e."failingSince" IS NOT NULL)
        ORDER BY e.id
        FOR UPDATE OF e
     ), changed AS (
       UPDATE endpoints e
          SET "failingSince" = CASE WHEN s.failing THEN $2 WHEN s.recovered THEN NULL ELSE e."failingSince" END,
              "autoPausedAt" = CASE WHEN s."autoPause" THEN $2 ELSE e."autoPausedAt" END,
              "pausedUntil"  = CASE WHEN s."autoPause" THEN $3 ELSE e."pausedUntil" END,
              "pauseReason"  = CASE WHEN s."autoPause"
                                    THEN 'auto-paused after ' || s."failureCount" || ' consecutive failures (autoPauseAfterFailures ' || s."autoPauseAfterFailures" || '); resume to run it again'
                                    ELSE e."pauseReason" END,
              -- user: the planner's governor never lifts it (user precedence); a person resumes it.
              "pauseOrigin"  = CASE WHEN s."autoPause" THEN 'user'::"ChangeOrigin" ELSE e."pauseOrigin" END,
              "scheduleDirtyAt" = CASE WHEN s."autoPause" THEN $2 ELSE e."scheduleDirtyAt" END
         FROM state s
        WHERE e.id = s.id AND (s.failing OR s.recovered OR s."autoPause")
       RETURNING e.id
     )
     SELECT s.* FROM state s JOIN changed c ON c.id = s.id`,
    [endpointIds, now, new Date(now.getTime() + AUTO_PAUSE_MS)],
  );
  const events: RaisedEvent[] = [];
  for (const row of rows) {
    const data = { endpointId: row.id, endpointName: row.name, jobId: row.jobId, failureCount: row.failureCount };
    const raise = (type: NotificationEvent, extra: Record<string, unknown> = {}) =>
      events.push({
        accountId: row.accountId,
        endpointId: row.id,
        payload: { type, timestamp: now.toISOString(), data: { ...data, ...extra } },
      });
    if (row.failing) raise('endpoint.failing');
    if (row.recovered) raise('endpoint.recovered');
    if (row.autoPause) raise('endpoint.auto_paused', { autoPauseAfterFailures: row.autoPauseAfterFailures });
  }
  return events;
}

/** What the delivery worker needs: the row, its channel and the account's encrypted signing key. */
export interface NotificationDelivery {
  notification: Notification;
  channel: NotificationChannel | null;
  /** An operator disabled the account since the row was raised: nothing is sent. */
  accountDisabled: boolean;
  encryptedSigningKey: string | null;
  /** The key a rotation replaced, while the account's grace window keeps it signing (else null). */
  encryptedPreviousSigningKey: string | null;
}

export async function loadNotificationDelivery(
  db: Database,
  notificationId: string,
  now: Date,
): Promise<NotificationDelivery | null> {
  const notification = await db.prisma.notification.findUnique({
    where: { id: notificationId },
    include: {
      channel: true,
      account: {
        select: {
          disabledAt: true,
          signingKey: { select: { encryptedKey: true, previousEncryptedKey: true, previousExpiresAt: true } },
        },
      },
    },
  });
  if (!notification) return null;
  const { channel, account, ...row } = notification;
  const key = account.signingKey;
  const previousValid = key?.previousExpiresAt != null && key.previousExpiresAt > now;
  return {
    notification: row,
    channel,
    accountDisabled: account.disabledAt !== null,
    encryptedSigningKey: key?.encryptedKey ?? null,
    encryptedPreviousSigningKey: previousValid ? (key?.previousEncryptedKey ?? null) : null,
  };
}

export interface DeliveryAttempt {
  status: 'retrying' | 'delivered' | 'failed';
  responseCode: number | null;
  error: string | null;
  at: Date;
}

/** Records one delivery attempt (attempts + 1) and its outcome. */
export async function recordNotificationAttempt(
  db: Database,
  notificationId: string,
  attempt: DeliveryAttempt,
): Promise<void> {
  await db.prisma.notification.update({
    where: { id: notificationId },
    data: {
      status: attempt.status,
      attempts: { increment: 1 },
      responseCode: attempt.responseCode,
      error: attempt.error,
      lastAttemptAt: attempt.at,
      ...(attempt.status === 'delivered' ? { deliveredAt: attempt.at } : {}),
    },
  });
}

/** Notifications still pending (never attempted) since before `before`: their publish may have been lost. */
export async function listStalePendingNotifications(db: Database, before: Date, limit = 500): Promise<string[]> {
  const rows = await db.prisma.notification.findMany({
    where: { status: 'pending', attempts: 0, createdAt: { lt: before } },
    select: { id: true },
    orderBy: { createdAt: 'asc' },
    take: limit,
  });
  return rows.map((row) => row.id);
}

/**
 * quota.nearly_exhausted: for accounts with a channel that receives it, the runs and AI tokens used
 * this month against their limits; a kind at 90 % or more whose notice this month is not yet sent
 * is claimed (a conditional update of runsQuotaNoticeFor / aiTokensQuotaNoticeFor to the month's
 * start) and returned, once a month per kind whatever the number of workers.
 */
export async function claimQuotaNotices(db: Database, now: Date): Promise<RaisedEvent[]> {
  const period = aiBudgetPeriod(now);
  const accounts = await db.prisma.account.findMany({
    where: {
      disabledAt: null,
      notificationChannels: {
        some: { OR: [{ events: { isEmpty: true } }, { events: { has: 'quota.nearly_exhausted' } }] },
      },
    },
    select: {
      id: true,
      tier: true,
      quotaOverrides: true,
      aiTokensUsed: true,
      aiPeriodStartedAt: true,
      runsQuotaNoticeFor: true,
      aiTokensQuotaNoticeFor: true,
    },
  });
  const events: RaisedEvent[] = [];
  const noticeDue = (sentFor: Date | null) => sentFor === null || sentFor < period.startedAt;
  for (const account of accounts) {
    const limits = tierLimits(account.tier, account.quotaOverrides);
    const candidates: { quota: 'runsPerMonth' | 'aiTokensPerMonth'; used: number; limit: number }[] = [];
    if (noticeDue(account.runsQuotaNoticeFor)) {
      candidates.push({
        quota: 'runsPerMonth',
        used: await countRunsSince(db, account.id, period.startedAt),
        limit: limits.runsPerMonth,
      });
    }
    if (noticeDue(account.aiTokensQuotaNoticeFor)) {
      const current = account.aiPeriodStartedAt >= period.startedAt;
      candidates.push({
        quota: 'aiTokensPerMonth',
        used: current ? account.aiTokensUsed : 0,
        limit: limits.aiTokensPerMonth,
      });
    }
    for (const { quota, used, limit } of candidates) {
      if (limit <= 0 || used < limit * NOTIFICATION_LIMITS.quotaNoticeRatio) continue;
      const column = quota === 'runsPerMonth' ? 'runsQuotaNoticeFor' : 'aiTokensQuotaNoticeFor';
      const { count } = await db.prisma.account.updateMany({
        where: {
          id: account.id,
          OR: [{ [column]: null }, { [column]: { lt: period.startedAt } }],
        },
        data: { [column]: period.startedAt },
      });
      if (count === 0) continue;
      events.push({
        accountId: account.id,
        endpointId: null,
        payload: {
          type: 'quota.nearly_exhausted',
          timestamp: now.toISOString(),
          data: {
            quota,
            used,
            limit,
            percent: Math.floor((used / limit) * 100),
            periodStart: period.startedAt.toISOString(),
            periodEnd: period.endsAt.toISOString(),
          },
        },
      });
    }
  }
  return events;
}

/** One endpoint event raised outside the recording path (the planner's pause): its rows' ids. */
export async function raiseEndpointEvent(
  db: Database,
  accountId: string,
  endpointId: string,
  type: NotificationEvent,
  extra: Record<string, unknown>,
  now: Date,
): Promise<string[]> {
  const endpoint = await db.prisma.endpoint.findFirst({
    where: { id: endpointId, accountId },
    select: { name: true, jobId: true, failureCount: true },
  });
  if (!endpoint) return [];
  const data = {
    endpointId,
    endpointName: endpoint.name,
    jobId: endpoint.jobId,
    failureCount: endpoint.failureCount,
    ...extra,
  };
  return raiseNotifications(db, [{ accountId, endpointId, payload: { type, timestamp: now.toISOString(), data } }]);
}
