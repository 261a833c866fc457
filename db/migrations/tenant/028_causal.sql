-- Causal demand (core-service.md §4.10, supply-history-assistant.md §2.6 and §4.6; docs/CAUSAL.md): spare-part demand
-- caused by a fleet of assets. Master data (asset types, assets, deployments, coverage, bill of materials, fleet plan,
-- usage, failure rates), causal scenarios and their stored weekly results. Idempotent: every object IF NOT EXISTS.

CREATE TABLE IF NOT EXISTS causal_customers (
  id         serial PRIMARY KEY,
  code       text NOT NULL UNIQUE,
  name       text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS causal_usage_types (
  id   serial PRIMARY KEY,
  code text NOT NULL UNIQUE,
  name text NOT NULL,
  unit text NOT NULL
);
INSERT INTO causal_usage_types (code, name, unit) VALUES
  ('hours', 'Operating hours', 'h'), ('cycles', 'Cycles', 'cycles'), ('km', 'Distance', 'km')
ON CONFLICT (code) DO NOTHING;

CREATE TABLE IF NOT EXISTS causal_asset_types (
  id          serial PRIMARY KEY,
  code        text NOT NULL UNIQUE,
  name        text NOT NULL,
  description text,
  created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS causal_assets (
  id             serial PRIMARY KEY,
  asset_type_id  integer NOT NULL REFERENCES causal_asset_types(id) ON DELETE CASCADE,
  serial_number  text NOT NULL UNIQUE,
  name           text,
  status         text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'inactive', 'retired')),
  in_service_date date,
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now()
);

-- An asset at a customer's site over time (end_date null: still there).
CREATE TABLE IF NOT EXISTS causal_asset_deployments (
  id          serial PRIMARY KEY,
  asset_id    integer NOT NULL REFERENCES causal_assets(id) ON DELETE CASCADE,
  customer_id integer NOT NULL REFERENCES causal_customers(id) ON DELETE CASCADE,
  site_id     integer NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
  start_date  date NOT NULL,
  end_date    date,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now(),
  CHECK (end_date IS NULL OR end_date >= start_date)
);
CREATE INDEX IF NOT EXISTS causal_asset_deployments_asset_idx ON causal_asset_deployments (asset_id);

