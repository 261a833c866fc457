-- The planner's work lists (GET /api/supply/orders, GET /api/exception-log) are read again and again between changes,
-- and a page of them costs PostgreSQL more to format than the API's whole path (bench:supply, bench:alerts): 200
-- orders of 40 columns are about 4 ms of JSON output alone. The API keeps the answers it gave (api/planReads.ts) and
-- must know, in the round trip of the token check, whether they are current. plan_version is that signal, beside
-- data_version (migration 011) and raised the same way, at commit, by every transaction that changed what those lists
-- show. It is a counter of its own so that a planner closing an exception or editing an order does not empty the
-- series and forecasts the API holds, and a forecasting step's chunks do not empty the work lists.
ALTER TABLE data_version ADD COLUMN IF NOT EXISTS plan_version bigint NOT NULL DEFAULT 1;

CREATE TABLE IF NOT EXISTS plan_version_pending (
  id bigserial PRIMARY KEY
);

CREATE OR REPLACE FUNCTION plan_version_mark() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('planning.plan_version_marked', true) IS DISTINCT FROM TG_TABLE_SCHEMA THEN
    PERFORM set_config('planning.plan_version_marked', TG_TABLE_SCHEMA, true);
    EXECUTE format('INSERT INTO %I.plan_version_pending DEFAULT VALUES', TG_TABLE_SCHEMA);
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION plan_version_bump() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('UPDATE %I.data_version SET plan_version = plan_version + 1', TG_TABLE_SCHEMA);
  EXECUTE format('DELETE FROM %I.plan_version_pending WHERE id = $1', TG_TABLE_SCHEMA) USING NEW.id;
  RETURN NULL;
END $$;

DROP TRIGGER IF EXISTS plan_version_bump ON plan_version_pending;
CREATE CONSTRAINT TRIGGER plan_version_bump AFTER INSERT ON plan_version_pending
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION plan_version_bump();

-- What the lists show: supply runs (which run a read without run_id picks), their orders, firm orders, supply
-- scenarios and pipelines (a read of an unknown one is a 404), the exception log, segments and their members (the
-- segment filter), and the item and site names beside every row.
DO $$
DECLARE t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['supply_runs', 'supply_orders', 'firm_orders', 'supply_scenarios', 'scenario_pipelines',
    'exception_log', 'segments', 'segment_members', 'items', 'sites']
  LOOP
    EXECUTE format('DROP TRIGGER IF EXISTS plan_version_mark ON %I', t);
    EXECUTE format('CREATE TRIGGER plan_version_mark AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON %I FOR EACH STATEMENT EXECUTE FUNCTION plan_version_mark()', t);
  END LOOP;
END $$;
