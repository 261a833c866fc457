-- Platform-wide tables: who the tenants are, who may administer all of them, which tokens are revoked.
CREATE EXTENSION IF NOT EXISTS pgcrypto;

CREATE TABLE IF NOT EXISTS master.accounts (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name          text NOT NULL UNIQUE,
  schema_name   text NOT NULL UNIQUE,
  database_url  text,
  is_active     boolean NOT NULL DEFAULT true,
  sso_auto_provision_domains text[] NOT NULL DEFAULT '{}',
  created_at    timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS master.superadmins (
  id            serial PRIMARY KEY,
  email         text NOT NULL UNIQUE,
  name          text NOT NULL,
  password_hash text NOT NULL,
  is_active     boolean NOT NULL DEFAULT true,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now()
);

-- e-mail -> accounts index for /api/auth/probe; kept in the same transaction as the tenant user rows.
CREATE TABLE IF NOT EXISTS master.account_emails (
  email       text NOT NULL,
  account_id  uuid NOT NULL REFERENCES master.accounts(id) ON DELETE CASCADE,
  PRIMARY KEY (email, account_id)
);

CREATE TABLE IF NOT EXISTS master.revoked_tokens (
  jti         uuid PRIMARY KEY,
  account_id  uuid,
  expires_at  timestamptz,
  revoked_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS revoked_tokens_expires_idx ON master.revoked_tokens (expires_at);

-- The auth parameter set is platform-wide: one signing secret verifies every tenant's tokens.
CREATE TABLE IF NOT EXISTS master.parameters (
  parameter_type text NOT NULL,
  key            text NOT NULL,
  value          jsonb NOT NULL,
  updated_at     timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (parameter_type, key)
);

-- Schema names cannot be bound as parameters; this keeps the quoting in PostgreSQL (format %I) instead of in string-built SQL.
CREATE OR REPLACE FUNCTION master.ensure_tenant_schema(schema_name text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF schema_name !~ '^t_[0-9a-f]{32}$' THEN
    RAISE EXCEPTION 'invalid tenant schema name %', schema_name;
  END IF;
  EXECUTE format('CREATE SCHEMA IF NOT EXISTS %I', schema_name);
END;
$$;
