-- Supply planning (spec §4.8, document 2 §2–§4): supply scenarios with their flags and segment scopes, the master data
-- only supply reads (sales returns, site capacity), and the results of supply and allocation runs. A run is a job
-- (jobs.job_id = run_id); its rows go when the run is deleted. Reads without run_id use the newest completed run of
-- the (pipeline, scenario). See docs/SUPPLY.md.

-- A supply scenario: the parameter overrides a supply run applies (firm_orders_block_horizon, respect_lead_time and
-- engine options), and the segments it plans (none: every series). At most one is the default, which run-all uses.
CREATE TABLE IF NOT EXISTS supply_scenarios (
  id              serial PRIMARY KEY,
  name            text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  description     text,
  param_overrides jsonb NOT NULL DEFAULT '{}',
  is_default      boolean NOT NULL DEFAULT false,
  created_by      text,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX IF NOT EXISTS supply_scenarios_name_key ON supply_scenarios (lower(name));
CREATE UNIQUE INDEX IF NOT EXISTS supply_scenarios_one_default ON supply_scenarios (is_default) WHERE is_default;
INSERT INTO supply_scenarios (name, description, is_default)
  SELECT 'Base', 'Default supply scenario: both document 2 §4.2 flags off', true
  WHERE NOT EXISTS (SELECT 1 FROM supply_scenarios);

CREATE TABLE IF NOT EXISTS supply_scenario_segments (
  scenario_id integer NOT NULL REFERENCES supply_scenarios(id) ON DELETE CASCADE,
  segment_id  integer NOT NULL REFERENCES segments(id) ON DELETE CASCADE,
  PRIMARY KEY (scenario_id, segment_id)
);

-- Sales returns: units customers send back to a site, negative demand in the week they are expected.
CREATE TABLE IF NOT EXISTS sales_returns (
  id            serial PRIMARY KEY,
  item_id       integer NOT NULL REFERENCES items(id) ON DELETE CASCADE,
  site_id       integer NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
  qty           numeric NOT NULL CHECK (qty > 0),
  return_date   date NOT NULL,
  reason        text,
  external_id   text,
  created_by    text,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS sales_returns_series_idx ON sales_returns (item_id, site_id, return_date);

-- Capacity of a site in units per week (what it can ship or make). period_start NULL: every week without its own
-- row. A site without rows is unconstrained.
CREATE TABLE IF NOT EXISTS site_capacity (
  id           serial PRIMARY KEY,
  site_id      integer NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
  period_start date,
  qty          numeric NOT NULL CHECK (qty >= 0),
  updated_by   text,
  updated_at   timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX IF NOT EXISTS site_capacity_key ON site_capacity (site_id, COALESCE(period_start, '-infinity'::date));

-- One supply run. status follows its job; kpis, checks and counts are written when it completes.
CREATE TABLE IF NOT EXISTS supply_runs (
  run_id        text PRIMARY KEY,
  pipeline_id   integer NOT NULL DEFAULT 0,
  scenario_id   integer NOT NULL REFERENCES supply_scenarios(id) ON DELETE CASCADE,
  status        text NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'completed', 'failed')),
  planning_date date NOT NULL,
  horizon       integer NOT NULL DEFAULT 52,
  flags         jsonb NOT NULL DEFAULT '{}',
  kpis          jsonb,
  checks        jsonb,
  n_items       integer NOT NULL DEFAULT 0,
  n_sku_sites   integer NOT NULL DEFAULT 0,
  n_orders      integer NOT NULL DEFAULT 0,
  n_exceptions  integer NOT NULL DEFAULT 0,
  errors        jsonb NOT NULL DEFAULT '[]',
  diagnostics   jsonb NOT NULL DEFAULT '[]',
  created_by    text,
  started_at    timestamptz NOT NULL DEFAULT now(),
  finished_at   timestamptz
);
CREATE INDEX IF NOT EXISTS supply_runs_scope_idx ON supply_runs (pipeline_id, scenario_id, started_at DESC);

-- Engine-produced supply orders (document 2 §2.2). order_id is global (the API's {order_id}) and is what pegging,
-- indirect demand and exceptions refer to; engine_order_id is the id the engine gave it within its chunk. Statuses written by the engine: planned, constrained,
-- delayed, expedited; rows of an older system may carry firm, released or in_transit, which the one-time legacy
-- migration (document 2 §4.3 rule 4) lifts into firm_orders. Planner edits and approval keep the engine's values
-- beside them.
CREATE TABLE IF NOT EXISTS supply_orders (
  order_id          bigserial PRIMARY KEY,
  run_id            text NOT NULL REFERENCES supply_runs(run_id) ON DELETE CASCADE,
  pipeline_id       integer NOT NULL DEFAULT 0,
  scenario_id       integer NOT NULL,
  engine_order_id   integer NOT NULL,
  item_id           integer NOT NULL REFERENCES items(id) ON DELETE CASCADE,
  site_id           integer NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
  source_site_id    integer,
  route_id          integer,
  order_type        text NOT NULL,
  kind              text NOT NULL DEFAULT 'PLANNED',
  status            text NOT NULL,
  qty               float8 NOT NULL,
  requested_qty     float8 NOT NULL,
  release_week      integer NOT NULL,
  arrival_week      integer NOT NULL,
  need_week         integer NOT NULL,
  release_date      date NOT NULL,
  arrival_date      date NOT NULL,
  late              boolean NOT NULL DEFAULT false,
  unit_cost         float8 NOT NULL DEFAULT 0,
  -- the engine's quantity and dates before a planner's PUT (null: never edited)
  engine_qty        float8,
  engine_release_week integer,
  engine_arrival_week integer,
  edited_by         text,
  edited_at         timestamptz,
  approved_quantity float8,
  approved_availability_date date,
  approved_by       text,
  approved_at       timestamptz
);
CREATE INDEX IF NOT EXISTS supply_orders_run_idx ON supply_orders (run_id, item_id, site_id, arrival_week);

-- Pegging: the demand lines behind each order (domain/supply/types.ts PegLine), summing to its quantity.
CREATE TABLE IF NOT EXISTS supply_pegging (
  order_id    bigint NOT NULL REFERENCES supply_orders(order_id) ON DELETE CASCADE,
  run_id      text NOT NULL,
  demand_line text NOT NULL,
  kind        text NOT NULL,
  site_id     integer NOT NULL,
  week        integer NOT NULL,
  qty         float8 NOT NULL,
  ref_id      bigint
);
CREATE INDEX IF NOT EXISTS supply_pegging_order_idx ON supply_pegging (order_id);
CREATE INDEX IF NOT EXISTS supply_pegging_run_idx ON supply_pegging (run_id);

-- The projection per SKU-site: one row with a value per week in each array (index 0 = week 0), so a 10,000 SKU-site
-- run writes 10,000 rows rather than 520,000.
CREATE TABLE IF NOT EXISTS supply_plans (
  run_id           text NOT NULL REFERENCES supply_runs(run_id) ON DELETE CASCADE,
  item_id          integer NOT NULL,
  site_id          integer NOT NULL,
  series_id        text,
  opening          float8 NOT NULL,
  demand           float8[] NOT NULL,
  indirect         float8[] NOT NULL,
  returns          float8[] NOT NULL,
  gross            float8[] NOT NULL,
  receipts_firm    float8[] NOT NULL,
  receipts_planned float8[] NOT NULL,
  projected        float8[] NOT NULL,
  safety_stock     float8[] NOT NULL,
  shortage         float8[] NOT NULL,
  latest_firm_week integer[] NOT NULL,
  min_lead_time    float8[] NOT NULL,
  firm_beyond_horizon float8 NOT NULL DEFAULT 0,
  unit_cost        float8 NOT NULL DEFAULT 0,
  fill_rate        float8,
  shortage_qty     float8 NOT NULL DEFAULT 0,
  avg_inventory_value    float8 NOT NULL DEFAULT 0,
  ending_inventory_value float8 NOT NULL DEFAULT 0,
  PRIMARY KEY (run_id, item_id, site_id)
);

-- Indirect demand: which downstream order draws on which site in which week (GET /api/series/{unique_id}/indirect).
CREATE TABLE IF NOT EXISTS supply_indirect (
  run_id             text NOT NULL REFERENCES supply_runs(run_id) ON DELETE CASCADE,
  item_id            integer NOT NULL,
  site_id            integer NOT NULL,
  downstream_site_id integer NOT NULL,
  week               integer NOT NULL,
  qty                float8 NOT NULL,
  origin             text NOT NULL,
  -- supply_orders.order_id for planned and prepos, firm_orders.id for firm
  order_id           bigint NOT NULL
);
CREATE INDEX IF NOT EXISTS supply_indirect_series_idx ON supply_indirect (run_id, item_id, site_id);

CREATE TABLE IF NOT EXISTS supply_exceptions (
  id           bigserial PRIMARY KEY,
  run_id       text NOT NULL REFERENCES supply_runs(run_id) ON DELETE CASCADE,
  item_id      integer NOT NULL,
  site_id      integer NOT NULL,
  type         text NOT NULL,
  week         integer NOT NULL,
  end_week     integer NOT NULL,
  qty          float8 NOT NULL,
  severity     text NOT NULL,
  description  text NOT NULL,
  order_id     bigint
);
CREATE INDEX IF NOT EXISTS supply_exceptions_run_idx ON supply_exceptions (run_id, severity, type);

-- Capacity a run consumed per site and week, by the item that consumed it: items are planned in parallel chunks that
-- share a site's capacity, and a retried chunk must replace exactly its own use. GET /api/supply/capacity sums it
-- per site and week beside the capacity.
CREATE TABLE IF NOT EXISTS supply_capacity_used (
  run_id  text NOT NULL REFERENCES supply_runs(run_id) ON DELETE CASCADE,
  item_id integer NOT NULL,
  site_id integer NOT NULL,
  week    integer NOT NULL,
  qty     float8 NOT NULL,
  PRIMARY KEY (run_id, item_id, site_id, week)
);

-- What a chunk could not plan (errors: the item has no plan), data notes that did not stop planning (diagnostics) and
-- failed engine checks (violations), per item so a retried chunk replaces its own.
CREATE TABLE IF NOT EXISTS supply_item_notes (
  run_id  text NOT NULL REFERENCES supply_runs(run_id) ON DELETE CASCADE,
  item_id integer NOT NULL,
  kind    text NOT NULL CHECK (kind IN ('error', 'diagnostic', 'violation')),
  message text NOT NULL
);
CREATE INDEX IF NOT EXISTS supply_item_notes_run_idx ON supply_item_notes (run_id, kind);

-- The exception log (spec §2.4 exception-log item, §4.11): one row per (pipeline, SKU-site) with the open issues of
-- every kind (forecast, io, supply) and the planner's status. POST /api/supply/sync-alerts writes the supply issues;
-- the alert engine's issue brings the others.
CREATE TABLE IF NOT EXISTS exception_log (
  id              bigserial PRIMARY KEY,
  pipeline_id     integer NOT NULL,
  item_id         integer NOT NULL REFERENCES items(id) ON DELETE CASCADE,
  site_id         integer NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
  exception_types text[] NOT NULL DEFAULT '{}',
  issues          jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(issues) = 'array'),
  status          text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'resolved', 'snoozed')),
  snoozed_until   date,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now(),
  UNIQUE (pipeline_id, item_id, site_id)
);

