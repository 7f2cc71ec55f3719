-- No query reads endpoints by "nextRunAt" (the reconcile sweep pages by id). The scheduler rewrites
-- it after every run, and while it was indexed that UPDATE could never be a HOT update: each run
-- wrote a new entry into all five indexes of the table (bench/results.md, session 7).
DROP INDEX "endpoints_nextRunAt_idx";
