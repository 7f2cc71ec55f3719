/**
 * Delivers notifications: consumes the `notifications` queue, sends each row to its
 * channel (channels.ts) and records every attempt in PostgreSQL (attempts, status, response code,
 * error). Lives in the executor because the executor already makes the outbound calls of the
 * product under its egress guard and holds the master key that decrypts signing keys; a separate
 * service would duplicate both for a few messages a day.
 *
 * Retries: a transient failure (connection error, timeout, 5xx, 408, 429, SMTP 4xx) is retried by
 * BullMQ with this worker's backoff, `retryBaseMs` × 2^(attempt − 1) capped at 5 minutes, up to
 * NOTIFICATION_ATTEMPTS (packages/queue); a permanent one (blocked address, other 4xx, no signing
 * key) fails at once. The row says `retrying` between attempts, then `delivered` or `failed`.
 *
 * A repeatable `sweep` job (one per interval for the whole fleet: BullMQ's job scheduler) checks the
 * quotas (quota.nearly_exhausted) and re-adds rows still pending a minute after they were raised (a
 * publish lost with Redis); job ids are the notification ids, so nothing is delivered twice.
 *
 * An `invitation-mail` job (POST /api/account/invitations with SMTP configured) mails an invitation
 * link, sealed in the job, with the same retries; it has no row: its failures are logged.
 */
import { CONFIRMATION_NOTIFICATION_EVENT, decryptSecret, signRecipientConfirmation } from '@kairos/core';
import type { Database, NotificationChannel } from '@kairos/db';
import {
  claimQuotaNotices,
  listStalePendingNotifications,
  loadNotificationDelivery,
  raiseNotifications,
  recordNotificationAttempt,
  type NotificationDelivery,
} from '@kairos/db/system';
import {
  INVITATION_MAIL_JOB,
  NOTIFICATION_ATTEMPTS,
  QUEUES,
  invitationMailPayload,
  createNotificationQueue,
  notificationJobPayload,
  type NotificationQueue,
} from '@kairos/queue';
import type { Logger } from '@kairos/runtime';
import { Queue, Worker, type Job } from 'bullmq';
import type { RedisConnection } from '@kairos/queue';
import type { NotificationPayload } from '@kairos/core';
import type { EgressPolicy } from '../http/types.js';
import { ChannelSender, type SendResult, type SmtpSettings } from './channels.js';

const RETRY_CAP_MS = 5 * 60_000;
/** A row still pending this long after it was raised has lost its publish. */
const STALE_PENDING_MS = 60_000;

export interface NotificationWorkerOptions {
  db: Database;
  connect: () => RedisConnection;
  prefix: string;
  logger: Logger;
  masterKey: Buffer;
  egress: EgressPolicy;
  smtp: SmtpSettings | null;
  /** First retry delay; doubles per attempt (default 2000 ms). */
  retryBaseMs?: number;
  /** How often the sweep runs (default 60 s). */
  sweepEveryMs?: number;
  concurrency?: number;
  userAgent?: string;
  now?: () => Date;
}

export class NotificationWorker {
  private worker: Worker | null = null;
  private scheduler: Queue | null = null;
  private readonly sender: ChannelSender;
  private readonly queue: NotificationQueue;
  private readonly connections: RedisConnection[] = [];
  private readonly now: () => Date;

  constructor(private readonly options: NotificationWorkerOptions) {
    this.now = options.now ?? (() => new Date());
    this.sender = new ChannelSender({
      egress: options.egress,
      smtp: options.smtp,
      userAgent: options.userAgent ?? 'Kairos/0.1 (+notifications)',
      // The notification's error says only "resolves to a non-public address"; the operator's log has which.
      onBlocked: (refusal) => options.logger.warn('notification receiver refused by the egress guard', refusal),
    });
    this.queue = createNotificationQueue(this.connect(), options.prefix);
  }

  private connect(): RedisConnection {
    const connection = this.options.connect();
    connection.on('error', (error) => this.options.logger.warn('redis connection error', { error: error.message }));
    this.connections.push(connection);
    return connection;
  }

  async start(): Promise<void> {
    const { prefix, logger } = this.options;
    const base = this.options.retryBaseMs ?? 2000;
    this.worker = new Worker(QUEUES.notifications, (job: Job) => this.process(job), {
      connection: this.connect(),
      prefix,
      concurrency: this.options.concurrency ?? 10,
      settings: { backoffStrategy: (attemptsMade: number) => Math.min(base * 2 ** (attemptsMade - 1), RETRY_CAP_MS) },
    });
    this.worker.on('error', (error) => logger.error('notification worker error', { error: error.message }));
    this.scheduler = new Queue(QUEUES.notifications, { connection: this.connections[0]!, prefix });
    await this.scheduler.upsertJobScheduler(
      'notifications-sweep',
      { every: this.options.sweepEveryMs ?? 60_000 },
      { name: 'sweep', opts: { removeOnComplete: true, removeOnFail: 100 } },
    );
    await this.worker.waitUntilReady();
  }