-- One allocation run: a child of a supply run (parent_job_id) or standalone, over the pool of that supply run and the
-- firm orders. Both objectives are stored when both solvers ran.
CREATE TABLE IF NOT EXISTS allocation_runs (
  run_id           text PRIMARY KEY,
  supply_run_id    text REFERENCES supply_runs(run_id) ON DELETE CASCADE,
  pipeline_id      integer NOT NULL DEFAULT 0,
  scenario_id      integer NOT NULL,
  status           text NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'completed', 'failed')),
  method           text,
  n_supplies       integer NOT NULL DEFAULT 0,
  n_demands        integer NOT NULL DEFAULT 0,
  supply_qty       float8 NOT NULL DEFAULT 0,
  demand_qty       float8 NOT NULL DEFAULT 0,
  allocated_qty    float8 NOT NULL DEFAULT 0,
  greedy_objective float8,
  lp_objective     float8,
  summary          jsonb NOT NULL DEFAULT '{}',
  started_at       timestamptz NOT NULL DEFAULT now(),
  finished_at      timestamptz
);
CREATE INDEX IF NOT EXISTS allocation_runs_scope_idx ON allocation_runs (pipeline_id, scenario_id, started_at DESC);

CREATE TABLE IF NOT EXISTS allocation_results (
  run_id         text NOT NULL REFERENCES allocation_runs(run_id) ON DELETE CASCADE,
  supply_id      text NOT NULL,
  demand_id      text NOT NULL,
  item_id        integer NOT NULL,
  site_id        integer NOT NULL,
  qty            float8 NOT NULL,
  is_firm        smallint NOT NULL,
  arrival_week   integer NOT NULL,
  due_week       integer NOT NULL,
  priority_class text,
  PRIMARY KEY (run_id, supply_id, demand_id)
);
