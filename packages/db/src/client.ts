import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient } from './generated/prisma/client.js';

export interface Database {
  prisma: PrismaClient;
  /** The same pool Prisma uses, for the few hot-path statements written in SQL. */
  pool: pg.Pool;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  url: string;
  /** Connections per process (default 10). */
  poolMax?: number;
}

export function createDatabase({ url, poolMax = 10 }: DatabaseOptions): Database {
  const pool = new pg.Pool({
    connectionString: url,
    max: poolMax,
    connectionTimeoutMillis: 5000,
    // A connection once opened stays open (at most poolMax of them): pg's default closed one idle
    // for 10 s, and its pool lends the most recently used first, so the connections a burst opened
    // would sit idle, be closed and be opened again at the next burst, a new PostgreSQL backend each
    // time. On 2 cores those reconnects stall the executor's event loop 60–200 ms, and lateness p99
    // is lower without them (docs/decisions/0019-database-connections-stay-open.md).
    idleTimeoutMillis: 0,
    // Idle connections do not keep a process alive: a script that forgets close() still ends.
    allowExitOnIdle: true,
  });
  // A client losing its connection (PostgreSQL restarted, idle_session_timeout) must not crash the
  // process: idle, the pool reports it here and replaces it; checked out (a transaction, a sweep's
  // advisory lock), its holder's next query fails and the pool drops it on release. pg emits 'error'
  // on the client either way, and an 'error' event without a listener ends a Node.js process.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  return {
    prisma,
    pool,
    async close() {
      await prisma.$disconnect();
      await pool.end().catch(() => undefined);
    },
  };
}

export type { PrismaClient };
