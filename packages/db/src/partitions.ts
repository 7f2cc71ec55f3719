/**
 * Month partitions of the runs table (RANGE on the UUIDv7 id; the conversion is
 * prisma/migrations/20261123211540_runs_partitioned). A UUIDv7 starts with the millisecond it was
 * made, so the smallest UUID of a month's first millisecond bounds that month. The scheduler's
 * retention sweep (services/scheduler/src/retention.ts) creates partitions ahead and drops whole
 * partitions past the longest retention; docs/operations/scaling.md ("Runs partitions") for operators.
 *
 * Partition DDL takes an ACCESS EXCLUSIVE lock on runs for a moment: every statement here runs
 * with a 5 s lock_timeout, so a busy table makes the sweep give up (and retry next sweep) rather
 * than queue the executors' inserts behind it.
 */
import type { Database } from './client.js';

const LOCK_TIMEOUT = '5s';
const DEFAULT_PARTITION = 'runs_default';

/** The smallest UUIDv7 made at `at` (48-bit millisecond, then zeros): a partition bound. */
export function uuidv7Floor(at: Date): string {
  const hex = at.getTime().toString(16).padStart(12, '0') + '0'.repeat(20);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The millisecond a UUIDv7 was made (its first 48 bits). */
export function uuidv7Time(id: string): Date {
  return new Date(Number.parseInt(id.replaceAll('-', '').slice(0, 12), 16));
}

/** First instant (UTC) of the month `offset` months after the one containing `at`. */
function monthStartUtc(at: Date, offset = 0): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + offset, 1));
}

/** runs_YYYY_MM, the name the migration gives a month's partition. */
export function runPartitionName(monthStart: Date): string {
  return `runs_${monthStart.getUTCFullYear()}_${String(monthStart.getUTCMonth() + 1).padStart(2, '0')}`;
}

export interface RunPartition {
  name: string;
  /** Month bounds [from, to) as instants; null for the DEFAULT partition. */
  from: Date | null;
  to: Date | null;
}

/** The partitions of runs, oldest first, the DEFAULT partition last. */
export async function listRunPartitions(db: Database): Promise<RunPartition[]> {
  const { rows } = await db.pool.query<{ name: string; bound: string }>(
    `SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound
       FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = 'runs'::regclass`,
  );
  const partitions = rows.map(({ name, bound }): RunPartition => {
    const range = /FROM \('([0-9a-f-]{36})'\) TO \('([0-9a-f-]{36})'\)/.exec(bound);
    return range ? { name, from: uuidv7Time(range[1]!), to: uuidv7Time(range[2]!) } : { name, from: null, to: null };
  });
  return partitions.sort((a, b) => (a.from?.getTime() ?? Infinity) - (b.from?.getTime() ?? Infinity));
}

/**
 * Makes sure the month containing `now` and the `monthsAhead` next ones have a partition; returns
 * the names created. Runs that had landed in the DEFAULT partition inside a new month's range (an id
 * made by a clock far ahead) move into it in the same transaction: PostgreSQL refuses to create a
 * partition whose range the DEFAULT partition holds rows of, and nothing may be lost.
 */
