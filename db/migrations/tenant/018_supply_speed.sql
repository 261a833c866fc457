-- GET /api/supply/orders at 10,000 SKU-sites (issue 14's p99 under 50 ms; docs/BENCHMARKS.md, bench:supply). A run
-- holds tens of thousands of orders per 10,000 SKU-sites and a tenant keeps many runs, so a page must neither sort nor
-- count all of a run's orders.

-- The list's order within a run (item, site, arrival week, order id): a page reads its rows off the index in order.
-- It replaces 012's (run_id, item_id, site_id, arrival_week), its prefix, which served the same filters.
CREATE INDEX IF NOT EXISTS supply_orders_list_idx ON supply_orders (run_id, item_id, site_id, arrival_week, order_id);
DROP INDEX IF EXISTS supply_orders_run_idx;

-- The list's total under an order-type filter, with or without an arrival-week range (a planner's "which transfers
-- arrive in weeks 10–19"), counted in the index alone. Partial on a condition every row meets, so that only a query
-- naming an order type can use it: a narrower index led by run_id would otherwise take over plain reads of a run
-- and return orders that tie on the read's sort keys in another order than the list index (the engine's).
CREATE INDEX IF NOT EXISTS supply_orders_type_week_idx ON supply_orders (run_id, order_type, arrival_week) WHERE order_type IS NOT NULL;

-- The firm side's total when no filter narrows it: the firm orders that count as supply, counted in the index alone.
CREATE INDEX IF NOT EXISTS firm_orders_status_idx ON firm_orders (erp_status);

-- A run's orders per item, so the unfiltered total (and one item's) is a sum over a thousand rows instead of a count
-- over every order. Kept by statement triggers on supply_orders, so it stays exact whatever removes orders: a chunk
-- replacing its items, a run deleted, an item or site deleted by a replacing import (ON DELETE CASCADE), the legacy
-- firm-order lift (document 2 §4.3 rule 4). Per item and not per run: parallel chunks plan disjoint items, so they
-- never wait on each other's counter row.
CREATE TABLE IF NOT EXISTS supply_order_counts (
  run_id  text NOT NULL REFERENCES supply_runs(run_id) ON DELETE CASCADE,
  item_id integer NOT NULL,
  n       bigint NOT NULL,
  PRIMARY KEY (run_id, item_id)
);

-- A decrement only updates existing rows: when a whole run is deleted its counters go by the cascade, and an upsert
-- would bring back a row of a run that no longer exists.
CREATE OR REPLACE FUNCTION supply_order_counts_track() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    EXECUTE format('DELETE FROM %I.supply_order_counts', TG_TABLE_SCHEMA);
  ELSIF TG_OP = 'INSERT' THEN
    EXECUTE format('INSERT INTO %1$I.supply_order_counts AS c (run_id, item_id, n)
      SELECT run_id, item_id, count(*) FROM added GROUP BY run_id, item_id
      ON CONFLICT (run_id, item_id) DO UPDATE SET n = c.n + EXCLUDED.n', TG_TABLE_SCHEMA);
  ELSIF TG_OP = 'DELETE' THEN
    EXECUTE format('UPDATE %1$I.supply_order_counts c SET n = c.n - d.k
      FROM (SELECT run_id, item_id, count(*) AS k FROM removed GROUP BY run_id, item_id) d
      WHERE c.run_id = d.run_id AND c.item_id = d.item_id', TG_TABLE_SCHEMA);
  ELSE
    -- an edit (PUT, approve) changes neither run nor item: the net change is empty and nothing is written
    EXECUTE format('INSERT INTO %1$I.supply_order_counts AS c (run_id, item_id, n)
      SELECT run_id, item_id, sum(k) FROM (
        SELECT run_id, item_id, 1 AS k FROM added UNION ALL SELECT run_id, item_id, -1 FROM removed) d
      GROUP BY run_id, item_id HAVING sum(k) <> 0
      ON CONFLICT (run_id, item_id) DO UPDATE SET n = c.n + EXCLUDED.n', TG_TABLE_SCHEMA);
  END IF;
  RETURN NULL;
END $$;

DROP TRIGGER IF EXISTS supply_order_counts_insert ON supply_orders;
CREATE TRIGGER supply_order_counts_insert AFTER INSERT ON supply_orders
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION supply_order_counts_track();
DROP TRIGGER IF EXISTS supply_order_counts_delete ON supply_orders;
CREATE TRIGGER supply_order_counts_delete AFTER DELETE ON supply_orders
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION supply_order_counts_track();
DROP TRIGGER IF EXISTS supply_order_counts_update ON supply_orders;
CREATE TRIGGER supply_order_counts_update AFTER UPDATE ON supply_orders
  REFERENCING OLD TABLE AS removed NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION supply_order_counts_track();
DROP TRIGGER IF EXISTS supply_order_counts_truncate ON supply_orders;
CREATE TRIGGER supply_order_counts_truncate AFTER TRUNCATE ON supply_orders
  FOR EACH STATEMENT EXECUTE FUNCTION supply_order_counts_track();

-- The orders already there. The triggers above lock supply_orders until this migration commits, so no order is
-- written between this count and the first trigger.
INSERT INTO supply_order_counts (run_id, item_id, n)
  SELECT run_id, item_id, count(*) FROM supply_orders GROUP BY run_id, item_id
  ON CONFLICT (run_id, item_id) DO UPDATE SET n = EXCLUDED.n;
