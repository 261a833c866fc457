-- Segments (rule-based series sets with materialised membership), ABC classification and NPI flags
-- (spec §2.4, §4.4, §5.12). See docs/SEGMENTS_ABC.md.

-- A segment: AND-combined rules {field, operator, value}. Other areas link to it by id
-- (pipeline_segments, process_workflows.segment_ids, parameter_set_segments, users.allowed_segments[_edit]).
CREATE TABLE IF NOT EXISTS segments (
  id          serial PRIMARY KEY,
  name        text NOT NULL UNIQUE CHECK (length(name) BETWEEN 1 AND 200),
  description text,
  rules       jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(rules) = 'array'),
  created_by  text,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now(),
  assigned_at timestamptz
);
CREATE UNIQUE INDEX IF NOT EXISTS segments_lower_name_key ON segments (lower(name));

-- Membership as written by POST /api/segments/{id}/assign: the series that matched the rules at that moment.
CREATE TABLE IF NOT EXISTS segment_members (
  segment_id integer NOT NULL REFERENCES segments(id) ON DELETE CASCADE,
  item_id    integer NOT NULL,
  site_id    integer NOT NULL,
  PRIMARY KEY (segment_id, item_id, site_id)
);
CREATE INDEX IF NOT EXISTS segment_members_series_idx ON segment_members (item_id, site_id);

-- ABC configurations: thresholds[k] is the cumulative share (0..1] of the metric that closes class class_labels[k].
CREATE TABLE IF NOT EXISTS abc_configurations (
  id           serial PRIMARY KEY,
  name         text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  description  text,
  metric       text NOT NULL DEFAULT 'annual_value' CHECK (metric IN ('annual_value', 'volume', 'frequency', 'margin')),
  class_labels text[] NOT NULL DEFAULT '{A,B,C}',
  thresholds   float8[] NOT NULL DEFAULT '{0.8,0.95,1}',
  is_active    boolean NOT NULL DEFAULT true,
  created_by   text,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now(),
  last_run_at  timestamptz,
  last_job_id  text,
  CHECK (cardinality(class_labels) BETWEEN 1 AND 26 AND cardinality(thresholds) = cardinality(class_labels))
);
CREATE UNIQUE INDEX IF NOT EXISTS abc_configurations_name_key ON abc_configurations (lower(name));

-- One row per configuration and series, replaced as a whole by each run of the configuration.
CREATE TABLE IF NOT EXISTS abc_results (
  config_id        integer NOT NULL REFERENCES abc_configurations(id) ON DELETE CASCADE,
  item_id          integer NOT NULL,
  site_id          integer NOT NULL,
  class_label      text NOT NULL,
  rank             integer NOT NULL,
  metric_value     float8 NOT NULL,
  share            float8 NOT NULL,
  cumulative_share float8 NOT NULL,
  annual_volume    float8 NOT NULL,
  annual_value     float8 NOT NULL,
  job_id           text,
  computed_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (config_id, item_id, site_id)
);
CREATE INDEX IF NOT EXISTS abc_results_series_idx ON abc_results (item_id, site_id);
CREATE INDEX IF NOT EXISTS abc_results_rank_idx ON abc_results (config_id, rank);

-- NPI flags and overrides per series. is_npi true: treated as a new part whatever its history (set by an import or a
-- later NPI editor); false: dismissed by DELETE /api/npi/{unique_id}, no longer listed even with a short history.
-- launch_date, the reference (analog) series and notes are the series' NPI data; a dismissal clears them.
CREATE TABLE IF NOT EXISTS npi_series (
  item_id           integer NOT NULL REFERENCES items(id) ON DELETE CASCADE,
  site_id           integer NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
  is_npi            boolean NOT NULL,
  launch_date       date,
  reference_item_id integer,
  reference_site_id integer,
  notes             text,
  updated_by        text,
  created_at        timestamptz NOT NULL DEFAULT now(),
  updated_at        timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (item_id, site_id)
);
