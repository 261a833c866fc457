-- The service backtest (docs/SERVICE_BACKTEST.md): per pipeline its settings, and per pipeline, MEIO scenario,
-- SKU-site, origin and variant (ours at the target, the normal and bootstrap peers, ours at each sweep level) the
-- policy that was sized as of the origin and what it achieved on the held-out weeks.
CREATE TABLE IF NOT EXISTS service_backtest_settings (
  pipeline_id    integer PRIMARY KEY,
  origin_weeks   integer[] NOT NULL DEFAULT '{26}' CHECK (cardinality(origin_weeks) BETWEEN 1 AND 8),
  shortage_mode  text NOT NULL DEFAULT 'backorder' CHECK (shortage_mode IN ('backorder', 'lost_sales')),
  tolerance      float8 NOT NULL DEFAULT 0.05 CHECK (tolerance >= 0 AND tolerance <= 1),
  warmup_weeks   integer NOT NULL DEFAULT 52 CHECK (warmup_weeks >= 0),
  peers          boolean NOT NULL DEFAULT true,
  sweep_targets  float8[] NOT NULL DEFAULT '{0.8,0.85,0.9,0.93,0.95,0.97,0.98,0.99,0.995}',
  updated_by     text,
  updated_at     timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS service_backtest_results (
  pipeline_id         integer NOT NULL,
  scenario_id         integer NOT NULL REFERENCES meio_scenarios(id) ON DELETE CASCADE,
  item_id             integer NOT NULL REFERENCES items(id) ON DELETE CASCADE,
  site_id             integer NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
  origin_weeks        integer NOT NULL,
  variant             text NOT NULL CHECK (variant IN ('target', 'normal', 'bootstrap', 'sweep')),
  target_service      float8 NOT NULL,
  service_type        text NOT NULL,
  policy              text NOT NULL,
  reorder_point       float8,
  order_qty           float8,
  order_up_to         float8,
  review_weeks        float8 NOT NULL,
  lead_time_weeks     float8 NOT NULL,
  unit_cost           float8 NOT NULL,
  demand_class        text,
  abc_class           text,
  segment_ids         integer[] NOT NULL DEFAULT '{}',
  expected_fill_rate  float8,
  expected_on_hand    float8,
  shortage_mode       text NOT NULL,
  weeks               integer NOT NULL,
  demand              float8 NOT NULL,
  served_from_stock   float8 NOT NULL,
  fill_rate           float8,
  cycle_service_level float8,
  cycles              integer NOT NULL,
  average_on_hand     float8 NOT NULL,
  stockout_weeks      integer NOT NULL,
  orders              integer NOT NULL,
  ordered_units       float8 NOT NULL,
  lost_units          float8 NOT NULL,
  end_backorders      float8 NOT NULL,
  job_id              text,
  updated_at          timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (pipeline_id, scenario_id, item_id, site_id, origin_weeks, variant, target_service)
);
CREATE INDEX IF NOT EXISTS service_backtest_results_variant_idx ON service_backtest_results (pipeline_id, scenario_id, variant);
