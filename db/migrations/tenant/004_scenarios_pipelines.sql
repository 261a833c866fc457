-- Forecast scenarios, scenario pipelines (with their segment links) and process workflows (spec §2.4, §4.5, §4.6).

-- A forecast scenario: which methods and horizon a forecast run uses. Names are unique per tenant, ignoring case;
-- at most one scenario is the tenant's baseline (the partial unique index is the safety net; the API clears the
-- previous baseline in the same transaction).
CREATE TABLE IF NOT EXISTS forecast_scenarios (
  id            serial PRIMARY KEY,
  name          text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  description   text,
  is_baseline   boolean NOT NULL DEFAULT false,
  horizon_weeks integer NOT NULL DEFAULT 52 CHECK (horizon_weeks BETWEEN 1 AND 260),
  methods       text[] NOT NULL DEFAULT '{}',
  settings      jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(settings) = 'object'),
  created_by    text,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX IF NOT EXISTS forecast_scenarios_name_key ON forecast_scenarios (lower(name));
CREATE UNIQUE INDEX IF NOT EXISTS forecast_scenarios_one_baseline ON forecast_scenarios (is_baseline) WHERE is_baseline;

-- A scenario pipeline: the unit results are stored under (pipeline_id). Deleting its scenario detaches it
-- (the API refuses that with 409 unless ?force=true).
CREATE TABLE IF NOT EXISTS scenario_pipelines (
  id                   serial PRIMARY KEY,
  name                 text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  description          text,
  forecast_scenario_id integer REFERENCES forecast_scenarios(id) ON DELETE SET NULL,
  is_active            boolean NOT NULL DEFAULT true,
  settings             jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(settings) = 'object'),
  created_by           text,
  created_at           timestamptz NOT NULL DEFAULT now(),
  updated_at           timestamptz NOT NULL DEFAULT now(),
  last_run_at          timestamptz
);
CREATE UNIQUE INDEX IF NOT EXISTS scenario_pipelines_name_key ON scenario_pipelines (lower(name));
CREATE INDEX IF NOT EXISTS scenario_pipelines_scenario_idx ON scenario_pipelines (forecast_scenario_id);

-- Segments a pipeline covers. The segments table is built by a later migration, so segment_id has no foreign key yet.
CREATE TABLE IF NOT EXISTS pipeline_segments (
  pipeline_id integer NOT NULL REFERENCES scenario_pipelines(id) ON DELETE CASCADE,
  segment_id  integer NOT NULL CHECK (segment_id > 0),
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (pipeline_id, segment_id)
);
CREATE INDEX IF NOT EXISTS pipeline_segments_segment_idx ON pipeline_segments (segment_id);

-- A saved sequence of pipeline steps, listed by sort_order. Deleting its pipeline detaches it
-- (the API refuses that with 409 unless ?force=true).
CREATE TABLE IF NOT EXISTS process_workflows (
  workflow_id          serial PRIMARY KEY,
  name                 text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  steps                text[] NOT NULL,
  segment_ids          integer[] NOT NULL DEFAULT '{}',
  scenario_pipeline_id integer REFERENCES scenario_pipelines(id) ON DELETE SET NULL,
  step_workers         jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(step_workers) = 'object'),
  sort_order           integer NOT NULL,
  last_run_at          timestamptz,
  created_by           text,
  created_at           timestamptz NOT NULL DEFAULT now(),
  updated_at           timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX IF NOT EXISTS process_workflows_name_key ON process_workflows (lower(name));
CREATE INDEX IF NOT EXISTS process_workflows_order_idx ON process_workflows (sort_order, workflow_id);
CREATE INDEX IF NOT EXISTS process_workflows_pipeline_idx ON process_workflows (scenario_pipeline_id);
