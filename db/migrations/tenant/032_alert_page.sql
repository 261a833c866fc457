-- GET /api/alerts lists a pipeline's alerts most severe first, then oldest: with this index a page is read in that
-- order and stops after its rows, where before every request sorted all of the pipeline's alerts (bench:alerts:
-- 32,230 alerts, 21 req/s). The expression is the one db/alerts.ts listAlerts orders by.
CREATE INDEX IF NOT EXISTS alerts_page_idx ON alerts (pipeline_id, (CASE severity WHEN 'critical' THEN 0 WHEN 'high' THEN 1 WHEN 'medium' THEN 2 ELSE 3 END), id);
