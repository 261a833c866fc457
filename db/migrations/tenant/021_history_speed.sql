-- Comparisons of two versions (GET /api/compare/versions) under 2 s at 10,000 series (issue 15; bench:history,
-- docs/BENCHMARKS.md).

-- forecast: each series' best-method forecast is looked up by (item, site, method). Indexed by (item, site) alone, the
-- lookup read every method's row of the series (8 at a real tournament's size) to keep one; with the method in the
-- key it reads that one. The (item, site) prefix still serves the lookups by series.
CREATE INDEX IF NOT EXISTS history_forecast_results_method_idx ON history_forecast_results (item_id, site_id, method);
DROP INDEX IF EXISTS history_forecast_results_series_idx;

-- inventory: per plan the mean projected stock (a backlog week counts as 0) and the positive gross demand. Computed
-- from two 52-week arrays on every comparison, they cost a second per version at 29,000 SKU-sites (both arrays read
-- from TOAST and unnested per row); a version never changes, so its copy computes them once, when it is frozen, with
-- the functions the live side of a comparison uses too, so that a version and the live rows it was frozen from compare
-- equal to the last bit. A migration that changes the type of supply_plans.projected or .gross must drop and re-add
-- these columns.
CREATE OR REPLACE FUNCTION history_mean_positive(a float8[]) RETURNS float8 LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT avg(greatest(0, v)) FROM unnest(a) v $$;
CREATE OR REPLACE FUNCTION history_sum_positive(a float8[]) RETURNS float8 LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT coalesce(sum(greatest(0, v)), 0) FROM unnest(a) v $$;

ALTER TABLE history_supply_plans
  ADD COLUMN IF NOT EXISTS avg_projected float8 GENERATED ALWAYS AS (history_mean_positive(projected)) STORED,
  ADD COLUMN IF NOT EXISTS demand_qty float8 GENERATED ALWAYS AS (history_sum_positive(gross)) STORED;
