-- Forecast netting (spec §4.5 `/api/forecast/netting/*`, §2.4 netting summary; docs/NETTING.md): how much of a
-- pipeline's forecast in the current period is already consumed by actual orders and firm demand. A refresh (job
-- kind 'netting') replaces the pipeline's rows in one transaction, so a read sees one refresh whole or the one before.
--
-- Quantities are numeric with at most three decimals: the engine works in integer thousandths, so per week
-- forecast = consumed + netted holds exactly and so do sums of any set of rows.

-- One row per pipeline: the settings and period of its latest refresh. An omitted setting in the next refresh takes
-- the value stored here, so a planner sets the window once.
CREATE TABLE IF NOT EXISTS netting_runs (
  pipeline_id        integer PRIMARY KEY,
  job_id             text NOT NULL,
  -- Monday of the period's first week: the pipeline's forecast start; null when the pipeline had no forecast
  period_start       date CHECK (extract(isodow FROM period_start) = 1),
  period_weeks       integer NOT NULL CHECK (period_weeks BETWEEN 1 AND 52),
  backward_weeks     integer NOT NULL CHECK (backward_weeks BETWEEN 0 AND 52),
  forward_weeks      integer NOT NULL CHECK (forward_weeks BETWEEN 0 AND 52),
  -- the supply run whose orders are the supply plan (newest completed run of the default supply scenario), or null
  supply_scenario_id integer,
  supply_run_id      text,
  series_count       integer NOT NULL DEFAULT 0,
  computed_at        timestamptz NOT NULL DEFAULT now()
);

-- One row per series of the pipeline with a best-method forecast. Arrays hold one value per period week (index 1 =
-- the period's first week).
CREATE TABLE IF NOT EXISTS netting_results (
  pipeline_id            integer NOT NULL,
  item_id                integer NOT NULL,
  site_id                integer NOT NULL,
  best_method            text NOT NULL,
  weeks                  integer NOT NULL CHECK (weeks >= 1),
  forecast               numeric[] NOT NULL,
  actual                 numeric[] NOT NULL,
  firm_demand            numeric[] NOT NULL,
  consumed               numeric[] NOT NULL,
  netted                 numeric[] NOT NULL,
  over_consumption       numeric[] NOT NULL,
  supply_plan            numeric[] NOT NULL,
  total_forecast         numeric NOT NULL,
  total_actual           numeric NOT NULL,
  total_firm_demand      numeric NOT NULL,
  total_consumed         numeric NOT NULL,
  total_netted           numeric NOT NULL,
  total_over_consumption numeric NOT NULL,
  total_supply_plan      numeric NOT NULL,
  -- consumed quantity by where the rule found it: the demand's own week, an earlier one, a later one
  consumed_same          numeric NOT NULL,
  consumed_backward      numeric NOT NULL,
  consumed_forward       numeric NOT NULL,
  direction              text NOT NULL CHECK (direction IN ('backward', 'forward', 'both', 'none')),
  -- every consumption step in the rule's order: [demand week, forecast week, qty] (weeks 0-based in the period)
  allocations            jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(allocations) = 'array'),
  computed_at            timestamptz NOT NULL DEFAULT now(),
  job_id                 text NOT NULL,
  PRIMARY KEY (pipeline_id, item_id, site_id),
  FOREIGN KEY (item_id, site_id) REFERENCES series(item_id, site_id) ON DELETE CASCADE,
  CHECK (cardinality(forecast) = weeks AND cardinality(actual) = weeks AND cardinality(firm_demand) = weeks AND cardinality(consumed) = weeks
    AND cardinality(netted) = weeks AND cardinality(over_consumption) = weeks AND cardinality(supply_plan) = weeks),
  CHECK (total_forecast - total_consumed = total_netted)
);
-- GET /api/forecast/netting/series?direction=…
CREATE INDEX IF NOT EXISTS netting_results_direction_idx ON netting_results (pipeline_id, direction);

-- The netting's reads of its inputs: firm transfers by the site they draw on (firm_orders is indexed by the
-- receiving site only).
CREATE INDEX IF NOT EXISTS firm_orders_source_idx ON firm_orders (item_id, source_site_id) WHERE order_type = 'TRANSFER';
