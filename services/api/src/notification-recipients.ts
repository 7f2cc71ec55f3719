/**
 * What creating (or changing) an email channel's recipients takes, shared by the notification
 * routes and configuration apply: the account's verified users receive at once, each other address
 * gets a confirmation mail (double opt-in), and the mails an account may cause are limited. Also
 * the per-account token buckets those limits spend from.
 */
import {
  AppError,
  CONFIRMATION_NOTIFICATION_EVENT,
  NOTIFICATION_LIMITS,
  RECIPIENT_CONFIRMATION_TTL_MS,
  recipientConfirmationUrl,
  type NotificationPayload,
} from '@kairos/core';
import { listVerifiedUserEmails, type EmailRecipientsPlan } from '@kairos/db';
import type { Response } from 'express';
import type { RateLimit } from './rate-limit.js';
import type { ApiDeps } from './routes/deps.js';

/** Test notifications per account: NOTIFICATION_LIMITS.testSendsPerHour, all at once, then spread. */
export const TEST_SENDS: RateLimit = {
  requestsPerMinute: NOTIFICATION_LIMITS.testSendsPerHour / 60,
  burst: NOTIFICATION_LIMITS.testSendsPerHour,
};
/** Confirmation mails per account: NOTIFICATION_LIMITS.confirmationMailsPerDay, all at once, then spread. */
export const CONFIRMATION_MAILS: RateLimit = {
  requestsPerMinute: NOTIFICATION_LIMITS.confirmationMailsPerDay / 1440,
  burst: NOTIFICATION_LIMITS.confirmationMailsPerDay,
};

/**
 * Takes `cost` from the account's bucket `name` (the api's Redis token buckets, rate-limit.ts), or
 * answers 429 with Retry-After. Test sends and confirmation mails go out through the operator's SMTP
 * server and the executors: limits of their own, far below the request rate. Redis failing lets
 * them pass, as it does the request limit.
 */
export async function spendAccountBucket(
  deps: ApiDeps,
  res: Response,
  accountId: string,
  name: string,
  limit: RateLimit,
  cost: number,
): Promise<void> {
  if (cost === 0) return;
  const decision = await deps.rateLimiter
    .take(`${name}:account:${accountId}`, limit, deps.now().getTime(), cost)
    .catch((error: Error) => {
      deps.logger.warn(`${name} limit not checked`, { error: error.message });
      return null;
    });
  if (!decision || decision.allowed) return;
  res.setHeader('Retry-After', String(decision.retryAfterSec));
  throw new AppError('RATE_LIMITED', `too many ${name.replaceAll('-', ' ')}: retry in ${decision.retryAfterSec} s`, {
    retryAfterSeconds: decision.retryAfterSec,
  });
}

/** 409 when the server cannot send e-mail (no SMTP settings). */
export function assertEmailAvailable(deps: ApiDeps, details: Record<string, unknown> = {}): void {
  if (!deps.config.KAIROS_SMTP_URL) {
    throw new AppError(
      'CONFLICT',
      'email notifications are not available: the server has no SMTP settings (KAIROS_SMTP_URL, KAIROS_SMTP_FROM)',
      { type: 'email', ...details },
    );
  }
}

/**
 * An email channel's recipients: the account's verified users and the addresses confirmed before
 * (`confirmed`, a changed channel's) receive at once; each other address is sent a confirmation mail,
 * except those `alreadyAsked` (a changed channel's pending ones). Its link goes to KAIROS_PUBLIC_URL,
 * never to the request's Host header: a link to a host the tenant chose would hand them the signature.
 */
export async function planRecipients(
  deps: ApiDeps,
  accountId: string,
  channelId: string,
  recipients: string[],
  previous: { confirmed: string[]; alreadyAsked: string[] } = { confirmed: [], alreadyAsked: [] },
): Promise<EmailRecipientsPlan> {
  const verified = new Set(await listVerifiedUserEmails(deps.db, accountId));
  const now = deps.now();
  const expiresAt = new Date(now.getTime() + RECIPIENT_CONFIRMATION_TTL_MS);
  const baseUrl = deps.config.KAIROS_PUBLIC_URL ?? `http://localhost:${deps.config.PORT}`;
  const isConfirmed = (recipient: string) =>
    verified.has(recipient.toLowerCase()) || previous.confirmed.includes(recipient);
  const pending = recipients.filter(
    (recipient) => !isConfirmed(recipient) && !previous.alreadyAsked.includes(recipient),
  );
  return {
    channelId,
    confirmedRecipients: recipients.filter(isConfirmed),
    confirmations: pending.map((recipient): NotificationPayload => ({
      type: CONFIRMATION_NOTIFICATION_EVENT,
      timestamp: now.toISOString(),
      data: {
        channelId,
        recipient,
        expiresAt: expiresAt.toISOString(),
        // Without its signature: the executor signs it into the mail (core/signing/recipient-confirmation.ts).
        confirmUrl: recipientConfirmationUrl(baseUrl, { channelId, recipient, expiresAt }),
      },
    })),
  };
}
