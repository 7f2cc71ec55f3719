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
  const pool = new pg.Pool({ connectionString: url, max: poolMax, connectionTimeoutMillis: 5000 });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
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
