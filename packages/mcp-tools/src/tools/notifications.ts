/**
 * Notification channels, deliveries and the failure thresholds. The API validates every
 * combination (a URL for webhook and slack, recipients for email); the input here is one flat
 * object because MCP tool inputs are plain objects.
 */
import { fetchPage, unwrap, type Schemas } from '@kairos/client';
import {
  CONFIRMATION_NOTIFICATION_EVENT,
  FAILURE_SETTING_RANGE,
  NOTIFICATION_CHANNEL_TYPES,
  NOTIFICATION_EVENTS,
  pagingQuery,
} from '@kairos/core';
import { z } from 'zod';
import { notificationChannelRecord, notificationRecord, type NotificationInfo } from '../notification-records.js';
import { CHANGE, IDEMPOTENT_CHANGE, defineListTool, defineTool, idArg } from '../tool.js';

const channelId = idArg('notification channel');
const paging = pagingQuery(50).shape;
const failures = z.number().int().min(FAILURE_SETTING_RANGE.min).max(FAILURE_SETTING_RANGE.max);
const describeDelivery = (row: NotificationInfo) =>
  `Notification ${row.id} (${row.event}) is ${row.status} after ${row.attempts} attempt(s)` +
  (row.error ? `: ${row.error}` : '.');

export const notificationTools = [
  defineTool({
    name: 'createNotificationChannel',
    title: 'Create a notification channel',
    description:
      'Where state changes are announced: type webhook (url; a POST signed in the Standard Webhooks format with ' +
      "the account signing key, secret 'whsec_' + base64 of the rawKey), slack (url of an incoming webhook) or " +
      'email (recipients; needs SMTP on the server, else CONFLICT; an address that is not a verified user of the ' +
      'account is sent a confirmation link and receives nothing else until it confirms: pendingRecipients). ' +
      'events (default all): endpoint.failing, ' +
      'endpoint.recovered, endpoint.auto_paused, endpoint.paused_by_planner, quota.nearly_exhausted. One ' +
      'notification per state change, never one per run.',
    input: z.strictObject({
      name: z.string().describe('A name to recognise the channel'),
      type: z.enum(NOTIFICATION_CHANNEL_TYPES),
      url: z.string().optional().describe('webhook and slack: the http(s) URL'),
      recipients: z.array(z.string()).optional().describe('email: the recipients'),
      events: z.array(z.enum(NOTIFICATION_EVENTS)).optional().describe('Events to receive (default all)'),
    }),
    output: notificationChannelRecord,
    annotations: CHANGE,
    // A flat input (MCP clients handle one object best); the API checks it against the type's fields.
    run: (api, body) =>
      unwrap(api.POST('/api/notification-channels', { body: body as Schemas['CreateNotificationChannelInput'] })),
    summarize: (channel) => `Created ${channel.type} channel "${channel.name}" (${channel.id}).`,
  }),
  defineListTool({
    name: 'listNotificationChannels',
    title: 'List notification channels',
    description: "The account's notification channels, newest first.",
    input: z.strictObject(paging),
    key: 'channels',
    item: notificationChannelRecord,
    list: (api, paging) =>
      fetchPage((page) => api.GET('/api/notification-channels', { params: { query: page } }), paging),
  }),
  defineTool({
    name: 'deleteNotificationChannel',
    title: 'Delete a notification channel',
    description: 'The channel stops receiving notifications; its past notifications stay listed.',
    input: z.strictObject({ channelId }),
    output: z.object({ success: z.literal(true), channel: notificationChannelRecord }),
    annotations: { ...CHANGE, destructiveHint: true },
    run: (api, { channelId }) =>
      unwrap(api.DELETE('/api/notification-channels/{channelId}', { params: { path: { channelId } } })),
    summarize: (result) => `Deleted channel "${result.channel.name}".`,
  }),
  defineTool({
    name: 'testNotificationChannel',
    title: 'Send a test notification',
    description:
      'Queues a "test" notification to the channel; follow its delivery with listNotifications (channelId). An ' +
      'email channel sends it to its confirmed recipients only (CONFLICT while none has confirmed); at most 10 ' +
      'test notifications an hour per account (RATE_LIMITED beyond).',
    input: z.strictObject({ channelId }),
    output: notificationRecord,
    annotations: CHANGE,
    run: (api, { channelId }) =>
      unwrap(api.POST('/api/notification-channels/{channelId}/test', { params: { path: { channelId } } })),
    summarize: describeDelivery,
  }),
  defineListTool({
    name: 'listNotifications',
    title: 'List notifications and their delivery',
    description:
      `Notifications sent to the account's channels, newest first: event, status (pending, retrying, delivered, ` +
      'failed), attempts, response code and error. Optional channelId and event filters.',
    input: z.strictObject({
      ...paging,
      channelId: z.string().optional().describe('Only this channel'),
      event: z
        .enum([...NOTIFICATION_EVENTS, 'test', CONFIRMATION_NOTIFICATION_EVENT])
        .optional()
        .describe('Only this event'),
    }),
    key: 'notifications',
    item: notificationRecord,
    list: (api, { offset, limit, ...filter }) =>
      fetchPage((page) => api.GET('/api/notifications', { params: { query: { ...filter, ...page } } }), {
        offset,
        limit,
      }),
  }),
  defineTool({
    name: 'setFailureThresholds',
    title: 'Set the failing and auto-pause thresholds',
    description:
      'notifyFailureThreshold (1 to 1000, default 3): consecutive failures after which an endpoint is failing ' +
      '(endpoint.failing, then endpoint.recovered on its next success). autoPauseAfterFailures (1 to 1000, or ' +
      'null = never, the default): the account default for endpoints that set none; such an endpoint is paused ' +
      'with a reason and endpoint.auto_paused is sent; resume it with pauseEndpoint (pausedUntil null).',
    input: z.strictObject({
      notifyFailureThreshold: failures.optional(),
      autoPauseAfterFailures: failures.nullable().optional(),
    }),
    annotations: IDEMPOTENT_CHANGE,
    run: async (api, body) => (await unwrap(api.PATCH('/api/account/settings', { body }))).settings,
    summarize: (settings) =>
      `Failing after ${settings.notifyFailureThreshold} consecutive failures; auto-pause ` +
      (settings.autoPauseAfterFailures === null ? 'off by default.' : `after ${settings.autoPauseAfterFailures}.`),
  }),
];
