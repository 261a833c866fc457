-- One schema per account; every statement here runs with search_path set to that schema.
CREATE TABLE IF NOT EXISTS users (
  id                    serial PRIMARY KEY,
  email                 text NOT NULL UNIQUE,
  name                  text NOT NULL,
  password_hash         text,
  role                  text NOT NULL DEFAULT 'user' CHECK (role IN ('admin', 'user')),
  auth_provider         text NOT NULL DEFAULT 'local' CHECK (auth_provider IN ('local', 'microsoft', 'google')),
  is_active             boolean NOT NULL DEFAULT true,
  can_run_process       boolean NOT NULL DEFAULT false,
  can_create_override   boolean NOT NULL DEFAULT false,
  allowed_segments      integer[] NOT NULL DEFAULT '{}',
  allowed_segments_edit integer[] NOT NULL DEFAULT '{}',
  last_login_at         timestamptz,
  created_at            timestamptz NOT NULL DEFAULT now(),
  updated_at            timestamptz NOT NULL DEFAULT now()
);

-- Global configuration values (the "parameters table" of /api/config/update), one row per section and key.
CREATE TABLE IF NOT EXISTS parameters (
  parameter_type text NOT NULL,
  key            text NOT NULL,
  value          jsonb NOT NULL,
  updated_at     timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (parameter_type, key)
);

CREATE TABLE IF NOT EXISTS audit_log (
  id          bigserial PRIMARY KEY,
  entity_type text NOT NULL,
  entity_id   text,
  action      text NOT NULL,
  old_value   jsonb,
  new_value   jsonb,
  changed_by  text,
  user_id     text,
  ip          text,
  outcome     text NOT NULL CHECK (outcome IN ('success', 'failure', 'denied')),
  method      text,
  path        text,
  status_code integer,
  detail      text,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS audit_log_created_idx ON audit_log (created_at);
CREATE INDEX IF NOT EXISTS audit_log_entity_idx ON audit_log (entity_type, entity_id);

-- Master data the series cache is built from; later migrations extend these tables.
CREATE TABLE IF NOT EXISTS items (
  id            serial PRIMARY KEY,
  xuid          text NOT NULL UNIQUE,
  name          text NOT NULL,
  image_url     text,
  attributes    jsonb NOT NULL DEFAULT '{}',
  avg_unit_cost numeric NOT NULL DEFAULT 0,
  unit_price    numeric NOT NULL DEFAULT 0
);

CREATE TABLE IF NOT EXISTS sites (
  id         serial PRIMARY KEY,
  xuid       text NOT NULL UNIQUE,
  name       text NOT NULL,
  attributes jsonb NOT NULL DEFAULT '{}'
);

CREATE TABLE IF NOT EXISTS series (
  item_id    integer NOT NULL REFERENCES items(id),
  site_id    integer NOT NULL REFERENCES sites(id),
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (item_id, site_id)
);
