/**
 * A connection PostgreSQL ends while a caller holds it (a restart, pg_terminate_backend) fails that
 * caller's work, and the process goes on: pg emits 'error' on a checked-out client, and without a
 * listener Node ends the process (the scheduler once exited this way during a PostgreSQL restart).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { type Database } from '@kairos/db';
import { withAdvisoryLock } from '@kairos/db/system';
import pg from 'pg';
import { useTestDatabase } from './db.js';

let db: Database;
useTestDatabase(2, (opened) => (db = opened));

async function terminateBackends(url: string): Promise<number> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    const { rowCount } = await admin.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid()`,
    );
    return rowCount ?? 0;
  } finally {
    await admin.end();
  }
}

describe('a connection lost while checked out', () => {
  it('fails the holder, not the process, and the pool serves the next caller', async () => {
    const uncaught: unknown[] = [];
    const onUncaught = (error: unknown) => uncaught.push(error);
    process.on('uncaughtException', onUncaught);
    try {
      const url = db.pool.options.connectionString!;
      const held = withAdvisoryLock(db, 4242, async () => {
        await sleep(500);
        return 'done';
      });
      // End every backend of this database but the admin's own, the lock's client among them.
      await sleep(100);
      expect(await terminateBackends(url)).toBeGreaterThan(0);
      // The holder learns it lost the lock: its unlock fails on the dead connection.
      expect(await held.catch(() => 'failed')).toBe('failed');
      await sleep(200);
      expect(uncaught).toEqual([]);
      const { rows } = await db.pool.query<{ one: number }>('SELECT 1 AS one');
      expect(rows[0]?.one).toBe(1);
    } finally {
      process.off('uncaughtException', onUncaught);
    }
  });
});
