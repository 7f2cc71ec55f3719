/**
 * One database per test file, cloned from the migrated template built by global-setup
 * (graphile-worker's approach): files never see each other's rows and can run in parallel.
 */
import { randomBytes } from 'node:crypto';
import { createDatabase, type Database } from '@kairos/db';
import pg from 'pg';
import { ADMIN_DATABASE_URL, databaseUrl, templateDatabase } from './env.mjs';

export interface TestDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

async function withAdmin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: ADMIN_DATABASE_URL });
  await admin.connect();
  try {
    return await fn(admin);
  } finally {
    await admin.end();
  }
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `kairos_test_${randomBytes(6).toString('hex')}`;
  await withAdmin((admin) => admin.query(`CREATE DATABASE "${name}" TEMPLATE "${templateDatabase()}"`));
  return {
    name,
    url: databaseUrl(name),
    drop: () =>
      withAdmin((admin) => admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(() => undefined),
  };
}

/**
 * For the whole test file: a cloned database and a @kairos/db handle on it with `poolMax`
 * connections, handed to `opened` in beforeAll; closed and dropped in afterAll.
 */
export function useTestDatabase(poolMax: number, opened: (db: Database) => void): void {
  let database: TestDatabase;
  let db: Database;
  beforeAll(async () => {
    database = await createTestDatabase();
    db = createDatabase({ url: database.url, poolMax });
    opened(db);
  });
  afterAll(async () => {
    await db.close();
    await database.drop();
  });
}
