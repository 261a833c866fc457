-- GET /api/alerts is kept per plan version like the other work lists (api/planReads.ts), so plan_version must also
-- rise at the commit of what only the alerts list shows: the alerts themselves (generation, approve and reject) and
-- the series' demand classes its demand_class filter reads. Pipelines, segments and their members already raise it
-- (migration 033).
DO $$
DECLARE t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['alerts', 'series_characteristics']
  LOOP
    EXECUTE format('DROP TRIGGER IF EXISTS plan_version_mark ON %I', t);
    EXECUTE format('CREATE TRIGGER plan_version_mark AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON %I FOR EACH STATEMENT EXECUTE FUNCTION data_version_mark(''plan_version'')', t);
  END LOOP;
END $$;
