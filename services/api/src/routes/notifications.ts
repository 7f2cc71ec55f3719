/**
 * Notification channels and the notifications sent to them (opt-in): create, list, get,
 * delete and test a channel; list the deliveries. Delivery happens in the executors
 * (services/executor/src/notifications/notification-worker.ts) through the notifications queue; the
 * API only writes rows and publishes them. Email channels need SMTP in the environment
 * (KAIROS_SMTP_URL on the api and the executors): without it they are refused with 409.
 */
import {
  CONFIRMATION_NOTIFICATION_EVENT,
  NOTIFICATION_CHANNEL_TYPES,
  NOTIFICATION_EVENTS,
  NOTIFICATION_LIMITS,
  NOTIFICATION_STATUSES,
  createNotificationChannelInput,
  isId,
  newId,
  pagingQuery,
} from '@kairos/core';
import {
  createNotificationChannel,
  deleteNotificationChannel,
  getNotificationChannel,
  listNotificationChannels,
  listNotifications,
  raiseTestNotification,
  type Notification,
  type NotificationChannel,
} from '@kairos/db';
import { createNotificationQueue, type NotificationQueue } from '@kairos/queue';
import type { Response } from 'express';
import { z } from 'zod';
import { audit } from '../audit.js';
import type { RouteRegistry } from '../http/route.js';
import {
  CONFIRMATION_MAILS,
  TEST_SENDS,
  assertEmailAvailable,
  planRecipients,
  spendAccountBucket,
} from '../notification-recipients.js';
import type { RateLimit } from '../rate-limit.js';
import { errorResponses, isoOrNull, isoTime, pageHeaderDocs, pageHeaders } from './common.js';
import type { ApiDeps } from './deps.js';

const channelRecord = z
  .object({
    id: z.string(),
    name: z.string(),
    type: z.enum(NOTIFICATION_CHANNEL_TYPES),
    url: z.string().nullable().meta({ description: 'webhook and slack: where notifications are POSTed' }),
    recipients: z.array(z.string()).meta({ description: 'email: the recipients (empty for other types)' }),
    pendingRecipients: z.array(z.string()).meta({
      description:
        'email: the recipients that have not confirmed yet: they receive nothing but their confirmation link ' +
        "(the account's verified users are confirmed at once)",
    }),
    events: z.array(z.enum(NOTIFICATION_EVENTS)).meta({ description: 'The events this channel receives' }),
    createdAt: isoTime,
  })
  .meta({ id: 'NotificationChannel' });

const notificationRecord = z
  .object({
    id: z.string().meta({ description: 'Also the webhook-id header: the same on every retry' }),
    channelId: z.string().nullable().meta({ description: 'null once the channel was deleted' }),
    event: z.enum([...NOTIFICATION_EVENTS, 'test', CONFIRMATION_NOTIFICATION_EVENT]),
    endpointId: z.string().nullable(),
    payload: z
      .object({ type: z.string(), timestamp: isoTime, data: z.record(z.string(), z.unknown()) })
      .meta({ description: 'The Standard Webhooks payload a webhook channel receives as its body' }),
    status: z.enum(NOTIFICATION_STATUSES).meta({
      description: 'pending (not tried yet), retrying (a transient failure; retried with backoff), delivered, failed',
    }),
    attempts: z.number().int(),
    responseCode: z.number().int().nullable().meta({ description: 'HTTP (or SMTP) status of the last attempt' }),
    error: z.string().nullable().meta({ description: 'Why the last attempt failed' }),
    lastAttemptAt: isoTime.nullable(),
    deliveredAt: isoTime.nullable(),
    createdAt: isoTime,
  })
  .meta({ id: 'Notification' });

const listChannelsQuery = pagingQuery(50);
const listNotificationsQuery = pagingQuery(50).extend({
  channelId: z
    .string()
    .refine(isId, 'must be a channel id')
    .optional()
    .meta({ description: 'Only notifications sent to this channel' }),
  event: z
    .enum([...NOTIFICATION_EVENTS, 'test', CONFIRMATION_NOTIFICATION_EVENT])
    .optional()
    .meta({ description: 'Only this event' }),
});

