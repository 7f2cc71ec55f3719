import type { Database } from './client.js';

/**
 * Runs `fn` while holding a session-level PostgreSQL advisory lock, or returns null at once when
 * another process holds it: elects one runner among several replicas for a periodic sweep.
 */
export async function withAdvisoryLock<T>(db: Database, key: number, fn: () => Promise<T>): Promise<T | null> {
  const client = await db.pool.connect();
  try {
    const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [key]);
    if (!rows[0]?.locked) return null;
    try {
      return await fn();
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [key]);
    }
  } finally {
    client.release();
  }
}
