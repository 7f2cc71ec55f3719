/**
 * The migration that partitions runs (prisma/migrations/20261123211540_runs_partitioned) converts a
 * filled table without losing a row: a database migrated up to the migration before it gets runs
 * across six months (plus ids of another UUID version), a column and an index another migration
 * could have added, and a table whose foreign key points at runs; then the migration runs and every
 * row must come back identical, in its month's partition.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { newIdAt } from '@kairos/core';
import { runPartitionName, uuidv7Time } from '@kairos/db/system';
import pg from 'pg';
import { ADMIN_DATABASE_URL, databaseUrl } from './env.mjs';
import { seedEndpoint } from './runs-fixtures.js';

const MIGRATION = '20261123211540_runs_partitioned';
const migrationsDir = join(import.meta.dirname, '..', 'prisma', 'migrations');
const migrationSql = (name: string) => readFileSync(join(migrationsDir, name, 'migration.sql'), 'utf8');
const MONTHS = 6;
const RUNS_PER_MONTH = 40;

let database: string;
let client: pg.Client;

async function admin(sql: string): Promise<void> {
  const connection = new pg.Client({ connectionString: ADMIN_DATABASE_URL });
  await connection.connect();
  try {
    await connection.query(sql);
  } finally {
    await connection.end();
  }
}

beforeAll(async () => {
  database = `kairos_test_${randomBytes(6).toString('hex')}`;
  await admin(`CREATE DATABASE "${database}"`);
  client = new pg.Client({ connectionString: databaseUrl(database) });
  await client.connect();
  const before = readdirSync(migrationsDir)
    .filter((name) => /^\d{14}_/.test(name) && name < MIGRATION)
    .sort();
  for (const name of before) await client.query(migrationSql(name));
});

afterAll(async () => {
  await client.end();
  await admin(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
});

function monthsAgo(months: number, day: number): Date {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - months, day, 12, 30));
}

describe('runs partitioning migration', () => {
  it('moves every row into its month partition and keeps columns, indexes and foreign keys', async () => {
    const query = (sql: string, values?: unknown[]) => client.query(sql, values);
    const { accountId, endpointId } = await seedEndpoint(query);
    // What another helper's migration may have added before this one.
    await client.query(`ALTER TABLE runs ADD COLUMN "extraAttempts" integer NOT NULL DEFAULT 3`);
    await client.query(`CREATE INDEX "runs_extraAttempts_idx" ON runs ("extraAttempts")`);
    await client.query(
      `CREATE TABLE run_notes (id serial PRIMARY KEY, "runId" uuid NOT NULL REFERENCES runs(id) ON DELETE CASCADE)`,
    );

    const ids: string[] = [];
    for (let month = 0; month < MONTHS; month += 1) {
      for (let i = 0; i < RUNS_PER_MONTH; i += 1) ids.push(newIdAt(monthsAgo(month, 1 + (i % 28))));
    }
    const foreignIds = [randomUUID(), randomUUID(), randomUUID()]; // version 4: no time inside
    await client.query(
      `INSERT INTO runs (id, "accountId", "endpointId", source, status, "scheduledAt", "startedAt", "completedAt",
                         "durationMs", "statusCode", "responseBody", "extraAttempts")
       SELECT id, $2, $3, 'baseline-interval', 'success', now(), now() - (n || ' minutes')::interval, now(), n, 200,
              jsonb_build_object('n', n), n % 5
         FROM unnest($1::uuid[]) WITH ORDINALITY AS t(id, n)`,
      [[...ids, ...foreignIds], accountId, endpointId],
    );
    await client.query(`INSERT INTO run_notes ("runId") SELECT unnest($1::uuid[])`, [ids.slice(0, 5)]);
    const indexesBefore = await indexNames();
    const rowsBefore = (await client.query(`SELECT * FROM runs ORDER BY id`)).rows;
    expect(rowsBefore).toHaveLength(MONTHS * RUNS_PER_MONTH + foreignIds.length);

    await client.query(migrationSql(MIGRATION));

    const kind = await client.query(`SELECT relkind FROM pg_class WHERE oid = 'runs'::regclass`);
    expect(kind.rows[0].relkind).toBe('p');
    expect((await client.query(`SELECT * FROM runs ORDER BY id`)).rows).toEqual(rowsBefore);
    const placed = await client.query<{ id: string; partition: string }>(
      `SELECT id, tableoid::regclass::text AS partition FROM runs`,
    );
    for (const { id, partition } of placed.rows) {
      const expected = (foreignIds as string[]).includes(id)
        ? 'runs_default'
        : runPartitionName(monthStartOf(uuidv7Time(id)));
      expect({ id, partition }).toEqual({ id, partition: expected });
    }
    const partitions = (
      await client.query<{ name: string }>(
        `SELECT inhrelid::regclass::text AS name FROM pg_inherits WHERE inhparent = 'runs'::regclass`,
      )
    ).rows.map(({ name }) => name);
    const expectedMonths = [-2, -1, ...Array.from({ length: MONTHS }, (_, month) => month)].map((month) =>
      runPartitionName(monthsAgo(month, 1)),
    );
    expect(partitions.sort()).toEqual([...expectedMonths, 'runs_default'].sort());
    // The same indexes under the same names (Prisma's drift check reads them), plus the migration's own BRIN.
    expect(await indexNames()).toEqual(
      [...indexesBefore, 'runs_startedAt_idx: public.runs USING brin ("startedAt")'].sort(),
    );

    // Foreign keys both ways still hold.
    await expect(client.query(`INSERT INTO run_notes ("runId") VALUES ($1)`, [newIdAt(new Date())])).rejects.toThrow(
      /foreign key/,
    );
    await expect(
      client.query(
        `INSERT INTO runs (id, "accountId", "endpointId", source, status, "scheduledAt", "startedAt", "completedAt", "durationMs")
         VALUES ($1, $2, $2, 'test', 'success', now(), now(), now(), 1)`,
        [newIdAt(new Date()), randomUUID()],
      ),
    ).rejects.toThrow(/foreign key/);
    await client.query(`DELETE FROM runs WHERE id = $1`, [ids[0]]);
    expect((await client.query(`SELECT count(*)::int AS n FROM run_notes`)).rows[0].n).toBe(4);
    await client.query(`DELETE FROM endpoints WHERE id = $1`, [endpointId]);
    expect((await client.query(`SELECT count(*)::int AS n FROM runs`)).rows[0].n).toBe(0);
  });
});

function monthStartOf(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
}

/** Index names of runs itself, with their definitions (the partitions' own indexes excluded). */
async function indexNames(): Promise<string[]> {
  const { rows } = await client.query<{ def: string }>(
    `SELECT c.relname || ': ' || regexp_replace(pg_get_indexdef(c.oid), '^CREATE (UNIQUE )?INDEX \\S+ ON (ONLY )?', '') AS def
       FROM pg_index x JOIN pg_class c ON c.oid = x.indexrelid
      WHERE x.indrelid = 'runs'::regclass ORDER BY 1`,
  );
  return rows.map(({ def }) => def);
}
