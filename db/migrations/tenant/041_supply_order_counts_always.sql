-- The order counts (migration 018) follow every write of supply_orders, also the supply step's set-based insert, which
-- runs with session_replication_role = replica to skip the per-row foreign-key checks (db/heldReferences.ts): a
-- trigger ENABLE ALWAYS fires in that role too, where an ordinary one (and PostgreSQL's RI checks) does not.
ALTER TABLE supply_orders ENABLE ALWAYS TRIGGER supply_order_counts_insert;
ALTER TABLE supply_orders ENABLE ALWAYS TRIGGER supply_order_counts_delete;
ALTER TABLE supply_orders ENABLE ALWAYS TRIGGER supply_order_counts_update;
ALTER TABLE supply_orders ENABLE ALWAYS TRIGGER supply_order_counts_truncate;
