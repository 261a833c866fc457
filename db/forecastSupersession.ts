/**
 * Document 2 §4.4 rule 3 on a pipeline's stored forecasts (docs/SUPERSESSION.md): the forecast step's finalize calls
 * `supersedeForecasts` after every chunk, since a predecessor and its successor may be forecast in different chunks.
 * The transfer itself is domain/supersession/forecastTransfer.ts; here are its reads and writes.
 */
import { sql, type Tx } from './pool';
import { allEdges } from './supersession';
import { planForecastTransfer, transferBatches, type StoredBand } from '../domain/supersession/forecastTransfer';

interface StoredRow extends StoredBand {
  scenario_id: number | null;
  level: number;
}

/** The forecast step's rows of these items under the pipeline (combination excluded: best-method builds it afterwards). */
async function forecastRowsOfItems(tx: Tx, pipelineId: number, itemIds: readonly number[]): Promise<StoredRow[]> {
  const rows = (await tx.any(sql.unsafe`
    SELECT item_id, site_id, method, scenario_id, start_week, yhat, yhat_lower, yhat_upper, level, params
    FROM forecast_results
    WHERE pipeline_id = ${pipelineId} AND method <> 'combination' AND item_id = ANY(${sql.array([...itemIds], 'int4')})
    ORDER BY item_id, site_id, method`)) as StoredRow[];
  // a NULL element would not survive the transfer's arithmetic; the forecast step stores none (closed weeks are 0)
  return rows.map((r) => ({ ...r, yhat: r.yhat.map(Number), yhat_lower: r.yhat_lower.map(Number), yhat_upper: r.yhat_upper.map(Number) }));
}

/** Rule 3's series id `<to_item_id>_<site_id>`: a successor without history gets its series row (forecast_results refers to it). */
async function ensureSeries(tx: Tx, keys: ReadonlyArray<{ item_id: number; site_id: number }>): Promise<void> {
  if (!keys.length) return;
  await tx.query(sql.unsafe`
    INSERT INTO series (item_id, site_id)
    SELECT * FROM ${sql.unnest(keys.map((k) => [k.item_id, k.site_id]), ['int4', 'int4'])}
    ON CONFLICT (item_id, site_id) DO NOTHING`);
}

const floats = (col: string) => sql.fragment`ARRAY(SELECT e::float8 FROM jsonb_array_elements_text(${sql.identifier(['r', col])}) WITH ORDINALITY AS t(e, i) ORDER BY i)`;

/**
 * Items planned together, and rows per upsert statement. The rows an edge touches are its two items at every site
 * times their methods: 51 edges over 60 sites were 49,000 rows at 100,000 series, and one JSON parameter of them all
 * (three bands and the mark's own three) grew a PostgreSQL backend to 0.8 GiB in bench:week. Batches of a few items and
 * pages of rows keep the process and the backend at a few MB whatever the number of edges.
 */
export const SUPERSESSION_BOUNDS = { batchItems: 16, pageRows: 1000 };

/** Upserts whole rows, `pageRows` per statement; the forecast step's bulk path (db/floatColumns.ts) is for hundreds of thousands of arrays. */
async function upsertRows(tx: Tx, pipelineId: number, rows: readonly StoredRow[], jobId: string, pageRows: number): Promise<void> {
  for (let at = 0; at < rows.length; at += pageRows) await upsertPage(tx, pipelineId, rows.slice(at, at + pageRows), jobId);
}

async function upsertPage(tx: Tx, pipelineId: number, rows: readonly StoredRow[], jobId: string): Promise<void> {
  const payload = JSON.stringify(rows.map((r) => ({
    item_id: r.item_id, site_id: r.site_id, method: r.method, scenario_id: r.scenario_id, start_week: r.start_week,
    yhat: r.yhat, yhat_lower: r.yhat_lower, yhat_upper: r.yhat_upper, level: r.level, params: r.params,
  })));
  await tx.query(sql.unsafe`
    INSERT INTO forecast_results (pipeline_id, item_id, site_id, method, scenario_id, start_week, yhat, yhat_lower, yhat_upper, level, params, job_id)
    SELECT ${pipelineId}, r.item_id, r.site_id, r.method, r.scenario_id, r.start_week, ${floats('yhat')}, ${floats('yhat_lower')}, ${floats('yhat_upper')},
      r.level, r.params, ${jobId}
    FROM jsonb_to_recordset(${payload}::jsonb) AS r(item_id int4, site_id int4, method text, scenario_id int4, start_week date, yhat jsonb,
      yhat_lower jsonb, yhat_upper jsonb, level float8, params jsonb)
    ON CONFLICT (pipeline_id, item_id, site_id, method) DO UPDATE SET
      start_week = EXCLUDED.start_week, yhat = EXCLUDED.yhat, yhat_lower = EXCLUDED.yhat_lower, yhat_upper = EXCLUDED.yhat_upper,
      params = EXCLUDED.params, job_id = EXCLUDED.job_id, updated_at = now()`);
}

async function deleteRows(tx: Tx, pipelineId: number, keys: ReadonlyArray<{ item_id: number; site_id: number; method: string }>): Promise<void> {
  if (!keys.length) return;
  await tx.query(sql.unsafe`
    DELETE FROM forecast_results WHERE pipeline_id = ${pipelineId}
      AND (item_id, site_id, method) IN (SELECT * FROM ${sql.unnest(keys.map((k) => [k.item_id, k.site_id, k.method]), ['int4', 'int4', 'text'])})`);
}

export interface ForecastSupersession {
  edges: number;
  /** series whose demand moved to a successor */
  movedSeries: number;
  /** forecast_results rows written (inserted or updated) and removed */
  written: number;
  removed: number;
}

/**
 * Brings the pipeline's forecast rows to one transfer of their own forecasts by every edge (each week by the edges in
 * force in it). Reads every edge, so an unreadable table fails the step (rule 7). Idempotent: a second call writes
 * nothing.
 */
export async function supersedeForecasts(tx: Tx, pipelineId: number, jobId: string, bounds = SUPERSESSION_BOUNDS): Promise<ForecastSupersession> {
  const edges = await allEdges(tx);
  // with no edge, rows may still carry a mark from an edge since deleted: those items are found by the key
  const marked = (await tx.anyFirst(sql.unsafe`
    SELECT DISTINCT item_id FROM forecast_results WHERE pipeline_id = ${pipelineId} AND params ? 'supersession'`)) as readonly number[];
  const done: ForecastSupersession = { edges: edges.length, movedSeries: 0, written: 0, removed: 0 };
  // a batch's items share no edge with another batch's, so each is planned on its own rows and edges
  for (const batch of transferBatches(edges, marked, bounds.batchItems)) {
    const plan = planForecastTransfer(await forecastRowsOfItems(tx, pipelineId, batch.items), batch.edges);
    await ensureSeries(tx, plan.write.filter((r) => (r.params.supersession as { created?: boolean } | undefined)?.created));
    await upsertRows(tx, pipelineId, plan.write, jobId, bounds.pageRows);
    await deleteRows(tx, pipelineId, plan.remove);
    done.movedSeries += plan.movedSeries;
    done.written += plan.write.length;
    done.removed += plan.remove.length;
  }
  return done;
}
