-- Replay (document 2 §4.5): the live readers run unchanged over a frozen version. Within a replay's transaction each
-- live table a reader touches is shadowed by a temporary view of the same name over the version's history partition
-- (the session's temporary schema is searched before the tenant's), so the answer is the one the live reader gave
-- when the version was frozen. The replay transaction is rolled back, which drops the views with it.
CREATE OR REPLACE FUNCTION history_shadow(live text, snapshot integer) RETURNS void LANGUAGE plpgsql AS $$
DECLARE cols text;
BEGIN
  SELECT string_agg(quote_ident(a.attname), ', ' ORDER BY a.attnum) INTO cols
  FROM pg_attribute a
  WHERE a.attrelid = format('%I.%I', current_schema(), live)::regclass AND a.attnum > 0 AND NOT a.attisdropped
    AND EXISTS (SELECT 1 FROM pg_attribute h WHERE h.attrelid = format('%I.%I', current_schema(), 'history_' || live)::regclass AND h.attname = a.attname AND NOT h.attisdropped);
  EXECUTE format('CREATE TEMP VIEW %I AS SELECT %s FROM %I.%I WHERE snapshot_id = %s', live, cols, current_schema(), 'history_' || live, snapshot);
END $$;
