-- The data assistant (spec §4.7; docs/ASSISTANT.md). Two things:
--
-- 1. The tenant's read-only role `<schema>_reader` (NOLOGIN): the only identity generated SQL ever runs as
--    (db/assistantQuery.ts: SET LOCAL ROLE inside a READ ONLY transaction). It has USAGE on this schema and SELECT on its
--    tables, nothing else: no other tenant's schema, not the master schema, no sequence, no INSERT/UPDATE/DELETE.
--    The tables holding secrets stay out of reach: users (password hashes), parameters (the model's api key),
--    audit_log (old and new values of every change). Tables added by later migrations (and the history partitions
--    created at run time) are granted by the default privileges of the role that runs the migrations.
--    The migrating role is made a member, so SET ROLE works when the app does not connect as a superuser.
-- 2. assistant_index: the schema description the model writes SQL from, built by POST /api/assistant/index.
CREATE TABLE IF NOT EXISTS assistant_index (
  kind        text NOT NULL CHECK (kind IN ('table', 'concept')),
  name        text NOT NULL,
  description text NOT NULL,
  columns     jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(columns) = 'array'),
  keywords    text[] NOT NULL DEFAULT '{}',
  built_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (kind, name)
);

DO $$
DECLARE
  s text := current_schema();
  r text := current_schema() || '_reader';
BEGIN
  IF s !~ '^t_[0-9a-f]{32}$' THEN
    RAISE EXCEPTION 'assistant reader: unexpected schema %', s;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r) THEN
    EXECUTE format('CREATE ROLE %I NOLOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT NOREPLICATION NOBYPASSRLS', r);
  END IF;
  IF NOT pg_has_role(current_user, r, 'MEMBER') THEN
    EXECUTE format('GRANT %I TO %I', r, current_user);
  END IF;
  EXECUTE format('GRANT USAGE ON SCHEMA %I TO %I', s, r);
  EXECUTE format('GRANT SELECT ON ALL TABLES IN SCHEMA %I TO %I', s, r);
  EXECUTE format('ALTER DEFAULT PRIVILEGES IN SCHEMA %I GRANT SELECT ON TABLES TO %I', s, r);
  EXECUTE format('REVOKE ALL ON %I.users, %I.parameters, %I.audit_log FROM %I', s, s, s, r);
END;
$$;

-- 3. Functions that would let a statement change its role or run text it builds itself are taken from PUBLIC (and so
--    from every reader role): set_config (set_config('role', …) is checked against the session user, not the current
--    one), and query_to_xml with its kin, ts_stat and ts_rewrite (each runs the SQL text it is given). The migrating
--    role keeps set_config (withTenant uses it); a superuser is not affected by either. Idempotent; where the migrating
--    role does not own these functions PostgreSQL only warns, and the textual rules still refuse their names.
DO $$
DECLARE f text;
BEGIN
  FOREACH f IN ARRAY ARRAY[
    'pg_catalog.query_to_xml(text, boolean, boolean, text)', 'pg_catalog.query_to_xmlschema(text, boolean, boolean, text)',
    'pg_catalog.query_to_xml_and_xmlschema(text, boolean, boolean, text)', 'pg_catalog.cursor_to_xml(refcursor, integer, boolean, boolean, text)',
    'pg_catalog.cursor_to_xmlschema(refcursor, boolean, boolean, text)', 'pg_catalog.table_to_xml(regclass, boolean, boolean, text)',
    'pg_catalog.table_to_xmlschema(regclass, boolean, boolean, text)', 'pg_catalog.table_to_xml_and_xmlschema(regclass, boolean, boolean, text)',
    'pg_catalog.schema_to_xml(name, boolean, boolean, text)', 'pg_catalog.schema_to_xmlschema(name, boolean, boolean, text)',
    'pg_catalog.schema_to_xml_and_xmlschema(name, boolean, boolean, text)', 'pg_catalog.database_to_xml(boolean, boolean, text)',
    'pg_catalog.database_to_xmlschema(boolean, boolean, text)', 'pg_catalog.database_to_xml_and_xmlschema(boolean, boolean, text)',
    'pg_catalog.ts_stat(text)', 'pg_catalog.ts_stat(text, text)', 'pg_catalog.ts_rewrite(tsquery, text)'
  ] LOOP
    EXECUTE format('REVOKE EXECUTE ON FUNCTION %s FROM PUBLIC', f);
  END LOOP;
  EXECUTE format('GRANT EXECUTE ON FUNCTION pg_catalog.set_config(text, text, boolean) TO %I', current_user);
  REVOKE EXECUTE ON FUNCTION pg_catalog.set_config(text, text, boolean) FROM PUBLIC;
END;
$$;
