-- The planning date's "forecast" source (db/planningDate.ts): the newest start week of a pipeline's forecasts. Without
-- an index it read every forecast row of the pipeline, 958 ms a call at 100,000 series (half a million rows of
-- weekly arrays), and the supply and meio steps, the supersession and causal reads and GET /api/history/planning-date
-- ask it; with the start week in an index, max() is one step down the index's right edge.
CREATE INDEX IF NOT EXISTS forecast_results_start_week_idx ON forecast_results (pipeline_id, start_week);
