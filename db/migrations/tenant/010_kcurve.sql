-- EOQ and exchange curve ("K-curve", spec §4.9 /api/kcurve/*, the eoq step of §1). docs: api/routes/kcurve/schemas.ts.
-- The ranges below repeat the API's JSON Schemas: a second safety net, not the message.

-- A K-curve scenario: the portfolio-wide ordering cost A and holding rate r (k = sqrt(2A/r) unless solved otherwise),
-- the operating point k a solve chose, optional targets a solve turns into k in closed form, and the allowed order
-- frequencies. It belongs to one pipeline configuration (pipeline_id; 0 = the results outside any pipeline), so no
-- foreign key: pipeline 0 has no row, and pipeline ids are never reused, so a scenario of a deleted pipeline can
-- never attach to another. The pipeline's default scenario (the one the eoq step uses) is its oldest.
CREATE TABLE IF NOT EXISTS kcurve_scenarios (
  id                      serial PRIMARY KEY,
  name                    text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  description             text,
  pipeline_id             integer NOT NULL CHECK (pipeline_id >= 0),
  ordering_cost           numeric NOT NULL DEFAULT 50 CHECK (ordering_cost > 0 AND ordering_cost <= 1000000000),
  -- annual holding cost as a fraction of the unit cost
  holding_rate            numeric NOT NULL DEFAULT 0.25 CHECK (holding_rate > 0 AND holding_rate <= 10),
  -- NULL until a solve chooses one; reads and the eoq step then use sqrt(2 A / r)
  k                       float8 CHECK (k > 0),
  target_orders_per_year  numeric CHECK (target_orders_per_year > 0),
  target_inventory_value  numeric CHECK (target_inventory_value > 0),
  constrained             boolean NOT NULL DEFAULT false,
  -- NULL: the default set {1, 2, 4, 6, 12, 24, 52}; an item attribute allowed_orders_per_year wins over both
  allowed_orders_per_year integer[] CHECK (allowed_orders_per_year IS NULL OR (cardinality(allowed_orders_per_year) BETWEEN 1 AND 100
                            AND array_position(allowed_orders_per_year, NULL) IS NULL AND 0 < ALL (allowed_orders_per_year))),
  created_by              text,
  created_at              timestamptz NOT NULL DEFAULT now(),
  updated_at              timestamptz NOT NULL DEFAULT now(),
  -- two targets would each fix k: a solve could not honour both
  CHECK (target_orders_per_year IS NULL OR target_inventory_value IS NULL)
);
CREATE UNIQUE INDEX IF NOT EXISTS kcurve_scenarios_name_key ON kcurve_scenarios (lower(name));
CREATE INDEX IF NOT EXISTS kcurve_scenarios_pipeline_idx ON kcurve_scenarios (pipeline_id, id);

-- One row per SKU-site of a pipeline and K-curve scenario, written by the eoq step (every series in scope) and merged
-- by POST /api/kcurve/solve with persist. The item master is never written from here.
CREATE TABLE IF NOT EXISTS eoq_results (
  pipeline_id       integer NOT NULL,
  scenario_id       integer NOT NULL REFERENCES kcurve_scenarios(id) ON DELETE CASCADE,
  item_id           integer NOT NULL REFERENCES items(id) ON DELETE CASCADE,
  site_id           integer NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
  annual_demand     float8 NOT NULL,
  unit_cost         float8 NOT NULL,
  k                 float8 NOT NULL,
  -- the quantity in force: the IO override when there is one, else the (snapped) EOQ
  eoq               float8 NOT NULL,
  eoq_override      float8,
  orders_per_year   float8 NOT NULL,
  cycle_stock_value float8 NOT NULL,
  total_annual_cost float8 NOT NULL,
  freq_constrained  boolean NOT NULL DEFAULT false,
  freq_param_name   text,
  job_id            text,
  updated_at        timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (pipeline_id, scenario_id, item_id, site_id)
);
CREATE INDEX IF NOT EXISTS eoq_results_scenario_idx ON eoq_results (scenario_id);
