/**
 * The hot queries on runs still use an index once runs is partitioned by month, and a lookup by id
 * touches one partition. 120,000 runs over four months of partitions (20 accounts, 100 endpoints),
 * analyzed; each query is the SQL the code sends (Prisma's findMany/findFirst/count written out),
 * EXPLAINed with real parameters. A Seq Scan is allowed only on a partition of under 1,000 rows
 * (empty months ahead, the DEFAULT partition), where PostgreSQL rightly prefers it.
 * Plans summarized in docs/operations/scaling.md ("Runs partitions").
 */
import { createDatabase, type Database } from '@kairos/db';
import { ensureRunPartitions } from '@kairos/db/system';
import { createTestDatabase, type TestDatabase } from './db.js';
import { seedEndpoint } from './runs-fixtures.js';

const RUNS = 120_000;
const DAYS = 100;
const SMALL_PARTITION_ROWS = 1000;
const DAY_MS = 86_400_000;

let database: TestDatabase;
let db: Database;
const endpoints: { accountId: string; endpointId: string }[] = [];
const now = new Date();
let sampleRunId: string;

beforeAll(async () => {
  database = await createTestDatabase();
  db = createDatabase({ url: database.url, poolMax: 2 });
  await ensureRunPartitions(db, new Date(now.getTime() - DAYS * DAY_MS), 4);
  const query = (sql: string, values?: unknown[]) => db.pool.query(sql, values);
  for (let account = 0; account < 20; account += 1) {
    const first = await seedEndpoint(query, 'enterprise');
    endpoints.push(first);
    for (let more = 1; more < 5; more += 1) {
      const jobId = (await query(`SELECT id FROM jobs WHERE "accountId" = $1`, [first.accountId])).rows[0].id;
      const endpointId = (
        await query(
          `INSERT INTO endpoints (id, "accountId", "jobId", name, url, method, "updatedAt")
           VALUES (gen_random_uuid(), $1, $2, 'e', 'http://127.0.0.1:9/', 'GET', now()) RETURNING id`,
          [first.accountId, jobId],
        )
      ).rows[0].id as string;
      endpoints.push({ accountId: first.accountId, endpointId });
    }
  }
  // Run i of endpoint i % 100, evenly over the last DAYS days; its UUIDv7 id made 30 s before it started.
  await query(
    `INSERT INTO runs (id, "accountId", "endpointId", source, status, "scheduledAt", "startedAt", "completedAt",
                       "durationMs", "statusCode")
     SELECT (lpad(to_hex((extract(epoch FROM at - interval '30 seconds') * 1000)::bigint), 12, '0')
             || '7' || substr(md5(i::text), 1, 3) || '8' || substr(md5(i::text), 4, 15))::uuid,
            ($4::uuid[])[1 + i % 100], ($5::uuid[])[1 + i % 100],
            CASE WHEN i % 50 = 0 THEN 'test' ELSE 'baseline-interval' END,
            (CASE WHEN i % 7 = 0 THEN 'failed' ELSE 'success' END)::"RunStatus",
            at - interval '20 ms', at, at + interval '80 ms', 80, 200
       FROM generate_series(1, $1::int) AS i,
            LATERAL (SELECT $2::timestamptz - (i * ($3::float8 / $1::int)) * interval '1 ms' AS at) AS t`,
    [RUNS, now, DAYS * DAY_MS, endpoints.map((x) => x.accountId), endpoints.map((x) => x.endpointId)],
  );
  await query(`ANALYZE runs`);
  sampleRunId = (await query(`SELECT id FROM runs ORDER BY id LIMIT 1 OFFSET $1`, [RUNS / 2])).rows[0].id;
}, 240_000);

afterAll(async () => {
  await db.close();
  await database.drop();
});

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Subplans Removed'?: number;
  Plans?: PlanNode[];
}

function nodesOf(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodesOf)];
}

async function explain(sql: string, values: unknown[]) {
  const { rows } = await db.pool.query(`EXPLAIN (FORMAT JSON) ${sql}`, values);
  const nodes = nodesOf((rows[0]['QUERY PLAN'] as [{ Plan: PlanNode }])[0].Plan);
  const sizes = await db.pool.query<{ name: string; rows: number }>(
    `SELECT relname AS name, reltuples::float8 AS rows FROM pg_class WHERE relname LIKE 'runs_%' AND relkind = 'r'`,
  );
  const rowsOf = new Map(sizes.rows.map(({ name, rows }) => [name, rows]));
  const scanned = nodes.filter((node) => node['Relation Name']?.startsWith('runs'));
  return {
    seqScansOnLarge: scanned
      .filter(
        (node) => node['Node Type'] === 'Seq Scan' && (rowsOf.get(node['Relation Name']!) ?? 0) >= SMALL_PARTITION_ROWS,
      )
      .map((node) => node['Relation Name']),
    partitions: new Set(scanned.map((node) => node['Relation Name'])),
    indexes: new Set(nodes.map((node) => node['Index Name']).filter((name) => name?.startsWith('runs'))),
  };
}

const since = (days: number) => new Date(now.getTime() - days * DAY_MS);
const one = () => endpoints[7]!;

