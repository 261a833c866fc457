-- A freeze copies its tables side by side (db/history.ts freezeVersion): each copy, a whole table or a block range of a
-- large one, runs in a transaction of its own on the freeze's exported snapshot, into a standalone table shaped like
-- the version's partition, and the freeze's own transaction attaches the tables when all are filled. The copies in the
-- freeze's transaction alone kept one core of PostgreSQL busy for two minutes at 100,000 series while the other
-- waited. Until the attach commits, a staged table is no partition: no reader of a history table sees a version that
-- is not whole.

-- The staged table history_<live>_<snapshot>: the parent's columns, and a CHECK on snapshot_id so that the attach
-- need not scan it. Created and committed before the copies, so that several of them can fill it side by side.
CREATE OR REPLACE FUNCTION history_stage_create(live text, snapshot integer) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING GENERATED, CHECK (snapshot_id = %s))',
    'history_' || live || '_' || snapshot, 'history_' || live, snapshot);
END $$;

-- Copies into the staged table the live rows of the scope (columns matched by name, as the history tables' columns
-- follow the live ones through history_sync_columns) that lie in the live table's blocks first_block … end_block − 1 (end_block null: to the end). A TID range scan reads only those
-- blocks, so a large table's copy splits into pieces that run side by side, and every row is in exactly one piece.
-- Returns the rows copied.
CREATE OR REPLACE FUNCTION history_stage_fill(live text, snapshot integer, archive date, scope text, pipeline integer, runs text[],
  first_block bigint, end_block bigint) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
  cols text;
  cond text;
  n bigint;
BEGIN
  SELECT string_agg(quote_ident(a.attname), ', ' ORDER BY a.attnum) INTO cols
  FROM pg_attribute a
  WHERE a.attrelid = format('%I.%I', current_schema(), live)::regclass AND a.attnum > 0 AND NOT a.attisdropped
    AND EXISTS (SELECT 1 FROM pg_attribute h WHERE h.attrelid = format('%I.%I', current_schema(), 'history_' || live)::regclass
      AND h.attname = a.attname AND NOT h.attisdropped);
  cond := CASE scope
    WHEN 'pipeline' THEN 'pipeline_id = $3'
    WHEN 'run' THEN 'run_id = ANY($4)'
    WHEN 'supply_run' THEN 'supply_run_id = ANY($4)'
    ELSE NULL END;
  IF cond IS NULL THEN RAISE EXCEPTION 'history_stage_fill: unknown scope %', scope; END IF;
  IF first_block > 0 THEN cond := cond || format(' AND ctid >= %L::tid', format('(%s,0)', first_block)); END IF;
  IF end_block IS NOT NULL THEN cond := cond || format(' AND ctid < %L::tid', format('(%s,0)', end_block)); END IF;
  EXECUTE format('INSERT INTO %I (snapshot_id, archive_date, %s) SELECT $1, $2, %s FROM %I WHERE %s',
    'history_' || live || '_' || snapshot, cols, cols, live, cond)
    USING snapshot, archive, pipeline, runs;
  GET DIAGNOSTICS n = ROW_COUNT;
  RETURN n;
END $$;

-- The parent's indexes on the filled staged table, built once over its rows; the attach adopts them.
CREATE OR REPLACE FUNCTION history_stage_index(live text, snapshot integer) RETURNS void LANGUAGE plpgsql AS $$
DECLARE idx record;
BEGIN
  FOR idx IN
    SELECT (SELECT string_agg(quote_ident(a.attname), ', ' ORDER BY k.ord)
            FROM unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord) JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum) AS cols
    FROM pg_index i WHERE i.indrelid = format('%I.%I', current_schema(), 'history_' || live)::regclass
  LOOP
    EXECUTE format('CREATE INDEX ON %I (%s)', 'history_' || live || '_' || snapshot, idx.cols);
  END LOOP;
END $$;

-- Makes a staged table the version's partition (in the freeze's transaction).
CREATE OR REPLACE FUNCTION history_attach(live text, snapshot integer) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES IN (%s)', 'history_' || live, 'history_' || live || '_' || snapshot, snapshot);
END $$;

-- Drops the staged tables of freezes that failed after their copies committed: tables history_<live>_<n> that are no
-- partition, of a version n that does not exist and that no freeze in progress holds (a freeze holds the advisory lock
-- of its version id until it commits or fails). Returns the tables dropped.
CREATE OR REPLACE FUNCTION history_drop_orphan_stages() RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  r record;
  n integer := 0;
BEGIN
  FOR r IN
    SELECT c.relname, substring(c.relname FROM '_(\d+)$')::integer AS snapshot
    FROM pg_class c JOIN pg_namespace ns ON ns.oid = c.relnamespace
    WHERE ns.nspname = current_schema() AND c.relkind = 'r' AND NOT c.relispartition AND c.relname ~ '^history_[a-z0-9_]+_\d+$'
      AND to_regclass(format('%I.%I', current_schema(), regexp_replace(c.relname, '_\d+$', ''))) IS NOT NULL
  LOOP
    CONTINUE WHEN EXISTS (SELECT 1 FROM history_versions v WHERE v.id = r.snapshot);
    CONTINUE WHEN NOT pg_try_advisory_xact_lock(hashtext(current_schema() || ':history-version'), r.snapshot);
    EXECUTE format('DROP TABLE %I', r.relname);
    n := n + 1;
  END LOOP;
  RETURN n;
END $$;

-- history_copy (migration 019) copied into the parent directly, in the freeze's transaction; history_stage_fill does
-- what it did, so it goes rather than stay as a second copy of the same column and scope rules.
DROP FUNCTION IF EXISTS history_copy(text, integer, date, text, integer, text[]);
