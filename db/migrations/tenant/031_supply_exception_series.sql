-- A run's exceptions of one SKU-site: the alert facts read them per series (db/alerts.ts alertFactsPage), and with
-- only (run_id, severity, type) indexed each of 10,000 series scanned every exception of the run (bench:alerts:
-- alert generation 40 s at 10,000 series).
CREATE INDEX IF NOT EXISTS supply_exceptions_series_idx ON supply_exceptions (run_id, item_id, site_id);
