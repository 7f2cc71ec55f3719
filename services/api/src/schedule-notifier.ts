/**
 * Tells the scheduler that endpoints' schedules changed (api → schedule-changes queue). The
 * scheduler recomputes and replaces the pending execution at once; if this publish is lost (Redis
 * down), the scheduler's periodic reconcile from PostgreSQL repairs it, so no change is lost.
 */
import { QUEUES, type ScheduleChangePayload } from '@kairos/queue';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';

export interface ScheduleNotifier {
  notify(endpointIds: string[], reason: string): Promise<void>;
  close(): Promise<void>;
}

export function createScheduleNotifier(
  connection: Redis,
  prefix: string,
  onError: (error: Error) => void,
): ScheduleNotifier {
  const queue = new Queue<ScheduleChangePayload>(QUEUES.scheduleChanges, {
    connection,
    prefix,
    defaultJobOptions: { removeOnComplete: 1000, removeOnFail: 1000 },
  });
  return {
    async notify(endpointIds, reason) {
      if (endpointIds.length === 0) return;
      try {
        await queue.add('change', { endpointIds, reason });
      } catch (error) {
        onError(error as Error);
      }
    },
    close: () => queue.close(),
  };
}
