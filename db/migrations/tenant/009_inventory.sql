-- Inventory optimisation (spec §4.9, §4.11 io-overrides): the full set of route types, IO overrides, and the results
-- of the meio step per SKU-site and per group. Results are scoped like the forecasting results: by pipeline_id (the
-- scenario pipeline the step ran for, 0 for the tenant-wide default run) and the MEIO scenario (008), whose deletion
-- deletes its results and overrides.

-- A route without a type is a BUY route. REPLENISHMENT, BUY, BUILD and TRANSFER carry stock downstream and must form
-- an acyclic graph per item (checked by the API and the import); RETURN and REPAIR loops run against that flow and
-- BALANCING moves stock sideways between peers, so they are left out of the cycle check.
ALTER TABLE routes ALTER COLUMN route_type SET DEFAULT 'BUY';
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'routes_route_type_check' AND connamespace = current_schema()::regnamespace) THEN
    ALTER TABLE routes ADD CONSTRAINT routes_route_type_check
      CHECK (route_type IN ('REPLENISHMENT', 'RETURN', 'REPAIR', 'BUY', 'BUILD', 'TRANSFER', 'BALANCING')) NOT VALID;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'routes_distinct_sites_check' AND connamespace = current_schema()::regnamespace) THEN
    ALTER TABLE routes ADD CONSTRAINT routes_distinct_sites_check CHECK (from_site_id <> to_site_id) NOT VALID;
  END IF;
END $$;
CREATE INDEX IF NOT EXISTS routes_item_idx ON routes (item_id);

-- Planner overrides of the inventory targets of one SKU-site (spec §2.4 IO override). scenario_id NULL applies to
-- every MEIO scenario of the pipeline; a row for the scenario wins over it.
CREATE TABLE IF NOT EXISTS io_overrides (
  id           serial PRIMARY KEY,
  pipeline_id  integer NOT NULL DEFAULT 0,
  scenario_id  integer REFERENCES meio_scenarios(id) ON DELETE CASCADE,
  item_id      integer NOT NULL REFERENCES items(id) ON DELETE CASCADE,
  site_id      integer NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
  sl_override  numeric CHECK (sl_override > 0 AND sl_override < 1),
  eoq_override numeric CHECK (eoq_override > 0),
  fr_override  numeric CHECK (fr_override > 0 AND fr_override < 1),
  updated_by   text,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX IF NOT EXISTS io_overrides_key ON io_overrides (pipeline_id, COALESCE(scenario_id, 0), item_id, site_id);

-- One row per SKU-site a meio run planned. A site of an item's network without its own demand (a central warehouse)
-- has a row too, so item and site reference their masters rather than a series.
CREATE TABLE IF NOT EXISTS meio_results (
  pipeline_id         integer NOT NULL DEFAULT 0,
  scenario_id         integer NOT NULL REFERENCES meio_scenarios(id) ON DELETE CASCADE,
  item_id             integer NOT NULL REFERENCES items(id) ON DELETE CASCADE,
  site_id             integer NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
  policy              text NOT NULL,
  service_type        text NOT NULL,
  target_service      float8 NOT NULL,
  target_source       text NOT NULL,
  -- 'single' (no network), 'gsm' (safety stock placed by the guaranteed-service model), 'metric' (repairable)
  echelon_model       text NOT NULL,
  distribution_type   text,
  weekly_mean         float8,
  weekly_std          float8,
  lead_time_weeks     float8,
  -- the replenishment time the policy covers: the lead time, or the net lead time GSM chose
  net_lead_time_weeks float8,
  review_period_weeks float8,
  ltd_mean            float8,
  ltd_std             float8,
  order_qty           float8,
  reorder_point       float8,
  order_up_to         float8,
  safety_stock        float8,
  expected_fill_rate  float8,
  expected_csl        float8,
  expected_backorders float8,
  expected_on_hand    float8,
  unit_cost           float8,
  investment          float8,
  meets_target        boolean NOT NULL DEFAULT false,
  -- why a SKU-site misses its target or has no policy: [{code, detail}]
  diagnostics         jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(diagnostics) = 'array'),
  job_id              text,
  updated_at          timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (pipeline_id, scenario_id, item_id, site_id)
);
CREATE INDEX IF NOT EXISTS meio_results_site_idx ON meio_results (pipeline_id, scenario_id, site_id);

-- One row per item network: the service-vs-investment curve the greedy optimiser traced and the point it chose.
CREATE TABLE IF NOT EXISTS meio_group_results (
  pipeline_id        integer NOT NULL DEFAULT 0,
  scenario_id        integer NOT NULL REFERENCES meio_scenarios(id) ON DELETE CASCADE,
  item_id            integer NOT NULL REFERENCES items(id) ON DELETE CASCADE,
  n_skus             integer NOT NULL,
  target_service     float8,
  expected_fill_rate float8,
  investment         float8,
  meets_target       boolean NOT NULL DEFAULT false,
  -- [{investment, fill_rate}] sampled along the curve, cheapest first
  curve              jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(curve) = 'array'),
  -- the chosen point on the curve (the demand sites' stock) and the demand it serves: what a scenario budget is
  -- shared out by (domain/inventory/portfolioBudget.ts)
  curve_investment   float8,
  weekly_demand      float8 NOT NULL DEFAULT 0,
  -- the investment cap the scenario budget gave this item, when it binds
  budget_cap         float8,
  job_id             text,
  updated_at         timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (pipeline_id, scenario_id, item_id)
);
