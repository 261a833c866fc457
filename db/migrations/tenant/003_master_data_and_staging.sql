-- Master data written by import runs (item-site, routes, calendars, firm orders, supersession), the import staging
-- tables (raw text as loaded; codes, not ids) and the per-table results and rejected rows of import runs.
-- An import run is a job (jobs.kind = 'import', job_id = run id).

ALTER TABLE sites ADD COLUMN IF NOT EXISTS site_type text;
ALTER TABLE items ADD COLUMN IF NOT EXISTS updated_at timestamptz;
ALTER TABLE sites ADD COLUMN IF NOT EXISTS updated_at timestamptz;

CREATE TABLE IF NOT EXISTS item_site (
  item_id         integer NOT NULL REFERENCES items(id),
  site_id         integer NOT NULL REFERENCES sites(id),
  unit_cost       numeric,
  lead_time_weeks numeric,
  on_hand         numeric NOT NULL DEFAULT 0,
  safety_stock    numeric NOT NULL DEFAULT 0,
  moq             numeric NOT NULL DEFAULT 0,
  order_multiple  numeric NOT NULL DEFAULT 1,
  updated_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (item_id, site_id)
);

-- item_id NULL: the route serves every item. One route per (item or all, from, to, type).
CREATE TABLE IF NOT EXISTS routes (
  id           serial PRIMARY KEY,
  item_id      integer REFERENCES items(id),
  from_site_id integer NOT NULL REFERENCES sites(id),
  to_site_id   integer NOT NULL REFERENCES sites(id),
  route_type   text NOT NULL,
  lead_time    numeric NOT NULL DEFAULT 0 CHECK (lead_time >= 0),
  priority     integer NOT NULL DEFAULT 1,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX IF NOT EXISTS routes_natural_key ON routes (COALESCE(item_id, 0), from_site_id, to_site_id, route_type);

CREATE TABLE IF NOT EXISTS calendars (
  id          serial PRIMARY KEY,
  name        text NOT NULL UNIQUE,
  description text,
  created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS calendar_entries (
  calendar_id integer NOT NULL REFERENCES calendars(id) ON DELETE CASCADE,
  ds          date NOT NULL,
  factor      numeric NOT NULL DEFAULT 1 CHECK (factor >= 0),
  description text,
  PRIMARY KEY (calendar_id, ds)
);

-- Firm supply orders (document 2 §2.1): orders committed in an external system, kept apart from engine output.
CREATE TABLE IF NOT EXISTS firm_orders (
  id             serial PRIMARY KEY,
  external_id    text,
  item_id        integer NOT NULL REFERENCES items(id),
  site_id        integer NOT NULL REFERENCES sites(id),
  source_site_id integer REFERENCES sites(id),
  order_type     text NOT NULL CHECK (order_type IN ('BUY', 'BUILD', 'REPAIR', 'TRANSFER', 'BALANCING', 'REPLENISH', 'RETURN')),
  qty            numeric NOT NULL CHECK (qty > 0),
  release_dt     timestamptz NOT NULL,
  arrival_dt     timestamptz NOT NULL,
  route_id       integer,
  unit_cost      numeric,
  order_cost     numeric,
  total_cost     numeric,
  erp_status     text NOT NULL DEFAULT 'firm' CHECK (erp_status IN ('firm', 'released', 'in_transit', 'received')),
  received_qty   numeric NOT NULL DEFAULT 0,
  expiry_date    date,
  attributes     jsonb NOT NULL DEFAULT '{}',
  source_system  text NOT NULL DEFAULT 'manual_upload',
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX IF NOT EXISTS firm_orders_external_key ON firm_orders (external_id, source_system);
CREATE INDEX IF NOT EXISTS firm_orders_series_idx ON firm_orders (item_id, site_id);

-- Supersession edges (document 2 §2.4): one per (from, to, site or 0, effective date or the minimum date).
CREATE TABLE IF NOT EXISTS supersession (
  id             serial PRIMARY KEY,
  from_item_id   integer NOT NULL REFERENCES items(id),
  to_item_id     integer NOT NULL REFERENCES items(id),
  site_id        integer REFERENCES sites(id),
  effective_date date,
  demand_factor  numeric NOT NULL DEFAULT 1,
  stock_rollable boolean NOT NULL DEFAULT true,
  notes          text,
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now(),
  CHECK (from_item_id <> to_item_id)
);
CREATE UNIQUE INDEX IF NOT EXISTS supersession_natural_key
  ON supersession (from_item_id, to_item_id, COALESCE(site_id, 0), COALESCE(effective_date, '-infinity'::date));

-- Staging: every user column is text as loaded (validated by the run, not here); row_no orders the rows and names
-- them in rejection reasons; loaded_at feeds last_loaded. Truncating a staging table is always safe.
CREATE TABLE IF NOT EXISTS stg_items (
  row_no           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  loaded_at        timestamptz NOT NULL DEFAULT now(),
  xuid             text,
  name             text,
  avg_unit_cost    text,
  unit_price       text,
  image_url        text,
  attributes       text,
  extra_attributes text
);

CREATE TABLE IF NOT EXISTS stg_sites (
  row_no           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  loaded_at        timestamptz NOT NULL DEFAULT now(),
  xuid             text,
  name             text,
  site_type        text,
  attributes       text,
  extra_attributes text
);

CREATE TABLE IF NOT EXISTS stg_item_site (
  row_no          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  loaded_at       timestamptz NOT NULL DEFAULT now(),
  item_xuid       text,
  site_xuid       text,
  unit_cost       text,
  lead_time_weeks text,
  on_hand         text,
  safety_stock    text,
  moq             text,
  order_multiple  text
);

CREATE TABLE IF NOT EXISTS stg_routes (
  row_no         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  loaded_at      timestamptz NOT NULL DEFAULT now(),
  item_xuid      text,
  from_site_xuid text,
  to_site_xuid   text,
  route_type     text,
  lead_time      text,
  priority       text
);

CREATE TABLE IF NOT EXISTS stg_calendars (
  row_no      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  loaded_at   timestamptz NOT NULL DEFAULT now(),
  calendar    text,
  ds          text,
  factor      text,
  description text
);

CREATE TABLE IF NOT EXISTS stg_demand_history (
  row_no    bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  loaded_at timestamptz NOT NULL DEFAULT now(),
  item_xuid text,
  site_xuid text,
  ds        text,
  qty       text
);

CREATE TABLE IF NOT EXISTS stg_firm_orders (
  row_no           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  loaded_at        timestamptz NOT NULL DEFAULT now(),
  external_id      text,
  source_system    text,
  item_xuid        text,
  site_xuid        text,
  source_site_xuid text,
  order_type       text,
  qty              text,
  release_dt       text,
  arrival_dt       text,
  unit_cost        text,
  order_cost       text,
  total_cost       text,
  erp_status       text,
  received_qty     text,
  expiry_date      text,
  attributes       text
);

CREATE TABLE IF NOT EXISTS stg_supersession (
  row_no         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  loaded_at      timestamptz NOT NULL DEFAULT now(),
  from_item_xuid text,
  to_item_xuid   text,
  site_xuid      text,
  effective_date text,
  demand_factor  text,
  stock_rollable text,
  notes          text
);

-- Per-table results of an import run; written in the same transaction as the table's changes.
CREATE TABLE IF NOT EXISTS import_run_tables (
  run_id      text NOT NULL REFERENCES jobs(job_id) ON DELETE CASCADE,
  table_name  text NOT NULL,
  seq         integer NOT NULL,
  mode        text NOT NULL CHECK (mode IN ('upsert', 'replace')),
  status      text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'completed', 'failed', 'skipped')),
  rows_read   integer NOT NULL DEFAULT 0,
  inserted    integer NOT NULL DEFAULT 0,
  updated     integer NOT NULL DEFAULT 0,
  deleted     integer NOT NULL DEFAULT 0,
  rejected    integer NOT NULL DEFAULT 0,
  error       text,
  started_at  timestamptz,
  finished_at timestamptz,
  PRIMARY KEY (run_id, table_name)
);

-- Rejected rows of a run with their reason and the row as staged.
CREATE TABLE IF NOT EXISTS import_errors (
  id         bigserial PRIMARY KEY,
  run_id     text NOT NULL REFERENCES jobs(job_id) ON DELETE CASCADE,
  table_name text NOT NULL,
  row_no     bigint NOT NULL,
  reason     text NOT NULL,
  row_data   jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS import_errors_run_idx ON import_errors (run_id, table_name, row_no);
CREATE INDEX IF NOT EXISTS jobs_kind_created_idx ON jobs (kind, created_at DESC);