export async function ensureRunPartitions(db: Database, now: Date, monthsAhead = 2): Promise<string[]> {
  const partitions = await listRunPartitions(db);
  const existing = new Set(partitions.map((partition) => partition.from?.getTime()));
  // Storage parameters (autovacuum tuning, docs/operations/scaling.md) live on partitions, not on runs:
  // a new partition takes those of the newest month partition.
  const newest = partitions.filter((partition) => partition.from !== null).at(-1);
  const options = newest
    ? (
        await db.pool.query<{ options: string[] | null }>(
          `SELECT reloptions AS options FROM pg_class WHERE oid = format('%I', $1::text)::regclass`,
          [newest.name],
        )
      ).rows[0]?.options
    : null;
  const withOptions = options?.length ? ` WITH (${options.join(', ')})` : '';
  const created: string[] = [];
  for (let offset = 0; offset <= monthsAhead; offset += 1) {
    const from = monthStartUtc(now, offset);
    if (existing.has(from.getTime())) continue;
    const name = runPartitionName(from);
    const [lo, hi] = [uuidv7Floor(from), uuidv7Floor(monthStartUtc(now, offset + 1))];
    await inTransaction(db, async (query) => {
      await query(`CREATE TEMP TABLE kairos_moving_runs (LIKE runs) ON COMMIT DROP`);
      await query(
        `WITH moved AS (DELETE FROM ${DEFAULT_PARTITION} WHERE id >= $1::uuid AND id < $2::uuid RETURNING *)
         INSERT INTO kairos_moving_runs SELECT * FROM moved`,
        [lo, hi],
      );
      await query(`CREATE TABLE "${name}" PARTITION OF runs FOR VALUES FROM ('${lo}') TO ('${hi}')${withOptions}`);
      await query(`INSERT INTO runs SELECT * FROM kairos_moving_runs`);
    });
    created.push(name);
  }
  return created;
}

/**
 * Drops every month partition whose whole range is before `cutoff` and none of whose runs started
 * at or after it (a run's id is made when it is planned, up to one interval before it starts, so a
 * yearly cron's run can sit in a partition a year older than its start). The check reads the
 * partition's BRIN index on startedAt (a few pages) under the lock the DROP takes anyway, so no run
 * can slip in between. Returns the partitions dropped.
 */
export async function dropRunPartitionsBefore(db: Database, cutoff: Date): Promise<RunPartition[]> {
  const dropped: RunPartition[] = [];
  for (const partition of await listRunPartitions(db)) {
    if (partition.to === null || partition.to > cutoff) continue;
    const done = await inTransaction(db, async (query) => {
      await query(`LOCK TABLE runs, "${partition.name}" IN ACCESS EXCLUSIVE MODE`);
      const late = await query(`SELECT EXISTS (SELECT 1 FROM "${partition.name}" WHERE "startedAt" >= $1) AS late`, [
        cutoff,
      ]);
      if ((late.rows[0] as { late: boolean }).late) return false;
      await query(`DROP TABLE "${partition.name}"`);
      return true;
    });
    if (done) dropped.push(partition);
  }
  return dropped;
}

/**
 * Deletes up to `batchSize` runs of one account in the DEFAULT partition started before `before`
 * (runs whose id no month partition covers: ids of another UUID version, or of a month with no
 * partition). Per account, so a run something else still references fails only its own account's
 * sweep (sweep-chunk.ts), as the other retention deletes do.
 */
export async function deleteDefaultPartitionRunsBefore(
  db: Database,
  accountId: string,
  before: Date,
  batchSize: number,
): Promise<number> {
  const result = await db.pool.query(
    `DELETE FROM ${DEFAULT_PARTITION} WHERE id = ANY(ARRAY(
       SELECT id FROM ${DEFAULT_PARTITION} WHERE "accountId" = $1 AND "startedAt" < $2 LIMIT $3))`,
    [accountId, before, batchSize],
  );
  return result.rowCount ?? 0;
}

type Query = (sql: string, values?: unknown[]) => Promise<{ rows: unknown[] }>;

/** One transaction whose statements wait at most LOCK_TIMEOUT for a lock. */
function inTransaction<T>(db: Database, fn: (query: Query) => Promise<T>): Promise<T> {
  return db.prisma.$transaction(
    async (tx) => {
      await tx.$executeRawUnsafe(`SET LOCAL lock_timeout = '${LOCK_TIMEOUT}'`);
      return fn(async (sql, values = []) => ({ rows: await tx.$queryRawUnsafe<unknown[]>(sql, ...values) }));
    },
    // Moving rows out of the DEFAULT partition may take longer than Prisma's 5 s default.
    { timeout: 120_000, maxWait: 10_000 },
  );
}
