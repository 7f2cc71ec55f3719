import pg from 'pg';
import { ADMIN_DATABASE_URL } from './env.mjs';

/** Drops this run's template database (test files drop their own clones). */
export default async function globalTeardown() {
  const template = process.env.KAIROS_TEST_TEMPLATE;
  if (!template) return;
  const admin = new pg.Client({ connectionString: ADMIN_DATABASE_URL });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${template}" WITH (FORCE)`);
  await admin.end();
}