  private async process(job: Job): Promise<void> {
    if (job.name === 'sweep') return this.sweep();
    if (job.name === INVITATION_MAIL_JOB) {
      return this.mailInvitation(job.data, job.attemptsMade + 1, job.opts.attempts ?? NOTIFICATION_ATTEMPTS);
    }
    const { notificationId } = notificationJobPayload.parse(job.data);
    await this.deliver(notificationId, job.attemptsMade + 1, job.opts.attempts ?? NOTIFICATION_ATTEMPTS);
  }

  /** One attempt; throws (so BullMQ retries) only for a transient failure with attempts left. */
  async deliver(notificationId: string, attempt: number, maxAttempts: number): Promise<void> {
    const { db } = this.options;
    const at = this.now();
    const delivery = await loadNotificationDelivery(db, notificationId, at);
    if (!delivery || delivery.notification.status === 'delivered' || delivery.notification.status === 'failed') return;
    const { notification, channel } = delivery;
    if (!channel || delivery.accountDisabled) {
      const error = channel ? 'the account is disabled' : 'the channel was deleted';
      await recordNotificationAttempt(db, notificationId, { status: 'failed', responseCode: null, error, at });
      return;
    }
    const payload = notification.payload as unknown as NotificationPayload;
    const result =
      payload.type === CONFIRMATION_NOTIFICATION_EVENT
        ? await this.sendConfirmation(channel, payload)
        : await this.sender.send(channel, {
            id: notification.id,
            payload,
            signingKeys: this.signingKeysOf(delivery),
            at,
          });
    const retry = !result.ok && !result.permanent && attempt < maxAttempts;
    await recordNotificationAttempt(db, notificationId, {
      status: result.ok ? 'delivered' : retry ? 'retrying' : 'failed',
      responseCode: result.responseCode,
      error: result.error,
      at,
    });
    if (retry) throw new Error(result.error ?? 'delivery failed');
  }

  /** The account's raw signing keys, current first; none when one cannot be decrypted. */
  private signingKeysOf(delivery: NotificationDelivery): string[] {
    try {
      return [delivery.encryptedSigningKey, delivery.encryptedPreviousSigningKey]
        .filter((key): key is string => key !== null)
        .map((key) => decryptSecret(key, this.options.masterKey));
    } catch {
      // As for executions: a key that cannot be decrypted never lets a message leave unsigned.
      return [];
    }
  }

  /**
   * A recipient's confirmation mail: the link the api wrote (without signature, as the tenant sees it),
   * signed here with the key derived from the master key. Only for an address the channel still lists.
   */
  private async sendConfirmation(channel: NotificationChannel, payload: NotificationPayload): Promise<SendResult> {
    const { recipient, confirmUrl, expiresAt } = payload.data as Record<string, unknown>;
    if (typeof recipient !== 'string' || typeof confirmUrl !== 'string' || typeof expiresAt !== 'string') {
      return { ok: false, responseCode: null, error: 'not a confirmation of this channel', permanent: true };
    }
    if (channel.type !== 'email' || !channel.recipients.includes(recipient)) {
      return { ok: false, responseCode: null, error: 'the channel no longer lists this recipient', permanent: true };
    }
    const confirmation = { channelId: channel.id, recipient, expiresAt: new Date(expiresAt) };
    const link = new URL(confirmUrl);
    link.searchParams.set('signature', signRecipientConfirmation(this.options.masterKey, confirmation));
    return this.sender.sendConfirmation(recipient, link.toString(), expiresAt);
  }

  /** One attempt at an invitation's mail; throws (so BullMQ retries) only for a transient failure with attempts left. */
  async mailInvitation(data: unknown, attempt: number, maxAttempts: number): Promise<void> {
    const { logger, masterKey } = this.options;
    const invitation = invitationMailPayload.parse(data);
    let link: string;
    try {
      link = decryptSecret(invitation.sealedUrl, masterKey);
    } catch (error) {
      logger.warn('invitation mail not sent: its link could not be decrypted', {
        invitationId: invitation.invitationId,
        error: (error as Error).message,
      });
      return;
    }
    const result = await this.sender.sendInvitation(invitation.email, link, invitation);
    if (result.ok) return;
    const retry = !result.permanent && attempt < maxAttempts;
    logger.warn(retry ? 'invitation mail failed, retried' : 'invitation mail not sent', {
      invitationId: invitation.invitationId,
      attempt,
      responseCode: result.responseCode,
      error: result.error,
    });
    if (retry) throw new Error(result.error ?? 'invitation mail failed');
  }

  /** Quota notices, and rows whose publish was lost. */
  async sweep(): Promise<void> {
    const { db } = this.options;
    const now = this.now();
    const raised = await raiseNotifications(db, await claimQuotaNotices(db, now));
    const stale = await listStalePendingNotifications(db, new Date(now.getTime() - STALE_PENDING_MS));
    await this.queue.enqueue([...new Set([...raised, ...stale])]);
  }

  async close(): Promise<void> {
    await this.worker?.close();
    await this.scheduler?.close();
    await this.queue.close();
    this.sender.close();
    for (const connection of this.connections) connection.disconnect();
  }
}
