-- A run's account is its endpoint's, and deleting an account deletes its endpoints (endpoints_accountId_fkey,
-- ON DELETE CASCADE) and so their runs (runs_endpointId_fkey): this foreign key guarded nothing the other
-- one does not, and its check ran for every recorded run, a row lock on the account's row each time.
-- The executor's record statement (packages/db/src/executions.ts), 5,000 endpoints' runs in batches of 100
-- from two connections at once, six alternated rounds each: 96–104 µs of PostgreSQL CPU a run with it,
-- 85–91 without (bench/results.md, session 24).
ALTER TABLE "runs" DROP CONSTRAINT "runs_accountId_fkey";