const HOT_QUERIES: { name: string; sql: string; values: () => unknown[]; onePartition?: boolean }[] = [
  {
    name: 'API list runs of an endpoint (runs.ts listRuns, page)',
    sql: `SELECT * FROM runs WHERE "accountId" = $1 AND "endpointId" = $2 ORDER BY "startedAt" DESC, id DESC LIMIT 100 OFFSET 0`,
    values: () => [one().accountId, one().endpointId],
  },
  {
    name: 'API list runs of an endpoint, status filter (runs.ts listRuns)',
    sql: `SELECT * FROM runs WHERE "accountId" = $1 AND "endpointId" = $2 AND status = 'failed'
          ORDER BY "startedAt" DESC, id DESC LIMIT 100 OFFSET 0`,
    values: () => [one().accountId, one().endpointId],
  },
  {
    name: 'API list runs total (runs.ts listRuns, X-Total-Count)',
    sql: `SELECT count(*) FROM runs WHERE "accountId" = $1 AND "endpointId" = $2`,
    values: () => [one().accountId, one().endpointId],
  },
  {
    name: 'API run by id (runs.ts getRun)',
    sql: `SELECT * FROM runs WHERE id = $1 AND "accountId" = $2 LIMIT 1`,
    values: () => [sampleRunId, one().accountId],
    onePartition: true,
  },
  {
    name: 'API endpoint health, 24 h (runs.ts)',
    sql: `SELECT count(*), avg("durationMs") FROM runs WHERE "endpointId" = $1 AND "accountId" = $2 AND "startedAt" > $3`,
    values: () => [one().endpointId, one().accountId, since(1)],
  },
  {
    name: 'Dashboard runs per day and source, 7 days (dashboard.ts)',
    sql: `SELECT ("startedAt" AT TIME ZONE 'UTC')::date, source, count(*) FROM runs
          WHERE "accountId" = $1 AND "startedAt" >= $2 AND "startedAt" < $3
          GROUP BY ("startedAt" AT TIME ZONE 'UTC')::date, source`,
    values: () => [one().accountId, since(7), now],
  },
  {
    name: 'Dashboard lateness histogram, 7 days (dashboard.ts)',
    sql: `SELECT "startedAt" - "scheduledAt", count(*) FROM runs
          WHERE "accountId" = $1 AND "startedAt" >= $2 AND "startedAt" < $3 AND source <> 'test' GROUP BY 1`,
    values: () => [one().accountId, since(7), now],
  },
  {
    name: 'Operator usage: runs this month (account-admin.ts countRunsSince)',
    sql: `SELECT count(*) FROM runs WHERE "accountId" = $1 AND "startedAt" >= $2`,
    values: () => [one().accountId, since(30)],
  },
  {
    name: 'Planner latest run (planner.ts latestRun)',
    sql: `SELECT * FROM runs WHERE "accountId" = $1 AND "endpointId" = $2 ORDER BY "startedAt" DESC, id DESC LIMIT 1`,
    values: () => [one().accountId, one().endpointId],
  },
  {
    name: 'Planner recent runs (analysis.ts listRecentRuns)',
    sql: `SELECT * FROM runs WHERE "accountId" = $1 AND "endpointId" = $2 ORDER BY "startedAt" DESC, id DESC LIMIT 20`,
    values: () => [one().accountId, one().endpointId],
  },
  {
    name: 'Planner response history, 24 h (analysis.ts listResponseHistory)',
    sql: `SELECT * FROM runs WHERE "accountId" = $1 AND "endpointId" = $2 AND source <> 'test' AND "startedAt" > $3
          ORDER BY "startedAt" DESC, id DESC LIMIT 50`,
    values: () => [one().accountId, one().endpointId, since(1)],
  },
  {
    name: 'Planner gate: the run and the one before it (analysis.ts loadAnalysisGate)',
    sql: `SELECT r.status, (SELECT p.status FROM runs p WHERE p."endpointId" = $1 AND p.source <> 'test'
                              AND p."startedAt" < r."startedAt" ORDER BY p."startedAt" DESC LIMIT 1)
            FROM runs r WHERE r.id = $2::uuid AND r."endpointId" = $1`,
    values: () => [one().endpointId, sampleRunId],
  },
  {
    name: 'Planner run summary, 24 h (analysis.ts)',
    sql: `SELECT count(*), max("durationMs") FROM runs WHERE "endpointId" = $1::uuid AND "startedAt" > $2 AND "startedAt" <= $3`,
    values: () => [one().endpointId, since(1), now],
  },
  {
    name: 'Scheduler: run recorded at lastRunAt (schedule-state.ts)',
    sql: `SELECT r.id FROM runs r WHERE r."endpointId" = $1 AND r."startedAt" = $2 AND r.source <> 'test' LIMIT 1`,
    values: () => [one().endpointId, since(1)],
  },
  {
    name: 'Reconcile: which planned runs were recorded (schedule-state.ts)',
    sql: `SELECT id FROM runs WHERE id = ANY($1::uuid[])`,
    values: () => [[sampleRunId]],
    onePartition: true,
  },
  {
    name: 'Retention batch of a shorter-retention account (retention.ts)',
    sql: `SELECT id FROM runs WHERE "accountId" = $1 AND "startedAt" < $2 LIMIT 5000`,
    values: () => [one().accountId, since(7)],
  },
];

describe('hot queries on partitioned runs', () => {
  it.each(HOT_QUERIES)('$name: index scans only on large partitions', async ({ sql, values, onePartition }) => {
    const plan = await explain(sql, values());
    expect(plan.seqScansOnLarge).toEqual([]);
    expect(plan.indexes.size).toBeGreaterThan(0);
    if (onePartition) expect(plan.partitions.size).toBe(1);
  });
});
