-- Firm supply orders (document 2 §2.1, §4.1, §4.3 rule 4; docs/SUPPLY.md "Firm orders"). The table itself is in 003.

-- The API and both imports already refuse these rows; the constraints make a row written any other way (SQL, the
-- legacy migration) obey the same rules. NOT VALID: a tenant's existing rows are not re-checked, so the migration
-- cannot fail on data written before the rules were enforced.
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'firm_orders_arrival_check' AND connamespace = current_schema()::regnamespace) THEN
    ALTER TABLE firm_orders ADD CONSTRAINT firm_orders_arrival_check CHECK (arrival_dt >= release_dt) NOT VALID;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'firm_orders_received_check' AND connamespace = current_schema()::regnamespace) THEN
    ALTER TABLE firm_orders ADD CONSTRAINT firm_orders_received_check CHECK (received_qty >= 0) NOT VALID;
  END IF;
END $$;

-- The list's default order (arrival, then id) and its date-range filters.
CREATE INDEX IF NOT EXISTS firm_orders_arrival_idx ON firm_orders (arrival_dt, id);

-- The one-time legacy migration (document 2 §4.3 rule 4): at most one row, written by the first supply run after the
-- upgrade whatever it found, so the lift never runs twice (not even after every firm order was deleted, when the
-- firm table would be empty again). Its primary key is also what serialises two runs starting together: the second
-- waits on the first's insert and then finds the row.
CREATE TABLE IF NOT EXISTS firm_orders_legacy_migration (
  singleton   boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  ran_at      timestamptz NOT NULL DEFAULT now(),
  -- 'migrated', or 'skipped' when firm_orders already held rows
  outcome     text NOT NULL CHECK (outcome IN ('migrated', 'skipped')),
  -- the date week 0 of the lifted rows was placed on (null when skipped)
  anchor_date date,
  migrated    integer NOT NULL DEFAULT 0,
  -- legacy rows left in supply_orders because they cannot be firm orders (quantity not above 0, unknown order type)
  not_lifted  integer NOT NULL DEFAULT 0
);