-- Which sites serve a customer's fleet of one asset type, and with what share; customer null: the global fallback.
CREATE TABLE IF NOT EXISTS causal_coverage (
  id            serial PRIMARY KEY,
  asset_type_id integer NOT NULL REFERENCES causal_asset_types(id) ON DELETE CASCADE,
  customer_id   integer REFERENCES causal_customers(id) ON DELETE CASCADE,
  site_id       integer NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
  coverage_pct  numeric NOT NULL CHECK (coverage_pct >= 0),
  created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX IF NOT EXISTS causal_coverage_key ON causal_coverage (asset_type_id, COALESCE(customer_id, 0), site_id);

-- Bill of materials: an asset type's parts (asset_type_id set) or a part's sub-parts (parent_item_id set).
CREATE TABLE IF NOT EXISTS causal_bom (
  id             serial PRIMARY KEY,
  asset_type_id  integer REFERENCES causal_asset_types(id) ON DELETE CASCADE,
  parent_item_id integer REFERENCES items(id) ON DELETE CASCADE,
  item_id        integer NOT NULL REFERENCES items(id) ON DELETE CASCADE,
  qty_per_asset  numeric NOT NULL CHECK (qty_per_asset > 0),
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now(),
  CHECK ((asset_type_id IS NULL) <> (parent_item_id IS NULL))
);
CREATE UNIQUE INDEX IF NOT EXISTS causal_bom_key ON causal_bom (COALESCE(asset_type_id, 0), COALESCE(parent_item_id, 0), item_id);

-- Planned fleet size of an asset type at a customer from start_date (to end_date, null: open).
CREATE TABLE IF NOT EXISTS causal_fleet_plan (
  id            serial PRIMARY KEY,
  asset_type_id integer NOT NULL REFERENCES causal_asset_types(id) ON DELETE CASCADE,
  customer_id   integer NOT NULL REFERENCES causal_customers(id) ON DELETE CASCADE,
  start_date    date NOT NULL,
  end_date      date,
  quantity      numeric NOT NULL CHECK (quantity >= 0),
  notes         text,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  CHECK (end_date IS NULL OR end_date >= start_date)
);

-- Usage of an asset type's fleet at a customer over a period (both ends inclusive).
CREATE TABLE IF NOT EXISTS causal_asset_usage (
  id            serial PRIMARY KEY,
  asset_type_id integer NOT NULL REFERENCES causal_asset_types(id) ON DELETE CASCADE,
  customer_id   integer NOT NULL REFERENCES causal_customers(id) ON DELETE CASCADE,
  usage_type_id integer NOT NULL REFERENCES causal_usage_types(id),
  period_start  date NOT NULL,
  period_end    date NOT NULL,
  total_usage   numeric NOT NULL CHECK (total_usage >= 0),
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  CHECK (period_end >= period_start)
);
CREATE INDEX IF NOT EXISTS causal_asset_usage_type_idx ON causal_asset_usage (asset_type_id, customer_id, usage_type_id, period_start);

-- Failures (part demand) per installed part per unit of usage.
CREATE TABLE IF NOT EXISTS causal_failure_rates (
  id            serial PRIMARY KEY,
  asset_type_id integer NOT NULL REFERENCES causal_asset_types(id) ON DELETE CASCADE,
  item_id       integer NOT NULL REFERENCES items(id) ON DELETE CASCADE,
  usage_type_id integer NOT NULL REFERENCES causal_usage_types(id),
  rate          numeric NOT NULL CHECK (rate >= 0),
  ci_lower      numeric,
  ci_upper      numeric,
  confidence    numeric,
  source        text NOT NULL DEFAULT 'manual' CHECK (source IN ('manual', 'fit')),
  n_events      numeric,
  exposure      numeric,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX IF NOT EXISTS causal_failure_rates_key ON causal_failure_rates (asset_type_id, item_id, usage_type_id);

CREATE TABLE IF NOT EXISTS causal_scenarios (
  id                      serial PRIMARY KEY,
  name                    text NOT NULL UNIQUE,
  description             text,
  usage_mode              text NOT NULL DEFAULT 'fleet_total' CHECK (usage_mode IN ('fleet_total', 'per_asset')),
  start_date              date,
  horizon_weeks           integer NOT NULL DEFAULT 52 CHECK (horizon_weeks BETWEEN 1 AND 520),
  usage_multiplier        numeric NOT NULL DEFAULT 1 CHECK (usage_multiplier >= 0),
  fleet_multiplier        numeric NOT NULL DEFAULT 1 CHECK (fleet_multiplier >= 0),
  failure_rate_multiplier numeric NOT NULL DEFAULT 1 CHECK (failure_rate_multiplier >= 0),
  last_run_at             timestamptz,
  created_at              timestamptz NOT NULL DEFAULT now(),
  updated_at              timestamptz NOT NULL DEFAULT now()
);

-- Weekly causal demand of a run: site rows (site_id > 0) and the item aggregate over every site (site_id 0).
-- pipeline_id 0: a run not tied to a pipeline.
CREATE TABLE IF NOT EXISTS causal_results (
  scenario_id integer NOT NULL REFERENCES causal_scenarios(id) ON DELETE CASCADE,
  pipeline_id integer NOT NULL DEFAULT 0,
  item_id     integer NOT NULL REFERENCES items(id) ON DELETE CASCADE,
  site_id     integer NOT NULL,
  week        date NOT NULL CHECK (extract(isodow FROM week) = 1),
  demand      float8 NOT NULL,
  lower       float8,
  upper       float8,
  job_id      text,
  computed_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (scenario_id, pipeline_id, item_id, site_id, week)
);
CREATE INDEX IF NOT EXISTS causal_results_item_idx ON causal_results (item_id, site_id, week);
