-- Weekly plan versions (document 2 §2.5, §4.5; docs/HISTORY.md). A freeze copies the live rows of a pipeline's output
-- tables into history tables: history_<table> has the live table's columns plus snapshot_id and archive_date, and is
-- partitioned by snapshot_id, one partition per version, so replacing, deleting or retiring a version drops its
-- partitions instead of deleting rows one by one. Ordinary runs write the live tables only, so frozen versions are
-- never touched by them (freeze rule 5).

-- Stored planning dates (freeze rule 2): a pipeline's own row, and the tenant-wide one under pipeline id -1.
CREATE TABLE IF NOT EXISTS pipeline_planning_dates (
  pipeline_id   integer PRIMARY KEY CHECK (pipeline_id = -1 OR pipeline_id > 0),
  planning_date date NOT NULL,
  updated_by    text,
  updated_at    timestamptz NOT NULL DEFAULT now()
);

-- The registry (§2.5): one row per version; id is the snapshot id of its partitions.
CREATE TABLE IF NOT EXISTS history_versions (
  id                    serial PRIMARY KEY,
  pipeline_id           integer NOT NULL,
  scenario_id           integer,
  archive_date          date NOT NULL CHECK (extract(isodow FROM archive_date) = 1),
  snapshot_ts           timestamptz NOT NULL DEFAULT now(),
  created_by            text,
  comment               text,
  frozen                boolean NOT NULL DEFAULT false,
  pinned                boolean NOT NULL DEFAULT false,
  parent_archive_date   date,
  replaced_archive_date date,
  row_count_total       bigint NOT NULL DEFAULT 0,
  table_counts          jsonb NOT NULL DEFAULT '{}',
  kpi_fill_rate         float8,
  kpi_inventory_value   float8,
  kpi_shortage_qty      float8,
  kpi_forecast_mase     float8,
  kpi_series            integer,
  job_id                text,
  source                text NOT NULL DEFAULT 'api' CHECK (source IN ('api', 'schedule'))
);
-- freeze rule 3 and §8: one un-pinned version per pipeline and week; pinned ones coexist with it
CREATE UNIQUE INDEX IF NOT EXISTS history_versions_unpinned_key ON history_versions (pipeline_id, archive_date) WHERE NOT pinned;
CREATE INDEX IF NOT EXISTS history_versions_pipeline_idx ON history_versions (pipeline_id, archive_date DESC);

-- Retention and the weekly schedule, per pipeline (§8: retention_versions 52, retention_min_age_days 0).
CREATE TABLE IF NOT EXISTS history_settings (
  pipeline_id            integer PRIMARY KEY REFERENCES scenario_pipelines(id) ON DELETE CASCADE,
  retention_versions     integer NOT NULL DEFAULT 52 CHECK (retention_versions BETWEEN 1 AND 10000),
  retention_min_age_days integer NOT NULL DEFAULT 0 CHECK (retention_min_age_days BETWEEN 0 AND 36500),
  schedule_timezone      text NOT NULL DEFAULT 'UTC',
  schedule_hour          integer NOT NULL DEFAULT 6 CHECK (schedule_hour BETWEEN 0 AND 23),
  updated_by             text,
  updated_at             timestamptz NOT NULL DEFAULT now()
);

-- On-hand stock per archive date alone (§2.5): the stock a version planned from.
CREATE TABLE IF NOT EXISTS history_on_hand (
  archive_date date NOT NULL,
  item_id      integer NOT NULL,
  site_id      integer NOT NULL,
  on_hand      numeric NOT NULL,
  PRIMARY KEY (archive_date, item_id, site_id)
);

-- history_<table> for every output table a version holds, created from the live table's current columns.
DO $$
DECLARE t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['series_outliers', 'series_characteristics', 'forecast_results', 'backtest_metrics', 'backtest_forecasts',
    'series_best_method', 'series_distributions', 'meio_results', 'meio_group_results', 'eoq_results',
    'supply_runs', 'supply_orders', 'supply_pegging', 'supply_plans', 'supply_indirect', 'supply_exceptions', 'supply_capacity_used',
    'allocation_runs', 'allocation_results', 'exception_log']
  LOOP
    EXECUTE format('CREATE TABLE IF NOT EXISTS %I (snapshot_id integer NOT NULL, archive_date date NOT NULL, LIKE %I INCLUDING DEFAULTS) PARTITION BY LIST (snapshot_id)',
      'history_' || t, t);
  END LOOP;
  -- what a replay or a comparison looks up by series or order within one version
  FOREACH t IN ARRAY ARRAY['forecast_results', 'series_best_method', 'meio_results', 'supply_orders', 'supply_plans', 'backtest_metrics']
  LOOP
    EXECUTE format('CREATE INDEX IF NOT EXISTS %I ON %I (item_id, site_id)', 'history_' || t || '_series_idx', 'history_' || t);
  END LOOP;
