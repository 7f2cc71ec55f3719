/**
 * The notification records. The API declares them in its route module, not in core, so
 * they are written here once: the notification tools' output schemas, and the client's types.
 */
import { NOTIFICATION_CHANNEL_TYPES } from '@kairos/core';
import { z } from 'zod';

/** A notification channel (GET /api/notification-channels). */
export const notificationChannelRecord = z.object({
  id: z.string(),
  name: z.string(),
  type: z.enum(NOTIFICATION_CHANNEL_TYPES),
  url: z.string().nullable(),
  recipients: z.array(z.string()),
  /** email: recipients that have not followed their confirmation link yet (they receive nothing else). */
  pendingRecipients: z.array(z.string()),
  events: z.array(z.string()),
  createdAt: z.string(),
});
/** One notification and its delivery (GET /api/notifications). */
export const notificationRecord = z.object({
  id: z.string(),
  channelId: z.string().nullable(),
  event: z.string(),
  endpointId: z.string().nullable(),
  payload: z.object({ type: z.string(), timestamp: z.string(), data: z.record(z.string(), z.unknown()) }),
  status: z.enum(['pending', 'retrying', 'delivered', 'failed']),
  attempts: z.number().int(),
  responseCode: z.number().int().nullable(),
  error: z.string().nullable(),
  lastAttemptAt: z.string().nullable(),
  deliveredAt: z.string().nullable(),
  createdAt: z.string(),
});

export type NotificationChannelInfo = z.output<typeof notificationChannelRecord>;
export type NotificationInfo = z.output<typeof notificationRecord>;
