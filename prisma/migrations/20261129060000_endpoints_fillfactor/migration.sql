-- Room on each page for the next version of an endpoint's row, so that its update after every run stays
-- HOT (docs/decisions/0029-one-endpoint-write-per-run.md). Applies to pages written from now on; an
-- existing table gets it with its next rewrite (VACUUM FULL or pg_repack), and works either way.
ALTER TABLE "endpoints" SET (fillfactor = 80);