END $$;

-- A later migration that adds a column to a live table adds it to its history table too: this function does that for
-- every history table, so the copy below (which names the columns both have) never loses one.
CREATE OR REPLACE FUNCTION history_sync_columns() RETURNS void LANGUAGE plpgsql AS $$
DECLARE r record;
BEGIN
  FOR r IN
    SELECT c.table_name AS live, a.attname AS col, format_type(a.atttypid, a.atttypmod) AS typ
    FROM information_schema.tables c
    JOIN pg_attribute a ON a.attrelid = format('%I.%I', current_schema(), c.table_name)::regclass AND a.attnum > 0 AND NOT a.attisdropped
    WHERE c.table_schema = current_schema() AND to_regclass(format('%I.%I', current_schema(), 'history_' || c.table_name)) IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM pg_attribute h WHERE h.attrelid = format('%I.%I', current_schema(), 'history_' || c.table_name)::regclass AND h.attname = a.attname AND NOT h.attisdropped)
  LOOP
    EXECUTE format('ALTER TABLE %I ADD COLUMN %I %s', 'history_' || r.live, r.col, r.typ);
  END LOOP;
END $$;

-- Copies the live rows of one table into the version's partition (created here). `scope` says which rows: 'pipeline'
-- (pipeline_id = the pipeline), 'run' (run_id in the version's supply runs), 'supply_run' (supply_run_id in them). The columns are those both tables have, by name, so the copy
-- is right whatever order later migrations added them in. Returns the rows copied.
CREATE OR REPLACE FUNCTION history_copy(live text, snapshot integer, archive date, scope text, pipeline integer, runs text[]) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
  cols text;
  cond text;
  n bigint;
BEGIN
  SELECT string_agg(quote_ident(a.attname), ', ' ORDER BY a.attnum) INTO cols
  FROM pg_attribute a
  WHERE a.attrelid = format('%I.%I', current_schema(), live)::regclass AND a.attnum > 0 AND NOT a.attisdropped
    AND EXISTS (SELECT 1 FROM pg_attribute h WHERE h.attrelid = format('%I.%I', current_schema(), 'history_' || live)::regclass AND h.attname = a.attname AND NOT h.attisdropped);
  cond := CASE scope
    WHEN 'pipeline' THEN 'pipeline_id = $3'
    WHEN 'run' THEN 'run_id = ANY($4)'
    WHEN 'supply_run' THEN 'supply_run_id = ANY($4)'
    ELSE NULL END;
  IF cond IS NULL THEN RAISE EXCEPTION 'history_copy: unknown scope %', scope; END IF;
  EXECUTE format('CREATE TABLE IF NOT EXISTS %I PARTITION OF %I FOR VALUES IN (%s)', 'history_' || live || '_' || snapshot, 'history_' || live, snapshot);
  EXECUTE format('INSERT INTO %I (snapshot_id, archive_date, %s) SELECT $1, $2, %s FROM %I WHERE %s', 'history_' || live, cols, cols, live, cond)
    USING snapshot, archive, pipeline, runs;
  GET DIAGNOSTICS n = ROW_COUNT;
  RETURN n;
END $$;

-- Drops every partition of a version (delete, replace, retention).
CREATE OR REPLACE FUNCTION history_drop(snapshot integer) RETURNS void LANGUAGE plpgsql AS $$
DECLARE r record;
BEGIN
  FOR r IN
    SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
    JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = current_schema() AND p.relname LIKE 'history\_%' AND c.relname = p.relname || '_' || snapshot
  LOOP
    EXECUTE format('DROP TABLE %I', r.relname);
  END LOOP;
END $$;
