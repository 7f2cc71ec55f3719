/**
 * A service's connections stay open once opened (packages/db/src/client.ts): pg's default closed a
 * connection idle for 10 s, so the connections a burst opened were closed and opened again at the
 * next burst, a new PostgreSQL backend each time, and the executor's event loop stalled with them
 * (lateness p99 at 1,000 due/s 152–534 ms against 40–328 ms without, alternated;
 * docs/decisions/0019-database-connections-stay-open.md).
 * The idle timer, if there were one, is a timer: faked here, a minute passes at once (ESM: the jest
 * object is import.meta's).
 */
import { type Database } from '@kairos/db';
import { useTestDatabase } from './db.js';

const { jest } = import.meta;
let db: Database;
useTestDatabase(3, (opened) => (db = opened));

/** Three statements at once, so the pool lends three connections: the backends that ran them. */
async function burst(): Promise<number[]> {
  const pids = await Promise.all(
    [1, 2, 3].map(async () => {
      const { rows } = await db.pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid, pg_sleep(0.05)');
      return rows[0]!.pid;
    }),
  );
  return pids.sort((a, b) => a - b);
}

afterEach(() => jest.useRealTimers());

test('connections a burst opened are still open, the same backends, a minute later', async () => {
  // Sockets and promises stay real; only the timers a pool would set on an idle connection are fake.
  jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
  const first = await burst();
  expect(new Set(first).size).toBe(3);
  expect(db.pool.idleCount).toBe(3);

  jest.advanceTimersByTime(60_000);
  expect(db.pool.totalCount).toBe(3);
  expect(await burst()).toEqual(first);
});
