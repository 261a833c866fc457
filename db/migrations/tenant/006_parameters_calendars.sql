-- Parameter sets (spec §4.5), per-series overrides (§4.3 hyperparams), the materialised per-series assignment, and
-- calendar support (§4.11): which calendar a site follows and how the etl step stores closed weeks.
-- See docs/PARAMETERS.md. Global defaults are code (lib/parameterDefaults.ts), not rows.

-- A parameter set: a partial object of values for one parameter type, applied to the series of its segments (or to
-- every series when it has none), in priority order within its type (lower priority number = tried first).
CREATE TABLE IF NOT EXISTS parameter_sets (
  id             serial PRIMARY KEY,
  parameter_type text NOT NULL CHECK (parameter_type ~ '^[a-z][a-z_]*$'),
  name           text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  description    text,
  priority       integer NOT NULL CHECK (priority >= 1),
  param_values   jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(param_values) = 'object'),
  is_active      boolean NOT NULL DEFAULT true,
  created_by     text,
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX IF NOT EXISTS parameter_sets_name_key ON parameter_sets (parameter_type, lower(name));
CREATE INDEX IF NOT EXISTS parameter_sets_order_idx ON parameter_sets (parameter_type, priority, id);

-- Segments a set applies to. The segments table belongs to migration 005 and may be recreated by its own area, so
-- segment_id carries no foreign key (as pipeline_segments); a link to a segment that no longer exists matches nothing.
CREATE TABLE IF NOT EXISTS parameter_set_segments (
  parameter_set_id integer NOT NULL REFERENCES parameter_sets(id) ON DELETE CASCADE,
  segment_id       integer NOT NULL CHECK (segment_id > 0),
  created_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (parameter_set_id, segment_id)
);
CREATE INDEX IF NOT EXISTS parameter_set_segments_segment_idx ON parameter_set_segments (segment_id);

-- Per-series overrides (PUT /api/hyperparams/{unique_id} {method, overrides}). `method` is the target: a forecasting
-- method (its hyperparameters, forecast keys `<method>.<key>`) or a parameter type (that type's keys);
-- parameter_type is derived from it when the row is written. Overrides win over every set and default.
CREATE TABLE IF NOT EXISTS series_hyperparams (
  item_id        integer NOT NULL,
  site_id        integer NOT NULL,
  method         text NOT NULL,
  parameter_type text NOT NULL,
  overrides      jsonb NOT NULL CHECK (jsonb_typeof(overrides) = 'object'),
  updated_by     text,
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (item_id, site_id, method),
  FOREIGN KEY (item_id, site_id) REFERENCES series(item_id, site_id) ON DELETE CASCADE
);

-- The assignment POST /api/parameters/resolve materialises: per series and parameter type, the active sets that
-- apply, in priority order (the first one that sets a key supplies it), and whether per-series overrides exist.
CREATE TABLE IF NOT EXISTS series_parameter_assignment (
  item_id        integer NOT NULL,
  site_id        integer NOT NULL,
  parameter_type text NOT NULL,
  set_ids        integer[] NOT NULL DEFAULT '{}',
  has_override   boolean NOT NULL DEFAULT false,
  job_id         text,
  resolved_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (item_id, site_id, parameter_type),
  FOREIGN KEY (item_id, site_id) REFERENCES series(item_id, site_id) ON DELETE CASCADE
);
CREATE INDEX IF NOT EXISTS series_parameter_assignment_sets_idx ON series_parameter_assignment USING gin (set_ids);

-- Calendars: a site follows its own calendar (sites.calendar_id), else the tenant's default calendar (at most one),
-- else none. Deleting a calendar detaches its sites.
ALTER TABLE calendars ADD COLUMN IF NOT EXISTS is_default boolean NOT NULL DEFAULT false;
ALTER TABLE calendars ADD COLUMN IF NOT EXISTS updated_at timestamptz NOT NULL DEFAULT now();
CREATE UNIQUE INDEX IF NOT EXISTS calendars_one_default ON calendars (is_default) WHERE is_default;
ALTER TABLE sites ADD COLUMN IF NOT EXISTS calendar_id integer REFERENCES calendars(id) ON DELETE SET NULL;
CREATE INDEX IF NOT EXISTS sites_calendar_idx ON sites (calendar_id);

-- Weekly series and calendars: a closed week (factor 0) is missing, not a zero-demand week: y is NULL and closed is
-- true. Other weeks keep the observed y and the week's capacity factor (1 when the calendar says nothing).
ALTER TABLE series_weekly ALTER COLUMN y DROP NOT NULL;
ALTER TABLE series_weekly ADD COLUMN IF NOT EXISTS closed boolean NOT NULL DEFAULT false;
ALTER TABLE series_weekly ADD COLUMN IF NOT EXISTS factor numeric NOT NULL DEFAULT 1;
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conrelid = 'series_weekly'::regclass AND conname = 'series_weekly_closed_check') THEN
    ALTER TABLE series_weekly ADD CONSTRAINT series_weekly_closed_check
      CHECK ((closed AND y IS NULL AND factor = 0) OR (NOT closed AND y IS NOT NULL AND factor > 0));
  END IF;
END $$;

-- Closed weeks of the series (not counted in n_observations, mean or zero_ratio).
ALTER TABLE series ADD COLUMN IF NOT EXISTS closed_weeks integer;
