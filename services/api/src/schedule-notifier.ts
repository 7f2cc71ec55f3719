/**
 * Tells the scheduler that endpoints' schedules changed (api → schedule-changes queue). The rows
 * are first marked dirty in PostgreSQL, then the change is published; the scheduler recomputes and
 * replaces the pending execution at once. If the publish is lost (Redis down), the reconcile sweep
 * finds the dirty rows and recomputes them, so no change is lost.
 */
import { markScheduleDirty, type Database } from '@kairos/db';
import { QUEUES, type ScheduleChangePayload } from '@kairos/queue';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';

export interface ScheduleNotifier {
  notify(endpointIds: string[], reason: string): Promise<void>;
  close(): Promise<void>;
}

export function createScheduleNotifier(
  db: Database,
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
      await markScheduleDirty(db, endpointIds, new Date());
      try {
        await queue.add('change', { endpointIds, reason });
      } catch (error) {
        onError(error as Error);
      }
    },
    close: () => queue.close(),
  };
}
