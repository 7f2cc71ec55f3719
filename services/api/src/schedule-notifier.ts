/**
 * The api's schedule-change notifier: the shared one (packages/queue) marking rows dirty through
 * db's markScheduleDirty. After ANY change to an endpoint's schedule inputs, call notify().
 */
import { type Database } from '@kairos/db';
import { markScheduleDirty } from '@kairos/db/system';
import { createScheduleChangeNotifier, type ScheduleNotifier } from '@kairos/queue';
import type { RedisConnection } from '@kairos/queue';

export type { ScheduleNotifier };

export function createScheduleNotifier(
  db: Database,
  connection: RedisConnection,
  prefix: string,
  onError: (error: Error) => void,
): ScheduleNotifier {
  return createScheduleChangeNotifier({
    connection,
    prefix,
    markDirty: (endpointIds, now) => markScheduleDirty(db, endpointIds, now),
    onError,
  });
}
