/**
 * Tells the scheduler that endpoints' schedules changed (→ schedule-changes queue). Used by every
 * writer of schedule inputs (the api, the planner). The rows are first marked dirty in PostgreSQL
 * (`markDirty`), then the change is published; the scheduler recomputes and replaces the pending
 * execution at once. If the publish is lost (Redis down), the reconcile sweep finds the dirty rows
 * and recomputes them, so no change is lost.
 */
import { Queue } from 'bullmq';
import type { RedisConnection } from './connection.js';
import { QUEUES } from './names.js';
import type { ScheduleChangePayload } from './payloads.js';
import { currentTraceparent, traceContextOf } from './trace-context.js';

export interface ScheduleNotifier {
  notify(endpointIds: string[], reason: string): Promise<void>;
  close(): Promise<void>;
}

export interface ScheduleChangeNotifierOptions {
  connection: RedisConnection;
  prefix: string;
  /** Marks the rows schedule-dirty in PostgreSQL (db's markScheduleDirty). */
  markDirty: (endpointIds: string[], now: Date) => Promise<void>;
  onError: (error: Error) => void;
}

export function createScheduleChangeNotifier(options: ScheduleChangeNotifierOptions): ScheduleNotifier {
  const queue = new Queue<ScheduleChangePayload>(QUEUES.scheduleChanges, {
    connection: options.connection,
    prefix: options.prefix,
    defaultJobOptions: { removeOnComplete: 1000, removeOnFail: 1000 },
  });
  return {
    async notify(endpointIds, reason) {
      if (endpointIds.length === 0) return;
      await options.markDirty(endpointIds, new Date());
      try {
        await queue.add('change', { endpointIds, reason, ...traceContextOf(currentTraceparent()) });
      } catch (error) {
        options.onError(error as Error);
      }
    },
    close: () => queue.close(),
  };
}
