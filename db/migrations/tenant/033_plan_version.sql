-- The planner's work lists (GET /api/supply/orders, GET /api/exception-log) are read again and again between changes,
-- and a page of them costs PostgreSQL more to format than the API's whole path (bench:supply, bench:alerts): 200
-- orders of 40 columns are about 4 ms of JSON output alone. The API keeps the answers it gave (api/planReads.ts) and
-- must know, in the round trip of the token check, whether they are current. plan_version is that signal, beside
-- data_version's counter (migration 011) and raised by the same triggers, at commit, by every transaction that changed
-- what those lists show. It is a counter of its own so that a planner closing an exception or editing an order does
-- not empty the series and forecasts the API holds, and a forecasting step's chunks do not empty the work lists.
ALTER TABLE data_version ADD COLUMN IF NOT EXISTS plan_version bigint NOT NULL DEFAULT 1;

-- One pending row per transaction and counter; the mark trigger names its counter (none: 011's `version`).
ALTER TABLE data_version_pending ADD COLUMN IF NOT EXISTS counter text NOT NULL DEFAULT 'version'
  CHECK (counter IN ('version', 'plan_version'));

CREATE OR REPLACE FUNCTION data_version_mark() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  counter text := COALESCE(TG_ARGV[0], 'version');
  flag text := 'planning.' || counter || '_marked';
BEGIN
  IF current_setting(flag, true) IS DISTINCT FROM TG_TABLE_SCHEMA THEN
    PERFORM set_config(flag, TG_TABLE_SCHEMA, true);
    EXECUTE format('INSERT INTO %I.data_version_pending (counter) VALUES ($1)', TG_TABLE_SCHEMA) USING counter;
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION data_version_bump() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('UPDATE %I.data_version SET %I = %I + 1', TG_TABLE_SCHEMA, NEW.counter, NEW.counter);
  EXECUTE format('DELETE FROM %I.data_version_pending WHERE id = $1', TG_TABLE_SCHEMA) USING NEW.id;
  RETURN NULL;
END $$;

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
    EXECUTE format('CREATE TRIGGER plan_version_mark AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON %I FOR EACH STATEMENT EXECUTE FUNCTION data_version_mark(''plan_version'')', t);
  END LOOP;
END $$;
