/**
 * Notifications and auto-pause (opt-in): the shapes shared by the API, the MCP tools, the
 * web UI and the executor's delivery worker.
 *
 * A channel receives the events it lists (all of them by default). Each event is sent once per state
 * change of what it describes, never once per run: an endpoint becomes failing when its consecutive
 * failures reach the account's `notifyFailureThreshold` (default 3), recovers on its next success,
 * is auto-paused when they reach `autoPauseAfterFailures`; the planner's pause and a quota at 90 %
 * (once a month per kind) are events of their own.
 */
import { z } from 'zod';
import { trimmedName } from './common.js';
import { urlValue } from './endpoint.js';

export const NOTIFICATION_EVENTS = [
  'endpoint.failing',
  'endpoint.recovered',
  'endpoint.auto_paused',
  'endpoint.paused_by_planner',
  'quota.nearly_exhausted',
] as const;
export type NotificationEvent = (typeof NOTIFICATION_EVENTS)[number];

/** The event of "send a test notification" (not selectable: every channel can be tested). */
export const TEST_NOTIFICATION_EVENT = 'test';

/**
 * The event of the mail asking an email channel's recipient to confirm (not selectable: sent once per
 * recipient that is not a verified user of the account, when the channel is created).
 */
export const CONFIRMATION_NOTIFICATION_EVENT = 'recipient.confirmation';

export const NOTIFICATION_CHANNEL_TYPES = ['webhook', 'slack', 'email'] as const;
export type NotificationChannelType = (typeof NOTIFICATION_CHANNEL_TYPES)[number];

export const NOTIFICATION_STATUSES = ['pending', 'retrying', 'delivered', 'failed'] as const;

export const NOTIFICATION_LIMITS = {
  /** Recipients of one email channel: a team list, not a mailing list. */
  recipientsMax: 20,
  /** Channels per account: each event is one delivery per channel. */
  channelsMax: 20,
  /** quota.nearly_exhausted fires at this share of runsPerMonth or aiTokensPerMonth. */
  quotaNoticeRatio: 0.9,
  /** Test notifications an account may send per hour (all at once, then one every 6 minutes). */
  testSendsPerHour: 10,
  /** Confirmation mails an account may cause per day: two channels' worth of new recipients. */
  confirmationMailsPerDay: 40,
} as const;

const eventList = z
  .array(z.enum(NOTIFICATION_EVENTS))
  .min(1, 'list at least one event')
  .refine((events) => new Set(events).size === events.length, 'list each event once')
  .meta({ description: `Events this channel receives (default: all of ${NOTIFICATION_EVENTS.join(', ')})` });

export const emailAddress = z.email('must be an email address').max(254, 'must be at most 254 characters');

const channelBase = { name: trimmedName, events: eventList.optional() };

export const createNotificationChannelInput = z
  .discriminatedUnion('type', [
    z.strictObject({
      ...channelBase,
      type: z.literal('webhook'),
      url: urlValue.meta({
        description:
          'Receives a POST signed in the Standard Webhooks format (webhook-id, webhook-timestamp, webhook-signature) ' +
          "with the account's signing key; private addresses are refused at delivery like endpoint URLs",
      }),
    }),
    z.strictObject({
      ...channelBase,
      type: z.literal('slack'),
      url: urlValue.meta({ description: 'A Slack incoming-webhook URL (receives { text, blocks })' }),
    }),
    z.strictObject({
      ...channelBase,
      type: z.literal('email'),
      recipients: z
        .array(emailAddress)
        .min(1, 'list at least one recipient')
        .max(NOTIFICATION_LIMITS.recipientsMax, `at most ${NOTIFICATION_LIMITS.recipientsMax} recipients`)
        .meta({
          description:
            'Email addresses (the server sends with the SMTP settings of its environment). An address that is ' +
            'not a verified user of the account receives a confirmation link first, and nothing else until it confirms',
        }),
    }),
  ])
  .meta({ id: 'CreateNotificationChannelInput' });
export type CreateNotificationChannelInput = z.infer<typeof createNotificationChannelInput>;

/** The Standard Webhooks payload every channel's message is made from. */
export interface NotificationPayload {
  type: NotificationEvent | typeof TEST_NOTIFICATION_EVENT | typeof CONFIRMATION_NOTIFICATION_EVENT;
  /** ISO 8601 time of the state change. */
  timestamp: string;
  data: Record<string, unknown>;
}

/**
 * One line saying what happened, for Slack, email subjects and the UI. Pure: the data is what the
 * payload carries (endpoint name and id, failure count, reason, quota figures).
 */
export function describeNotification(payload: NotificationPayload): string {
  const data = payload.data;
  const endpoint = typeof data.endpointName === 'string' ? `Endpoint "${data.endpointName}"` : 'An endpoint';
  switch (payload.type) {
    case 'endpoint.failing':
      return `${endpoint} is failing: ${String(data.failureCount)} consecutive failures.`;
    case 'endpoint.recovered':
      return `${endpoint} recovered: its latest run succeeded.`;
    case 'endpoint.auto_paused':
      return `${endpoint} was paused after ${String(data.failureCount)} consecutive failures (autoPauseAfterFailures ${String(data.autoPauseAfterFailures)}). Resume it when it is fixed.`;
    case 'endpoint.paused_by_planner':
      return `${endpoint} was paused by the planner until ${String(data.pausedUntil)}: ${String(data.reason ?? '')}`.trim();
    case 'quota.nearly_exhausted':
      return `Quota ${String(data.quota)} is at ${String(data.percent)} % (${String(data.used)} of ${String(data.limit)}) this month.`;
    case 'test':
      return 'Test notification from Kairos: this channel works.';
    case 'recipient.confirmation':
      return `Asked ${String(data.recipient)} to confirm that it receives this channel's notifications.`;
  }
}
