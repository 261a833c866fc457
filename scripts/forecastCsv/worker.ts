/**
 * Worker thread of the offline forecaster: receives batches of series, answers with their CSV text. Formatting
 * happens here too, so the main thread only writes strings in batch order.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { forecastLines, forecastSeries, type ForecastSettings, summaryLine } from './forecast';
import type { WeeklyInput } from './parse';

export interface BatchRequest {
  batch: number;
  series: WeeklyInput[];
}

export interface BatchResult {
  batch: number;
  forecasts: string;
  summary: string;
  rows: number;
  count: number;
  failures: { item_id: string; site_id: string; error: string }[];
}

/** Runs one batch; used by the worker threads and, with --threads 1, by the main thread itself. */
export function runBatch(req: BatchRequest, settings: ForecastSettings, withSummary: boolean): BatchResult {
  let forecasts = '';
  let summary = '';
  let rows = 0;
  const failures: BatchResult['failures'] = [];
  for (const s of req.series) {
    const r = forecastSeries(s, settings);
    forecasts += forecastLines(r);
    rows += r.mean.length;
    if (withSummary) summary += summaryLine(r);
    if (r.error !== undefined) failures.push({ item_id: r.item_id, site_id: r.site_id, error: r.error });
  }
  return { batch: req.batch, forecasts, summary, rows, count: req.series.length, failures };
}

if (parentPort && (workerData as { forecastCsvWorker?: boolean } | undefined)?.forecastCsvWorker) {
  const { settings, withSummary } = workerData as { settings: ForecastSettings; withSummary: boolean };
  const port = parentPort;
  port.on('message', (req: BatchRequest) => port.postMessage(runBatch(req, settings, withSummary)));
}
