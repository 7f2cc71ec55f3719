/**
 * The recorder's one hook into notifications and auto-pause: after a batch of runs is
 * recorded, the state changes they caused (failing, recovered, auto-paused) are applied in one
 * statement (db's applyEndpointTransitions) and raised as notifications, one per change and channel.
 *
 * It never fails a recording: an error is logged and dropped. Nothing is lost by that: the
 * transitions are read from the endpoint's state (failure count against the thresholds, the
 * failingSince and autoPausedAt marks), not from the run, so the next recorded run of the endpoint
 * applies what this batch missed; raised rows whose publish was lost are re-added by the worker's
 * sweep. Auto-paused endpoints are announced on schedule-changes so the scheduler replans them now.
 */
import type { Database } from '@kairos/db';
import { applyEndpointTransitions, raiseNotifications } from '@kairos/db/system';
import type { NotificationQueue } from '@kairos/queue';
import type { Logger } from '@kairos/runtime';

export interface NotificationEventsDeps {
  db: Database;
  queue: NotificationQueue;
  logger: Logger;
  /** Has the scheduler recompute these endpoints (schedule-changes). */
  replan: (endpointIds: string[]) => Promise<unknown>;
  now: () => Date;
}

export class NotificationEvents {
  constructor(private readonly deps: NotificationEventsDeps) {}

  /**
   * After recording: the endpoints of the batch's recorded runs that may change state (db's
   * recordScheduledRuns names them: failureCount above 0 or failingSince set). Never rejects.
   */
  async afterRecorded(endpointIds: string[]): Promise<void> {
    if (endpointIds.length === 0) return;
    const { db, queue, logger, replan, now } = this.deps;
    try {
      const events = await applyEndpointTransitions(db, endpointIds, now());
      if (events.length === 0) return;
      const paused = events.filter((event) => event.payload.type === 'endpoint.auto_paused');
      const ids = await raiseNotifications(db, events);
      await Promise.all([
        queue.enqueue(ids),
        paused.length > 0 ? replan(paused.map((event) => event.endpointId!)) : undefined,
      ]);
    } catch (error) {
      logger.warn('notification events not applied (the next run retries)', { error: (error as Error).message });
    }
  }
}