function toChannelRecord(channel: NotificationChannel): z.output<typeof channelRecord> {
  return {
    id: channel.id,
    name: channel.name,
    type: channel.type,
    url: channel.url,
    recipients: channel.recipients,
    pendingRecipients: channel.recipients.filter((recipient) => !channel.confirmedRecipients.includes(recipient)),
    // Stored empty: all events, including ones added later.
    events: (channel.events.length > 0 ? channel.events : NOTIFICATION_EVENTS) as z.output<
      typeof channelRecord
    >['events'],
    createdAt: channel.createdAt.toISOString(),
  };
}

function toNotificationRecord(row: Notification): z.output<typeof notificationRecord> {
  return {
    id: row.id,
    channelId: row.channelId,
    event: row.event as z.output<typeof notificationRecord>['event'],
    endpointId: row.endpointId,
    payload: row.payload as z.output<typeof notificationRecord>['payload'],
    status: row.status as z.output<typeof notificationRecord>['status'],
    attempts: row.attempts,
    responseCode: row.responseCode,
    error: row.error,
    lastAttemptAt: isoOrNull(row.lastAttemptAt),
    deliveredAt: isoOrNull(row.deliveredAt),
    createdAt: row.createdAt.toISOString(),
  };
}

export function registerNotificationRoutes(routes: RouteRegistry, deps: ApiDeps): void {
  const tags = ['Notifications'];
  const spend = (res: Response, accountId: string, name: string, limit: RateLimit, cost: number) =>
    spendAccountBucket(deps, res, accountId, name, limit, cost);

  // Created at the first test send: registering routes connects to nothing (pnpm web:api builds them offline).
  let queue: NotificationQueue | null = null;
  const publish = async (ids: string[]) => {
    queue ??= createNotificationQueue(deps.redis, deps.config.KAIROS_QUEUE_PREFIX);
    // A lost publish (Redis down) leaves the row pending: the executors' sweep re-adds it within a minute or two.
    await queue
      .enqueue(ids)
      .catch((error: Error) =>
        deps.logger.warn('notification not published; the sweep will re-add it', { error: error.message }),
      );
  };

  routes.add(
    {
      method: 'post',
      path: '/api/notification-channels',
      role: 'admin',
      operationId: 'createNotificationChannel',
      summary: 'Create a notification channel (webhook, slack or email)',
      description:
        'Events (default: all): endpoint.failing (consecutive failures reached the account setting ' +
        'notifyFailureThreshold, default 3), endpoint.recovered (its next success), endpoint.auto_paused, ' +
        'endpoint.paused_by_planner, quota.nearly_exhausted (90 % of runsPerMonth or aiTokensPerMonth, once a month ' +
        'each). One notification per state change, never one per run. webhook: a POST of the payload { type, ' +
        'timestamp, data } signed in the Standard Webhooks format (webhook-id, webhook-timestamp, webhook-signature) ' +
        "with the account's signing key; the receiver's secret is 'whsec_' + base64 of the signing key as shown " +
        '(its 64 characters as UTF-8). slack: an incoming-webhook URL, sent { text, blocks }. email: recipients, ' +
        'sent through the SMTP server configured on the server (409 CONFLICT when none is). A recipient that is ' +
        'not a verified user of the account is sent a confirmation link (event recipient.confirmation, valid 7 ' +
        'days) and receives nothing else until it confirms (pendingRecipients lists them); an account causes at ' +
        `most ${NOTIFICATION_LIMITS.confirmationMailsPerDay} confirmation mails a day (429 RATE_LIMITED beyond). ` +
        'At most 20 channels.',
      tags,
      body: createNotificationChannelInput,
      responses: {
        201: { description: 'The new channel', schema: channelRecord },
        ...errorResponses(400, 409),
      },
    },
    async ({ auth, body, res }) => {
      if (body.type === 'email') assertEmailAvailable(deps);
      const plan =
        body.type === 'email' ? await planRecipients(deps, auth.accountId, newId(), body.recipients) : undefined;
      await spend(res, auth.accountId, 'confirmation-mails', CONFIRMATION_MAILS, plan?.confirmations.length ?? 0);
      const { channel, confirmationIds } = await createNotificationChannel(deps.db, auth.accountId, body, plan);
      if (confirmationIds.length > 0) await publish(confirmationIds);
      await audit(
        deps,
        auth,
        'notification_channel.created',
        { type: 'notification_channel', id: channel.id },
        { name: channel.name, type: channel.type },
      );
      return { status: 201, body: toChannelRecord(channel) };
    },
  );

  routes.add(
    {
      method: 'get',
      path: '/api/notification-channels',
      operationId: 'listNotificationChannels',
      summary: "The account's notification channels, newest first",
      tags,
      query: listChannelsQuery,
      responses: {
        200: {
          description: 'A page of channels',
          schema: z.array(channelRecord),
          headers: pageHeaderDocs('Number of channels'),
        },
        ...errorResponses(400),
      },
    },
    async ({ auth, query, req }) => {
      const { channels, total } = await listNotificationChannels(deps.db, auth.accountId, query);
      return {
        body: channels.map(toChannelRecord),
        headers: pageHeaders(req, { ...query, total }, deps.config.KAIROS_PUBLIC_URL),
      };
    },
  );

  routes.add(
    {
      method: 'get',
      path: '/api/notification-channels/:channelId',
      operationId: 'getNotificationChannel',
      summary: 'A notification channel',
      tags,
      responses: { 200: { description: 'The channel', schema: channelRecord }, ...errorResponses(404) },
    },
    async ({ auth, params }) => ({
      body: toChannelRecord(await getNotificationChannel(deps.db, auth.accountId, params.channelId!)),
    }),
  );

  routes.add(
    {
      method: 'delete',
      path: '/api/notification-channels/:channelId',
      role: 'admin',
      operationId: 'deleteNotificationChannel',
      summary: 'Delete a notification channel',
      description: 'Its notifications stay listed (channelId null); pending retries to it fail.',
      tags,
      responses: {
        200: {
          description: 'The deleted channel',
          schema: z
            .object({ success: z.literal(true), channel: channelRecord })
            .meta({ id: 'DeleteNotificationChannelResult' }),
        },
        ...errorResponses(404),
      },
    },
    async ({ auth, params }) => {
      const channel = await deleteNotificationChannel(deps.db, auth.accountId, params.channelId!);
      await audit(
        deps,
        auth,
        'notification_channel.deleted',
        { type: 'notification_channel', id: channel.id },
        { name: channel.name, type: channel.type },
      );
      return { body: { success: true, channel: toChannelRecord(channel) } };
    },
  );

  routes.add(
    {
      method: 'post',
      path: '/api/notification-channels/:channelId/test',
      role: 'admin',
      operationId: 'testNotificationChannel',
      summary: 'Send a test notification to a channel',
      description:
        'Queues a notification with event "test" for this channel (whatever its events) and answers at once with ' +
        'the row (status pending); follow it in GET /api/notifications?channelId=… (delivered, or failed with the ' +
        'response code and error). An email channel sends it to its confirmed recipients only (409 CONFLICT while ' +
        `none has confirmed). At most ${NOTIFICATION_LIMITS.testSendsPerHour} test notifications an hour per ` +
        'account (429 RATE_LIMITED with Retry-After beyond).',
      tags,
      responses: {
        202: { description: 'The queued test notification', schema: notificationRecord },
        ...errorResponses(404, 409),
      },
    },
    async ({ auth, params, res }) => {
      await spend(res, auth.accountId, 'test-notifications', TEST_SENDS, 1);
      const row = await raiseTestNotification(deps.db, auth.accountId, params.channelId!, deps.now());
      await publish([row.id]);
      return { status: 202, body: toNotificationRecord(row) };
    },
  );

  routes.add(
    {
      method: 'get',
      path: '/api/notifications',
      operationId: 'listNotifications',
      summary: 'Notifications sent to the account’s channels and their delivery, newest first',
      tags,
      query: listNotificationsQuery,
      responses: {
        200: {
          description: 'A page of notifications',
          schema: z.array(notificationRecord),
          headers: pageHeaderDocs('Notifications matching the filter'),
        },
        ...errorResponses(400),
      },
    },
    async ({ auth, query, req }) => {
      const { notifications, total } = await listNotifications(deps.db, auth.accountId, query);
      return {
        body: notifications.map(toNotificationRecord),
        headers: pageHeaders(req, { ...query, total }, deps.config.KAIROS_PUBLIC_URL),
      };
    },
  );
}
