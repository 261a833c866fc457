-- Netting results (migration 023) are pipeline output too: a version holds them like the other tables (019).
DO $$
DECLARE t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['netting_runs', 'netting_results']
  LOOP
    EXECUTE format('CREATE TABLE IF NOT EXISTS %I (snapshot_id integer NOT NULL, archive_date date NOT NULL, LIKE %I INCLUDING DEFAULTS) PARTITION BY LIST (snapshot_id)',
      'history_' || t, t);
  END LOOP;
END $$;
