-- The allocation step (spec §4.6, document 2 §2.3, §4.3; docs/SUPPLY.md "Allocation step"): what its reads filter on
-- and why a run failed. The tables themselves are in 012.

-- Why a run ended failed (conservation broken, solver error, killed), next to its status rather than inside summary.
ALTER TABLE allocation_runs ADD COLUMN IF NOT EXISTS error text;

-- GET /api/supply/allocations?supply_run_id=…
CREATE INDEX IF NOT EXISTS allocation_runs_supply_run_idx ON allocation_runs (supply_run_id);

-- GET /api/supply/allocations/{run_id}/results filters by item and site and pages in (item, site, due week) order;
-- the primary key already serves run_id alone and run_id + supply_id.
CREATE INDEX IF NOT EXISTS allocation_results_series_idx ON allocation_results (run_id, item_id, site_id, due_week);
