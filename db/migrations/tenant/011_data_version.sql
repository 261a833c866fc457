-- The API keeps the series list and the step results it serves in memory (api/readCache.ts) and must know, on every
-- request and in the same round trip as the token check, whether what it holds is still current. data_version is
-- that signal: one counter per tenant, raised by every committed transaction that changed what those reads show.
--
-- The counter is raised at commit, not when the write happens: a statement trigger on each table a cached read
-- depends on only queues one row in data_version_pending per transaction, and a deferred constraint trigger on that
-- row raises the counter as the transaction commits. So the row lock on data_version is held for the instant of a
-- commit, not for a whole chunk transaction (parallel step chunks would otherwise queue behind each other), and a
-- reader never sees a new version before the data it stands for.
CREATE TABLE IF NOT EXISTS data_version (
  only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  version  bigint NOT NULL DEFAULT 1
);
INSERT INTO data_version (only_row) VALUES (true) ON CONFLICT DO NOTHING;

CREATE TABLE IF NOT EXISTS data_version_pending (
  id bigserial PRIMARY KEY
);

-- The flag holds the schema so that a transaction touching two tenants (account set-up) queues one row in each.
CREATE OR REPLACE FUNCTION data_version_mark() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('planning.data_version_marked', true) IS DISTINCT FROM TG_TABLE_SCHEMA THEN
    PERFORM set_config('planning.data_version_marked', TG_TABLE_SCHEMA, true);
    EXECUTE format('INSERT INTO %I.data_version_pending DEFAULT VALUES', TG_TABLE_SCHEMA);
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION data_version_bump() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('UPDATE %I.data_version SET version = version + 1', TG_TABLE_SCHEMA);
  EXECUTE format('DELETE FROM %I.data_version_pending WHERE id = $1', TG_TABLE_SCHEMA) USING NEW.id;
  RETURN NULL;
END $$;

DROP TRIGGER IF EXISTS data_version_bump ON data_version_pending;
CREATE CONSTRAINT TRIGGER data_version_bump AFTER INSERT ON data_version_pending
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION data_version_bump();

-- What the cached reads show: master data, the series and their weekly history, ABC classes, characterization,
-- best method and forecasts, the pipelines and scenarios that decide the default pipeline, segment membership.
DO $$
DECLARE t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['items', 'sites', 'series', 'series_weekly', 'abc_configurations', 'abc_results',
    'series_characteristics', 'series_best_method', 'forecast_results', 'scenario_pipelines', 'forecast_scenarios',
    'segments', 'segment_members']
  LOOP
    EXECUTE format('DROP TRIGGER IF EXISTS data_version_mark ON %I', t);
    EXECUTE format('CREATE TRIGGER data_version_mark AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON %I FOR EACH STATEMENT EXECUTE FUNCTION data_version_mark()', t);
  END LOOP;
END $$;

-- Jobs: the default pipeline is the one whose result jobs completed last. Heartbeats and progress do not count, or
-- every running step would empty the cache every few seconds.
DROP TRIGGER IF EXISTS data_version_mark ON jobs;
CREATE TRIGGER data_version_mark AFTER INSERT OR DELETE OR TRUNCATE ON jobs FOR EACH STATEMENT EXECUTE FUNCTION data_version_mark();
DROP TRIGGER IF EXISTS data_version_mark_finish ON jobs;
CREATE TRIGGER data_version_mark_finish AFTER UPDATE ON jobs FOR EACH ROW
  WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.finished_at IS DISTINCT FROM NEW.finished_at
    OR OLD.pipeline_id IS DISTINCT FROM NEW.pipeline_id OR OLD.step IS DISTINCT FROM NEW.step)
  EXECUTE FUNCTION data_version_mark();
