-- MEIO configuration (spec §4.9): scenarios with their service and cost settings, per-segment overrides, and
-- parameter sets tried in priority order. See docs/INVENTORY_CONFIG.md for how a series' target is resolved.
-- The ranges below repeat the API's JSON Schemas (api/routes/meio/schemas.ts): a second safety net, not the message.

-- A MEIO scenario: the defaults every series of a meio run starts from. Names are unique per tenant ignoring case;
-- at most one scenario is the default (the API clears the previous one in the same transaction).
CREATE TABLE IF NOT EXISTS meio_scenarios (
  id                  serial PRIMARY KEY,
  name                text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  description         text,
  service_type        text NOT NULL DEFAULT 'fill_rate' CHECK (service_type IN ('fill_rate', 'cycle_service')),
  target_service      numeric NOT NULL DEFAULT 0.95 CHECK (target_service > 0 AND target_service < 1),
  policy              text NOT NULL DEFAULT 'rQ' CHECK (policy IN ('rQ', 'sS', 'base_stock')),
  review_period_weeks numeric NOT NULL DEFAULT 1 CHECK (review_period_weeks > 0 AND review_period_weeks <= 52),
  -- annual holding cost as a fraction of the unit cost
  holding_rate        numeric NOT NULL DEFAULT 0.25 CHECK (holding_rate > 0 AND holding_rate <= 5),
  ordering_cost       numeric NOT NULL DEFAULT 50 CHECK (ordering_cost >= 0 AND ordering_cost <= 1000000000),
  -- inventory investment cap of the optimiser; NULL: no cap
  budget              numeric CHECK (budget > 0 AND budget <= 1000000000000000),
  is_default          boolean NOT NULL DEFAULT false,
  created_by          text,
  created_at          timestamptz NOT NULL DEFAULT now(),
  updated_at          timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX IF NOT EXISTS meio_scenarios_name_key ON meio_scenarios (lower(name));
CREATE UNIQUE INDEX IF NOT EXISTS meio_scenarios_one_default ON meio_scenarios (is_default) WHERE is_default;

-- Per-segment overrides of a scenario. NULL service_type or holding_rate: the scenario's value applies.
-- Unlike parameter_set_segments, segment_id has a foreign key: deleting a segment drops its MEIO overrides.
CREATE TABLE IF NOT EXISTS meio_segment_params (
  scenario_id    integer NOT NULL REFERENCES meio_scenarios(id) ON DELETE CASCADE,
  segment_id     integer NOT NULL REFERENCES segments(id) ON DELETE CASCADE,
  target_service numeric NOT NULL CHECK (target_service > 0 AND target_service < 1),
  service_type   text CHECK (service_type IN ('fill_rate', 'cycle_service')),
  holding_rate   numeric CHECK (holding_rate > 0 AND holding_rate <= 5),
  updated_by     text,
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (scenario_id, segment_id)
);
CREATE INDEX IF NOT EXISTS meio_segment_params_segment_idx ON meio_segment_params (segment_id);

-- A MEIO parameter set: partial values for the series of its segments (every series when it has none), tried in
-- priority order within its scenario. Priorities stay 1..n (create, delete and reorder renumber); the deferred
-- unique constraint lets one statement renumber every set of a scenario.
CREATE TABLE IF NOT EXISTS meio_parameter_sets (
  id           serial PRIMARY KEY,
  scenario_id  integer NOT NULL REFERENCES meio_scenarios(id) ON DELETE CASCADE,
  name         text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  description  text,
  priority     integer NOT NULL CHECK (priority >= 1),
  is_active    boolean NOT NULL DEFAULT true,
  -- keys: target_service, service_type, holding_rate, ordering_cost, policy, review_period_weeks (named as in
  -- parameter_sets: VALUES is a reserved word)
  param_values jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(param_values) = 'object'),
  created_by   text,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT meio_parameter_sets_priority_key UNIQUE (scenario_id, priority) DEFERRABLE INITIALLY DEFERRED
);
CREATE UNIQUE INDEX IF NOT EXISTS meio_parameter_sets_name_key ON meio_parameter_sets (scenario_id, lower(name));

CREATE TABLE IF NOT EXISTS meio_parameter_set_segments (
  pset_id    integer NOT NULL REFERENCES meio_parameter_sets(id) ON DELETE CASCADE,
  segment_id integer NOT NULL REFERENCES segments(id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (pset_id, segment_id)
);
CREATE INDEX IF NOT EXISTS meio_parameter_set_segments_segment_idx ON meio_parameter_set_segments (segment_id);
