/**
 * Runs once per jest invocation: checks that PostgreSQL and Redis are reachable (tests must fail,
 * never skip, when they are not) and builds the migrated template database that every test file
 * clones (see test/db.ts). The `kairos` database is never touched.
 */
import { execFileSync } from 'node:child_process';
import { Redis } from 'ioredis';
import pg from 'pg';
import { ADMIN_DATABASE_URL, REDIS_URL, TEMPLATE_DATABASE, databaseUrl } from './env.mjs';

export default async function globalSetup() {
  const admin = new pg.Client({ connectionString: ADMIN_DATABASE_URL, connectionTimeoutMillis: 5000 });
  try {
    await admin.connect();
  } catch (error) {
    throw new Error(`PostgreSQL is unreachable at ${ADMIN_DATABASE_URL}: ${error.message}`);
  }
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => null });
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    await admin.end();
    throw new Error(`Redis is unreachable at ${REDIS_URL}: ${error.message}`);
  } finally {
    redis.disconnect();
  }

  await admin.query(`DROP DATABASE IF EXISTS "${TEMPLATE_DATABASE}" WITH (FORCE)`);
  await admin.query(`CREATE DATABASE "${TEMPLATE_DATABASE}"`);
  await admin.end();
  execFileSync('node', ['scripts/prisma.mjs', 'deploy'], {
    env: { ...process.env, DATABASE_URL: databaseUrl(TEMPLATE_DATABASE) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}
