/**
 * Hands notifications to the executor's delivery worker (→ notifications queue). The rows
 * are written to PostgreSQL first (status pending); a lost publish (Redis down) is found by the
 * worker's sweep, which re-adds pending rows under the same job id, so no notification is lost.
 */
import { Queue } from 'bullmq';
import type { RedisConnection } from './connection.js';
import { QUEUES } from './names.js';
import {
  invitationMailJob,
  notificationJob,
  type InvitationMailPayload,
  type NotificationJobPayload,
} from './payloads.js';

export interface NotificationQueue {
  enqueue(notificationIds: string[]): Promise<void>;
  /** An invitation's mail (no row: a lost publish loses the mail, the link in the answer stays valid). */
  enqueueInvitationMail(payload: InvitationMailPayload): Promise<void>;
  close(): Promise<void>;
}

export function createNotificationQueue(connection: RedisConnection, prefix: string): NotificationQueue {
  const queue = new Queue<NotificationJobPayload | InvitationMailPayload>(QUEUES.notifications, { connection, prefix });
  return {
    async enqueue(notificationIds) {
      if (notificationIds.length > 0) await queue.addBulk(notificationIds.map(notificationJob));
    },
    async enqueueInvitationMail(payload) {
      const job = invitationMailJob(payload);
      await queue.add(job.name, job.data, job.opts);
    },
    close: () => queue.close(),
  };
}
