-- The allocation step in chunks of items (issue 28; docs/SUPPLY.md "Allocation step"): each chunk activity writes its
-- result rows and, in the same transaction, what it solved (counts, quantities, both objectives, why no LP), so the
-- finalize adds the run's totals up from one small row per chunk instead of holding the whole run in memory, and a
-- retried chunk replaces its own row.
CREATE TABLE IF NOT EXISTS allocation_chunks (
  run_id        text NOT NULL REFERENCES allocation_runs(run_id) ON DELETE CASCADE,
  chunk         integer NOT NULL CHECK (chunk >= 0),
  -- the chunk's items: item_id > after_item (null: no lower bound) and <= through_item (null: no upper bound)
  after_item    integer,
  through_item  integer,
  stats         jsonb NOT NULL,
  PRIMARY KEY (run_id, chunk)
);
