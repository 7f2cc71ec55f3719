-- CreateIndex
CREATE INDEX "runs_startedAt_idx" ON "runs" USING BRIN ("startedAt");

-- Runs become a table partitioned by RANGE (id), one partition per calendar month (UTC) plus a DEFAULT
-- partition (docs/operations.md, "Runs partitions"). Run ids are UUIDv7: the first 48 bits are the
-- millisecond the id was made, so the smallest UUID of a month, `<12 hex digits of the month's first ms>`
-- followed by zeros, bounds that month. The primary key stays (id) (a partitioned table's unique keys must
-- contain the partition key; id is the key), so Prisma's model does not change.
--
-- The conversion copies whatever runs has when it runs (columns, defaults, checks, indexes, foreign keys
-- both ways), so a column or index another migration adds before or after this one carries over.
-- Prisma applies a migration file in one transaction: a failure anywhere leaves runs as it was.
DO $$
DECLARE
  index_defs text[];
  own_fks text[];
  referencing_fks text[];
  item text;
  -- UTC wall-clock months (timestamp without time zone): month arithmetic independent of the session's TimeZone.
  month_start timestamp;
  months timestamp[];
BEGIN
  -- Nothing to convert on a database where runs is already partitioned.
  IF (SELECT relkind FROM pg_class WHERE oid = 'runs'::regclass) = 'p' THEN
    RETURN;
  END IF;

  -- Blocks writers for the copy; on a large table run the migration in a quiet window.
  LOCK TABLE runs IN ACCESS EXCLUSIVE MODE;

  -- 1. Everything to recreate, read while the names still say "runs".
  SELECT array_agg(pg_get_indexdef(x.indexrelid) ORDER BY c.relname)
    INTO index_defs
    FROM pg_index x JOIN pg_class c ON c.oid = x.indexrelid
   WHERE x.indrelid = 'runs'::regclass
     AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = x.indexrelid AND k.conrelid = 'runs'::regclass);
  SELECT array_agg(format('ALTER TABLE runs ADD CONSTRAINT %I %s', conname, pg_get_constraintdef(oid)) ORDER BY contype DESC, conname)
    INTO own_fks
    FROM pg_constraint WHERE conrelid = 'runs'::regclass AND contype IN ('p', 'u', 'f');
  SELECT array_agg(format('ALTER TABLE %s ADD CONSTRAINT %I %s', conrelid::regclass, conname, pg_get_constraintdef(oid)))
    INTO referencing_fks
    FROM pg_constraint WHERE confrelid = 'runs'::regclass AND contype = 'f' AND conrelid <> 'runs'::regclass;

  -- 2. Out of the way: constraints that point at runs, then the old table's names.
  FOR item IN SELECT format('ALTER TABLE %s DROP CONSTRAINT %I', conrelid::regclass, conname)
                FROM pg_constraint WHERE confrelid = 'runs'::regclass AND contype = 'f' AND conrelid <> 'runs'::regclass
  LOOP
    EXECUTE item;
  END LOOP;
  ALTER TABLE runs RENAME TO runs_unpartitioned;
  FOR item IN SELECT format('ALTER INDEX %I RENAME TO %I', c.relname, 'runs_unpartitioned_' || c.oid)
                FROM pg_index x JOIN pg_class c ON c.oid = x.indexrelid WHERE x.indrelid = 'runs_unpartitioned'::regclass
  LOOP
    EXECUTE item;
  END LOOP;

  -- 3. The partitioned table, same columns in the same order, and its partitions: every month that holds a run
  -- (UUIDv7 ids only; an id of another version has no time in it and goes to the DEFAULT partition), the current
  -- month and the next two (the scheduler's sweep keeps that lead, packages/db/src/partitions.ts).
  CREATE TABLE runs (LIKE runs_unpartitioned INCLUDING ALL EXCLUDING INDEXES) PARTITION BY RANGE (id);
  SELECT array_agg(DISTINCT m) INTO months FROM (
    SELECT date_trunc('month', to_timestamp(('x' || substr(replace(id::text, '-', ''), 1, 12))::bit(48)::bigint / 1000.0) AT TIME ZONE 'UTC') AS m
      FROM runs_unpartitioned WHERE substr(id::text, 15, 1) = '7'
    UNION
    SELECT date_trunc('month', now() AT TIME ZONE 'UTC') + make_interval(months => k) FROM generate_series(0, 2) AS k
  ) AS all_months;
  FOREACH month_start IN ARRAY months LOOP
    EXECUTE format(
      'CREATE TABLE %I PARTITION OF runs FOR VALUES FROM (%L) TO (%L)',
      'runs_' || to_char(month_start, 'YYYY_MM'),
      lpad(to_hex((extract(epoch FROM month_start) * 1000)::bigint), 12, '0') || repeat('0', 20),
      lpad(to_hex((extract(epoch FROM month_start + interval '1 month') * 1000)::bigint), 12, '0') || repeat('0', 20)
    );
  END LOOP;
  CREATE TABLE runs_default PARTITION OF runs DEFAULT;

  -- 4. Rows first, indexes after (one sorted build per partition instead of per-row inserts into each index).
  INSERT INTO runs SELECT * FROM runs_unpartitioned;
  DROP TABLE runs_unpartitioned;
  FOREACH item IN ARRAY coalesce(index_defs, '{}') LOOP
    EXECUTE item;
  END LOOP;
  FOREACH item IN ARRAY coalesce(own_fks, '{}') LOOP
    EXECUTE item;
  END LOOP;
  FOREACH item IN ARRAY coalesce(referencing_fks, '{}') LOOP
    EXECUTE item;
  END LOOP;
END
$$;
