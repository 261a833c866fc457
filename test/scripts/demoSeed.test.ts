import { sql, withTenant } from '../../db/pool';
import { createDemoPlan, demandBySeries } from '../../scripts/demoData/generator';
import { DEMO_FORECAST_STEPS, ensureDemoPipeline, seedDemoData, startDemoForecast, waitForDemoJob } from '../../scripts/demoData/seed';
import { startTestWorker, type TestWorker } from '../support/temporal';
import { startTestApp, type TestApp } from '../support/testApp';

let tw: TestWorker;
let t: TestApp;
beforeAll(async () => {
  tw = await startTestWorker();
  t = await startTestApp({ temporal: { client: tw.client, taskQueue: tw.taskQueue } });
}, 120_000);
afterAll(async () => {
  await t.close();
  await tw.close();
});

test('generated demo data goes through import staging, an import run and etl without a single rejected row, then is forecast', async () => {
  const tenant = await t.newTenant('seed');
  const opts = { seed: 11, items: 40, sites: 6, seriesTarget: 80 };
  const result = await seedDemoData(t.db, { client: tw.client, taskQueue: tw.taskQueue }, tenant.accountId, opts, 'test', 180_000);

  let expectedRows = 0;
  let seriesWithDemand = 0;
  for (const s of demandBySeries(createDemoPlan(opts))) {
    expectedRows += s.rows.length;
    if (s.rows.length) seriesWithDemand += 1;
  }
  expect(result.staged.demand_history).toBe(expectedRows);
  expect(result.staged.items).toBe(40);
  expect(result.series).toBe(seriesWithDemand);

  const admin = await t.login(tenant.admin);
  const run = await t.call('get', `/api/import/runs/${result.importRunId}`, { token: admin });
  expect(run.body.status).toBe('completed');
  expect(run.body.results.length).toBe(8);
  for (const table of run.body.results) expect([table.table_name, table.status, table.rejected]).toEqual([table.table_name, 'completed', 0]);

  // the supersession chains went through stg_supersession like any file: one edge per row, the first chain over three
  // generations (A → B → C), so its middle item is `middle` and its last one sees A two generations up
  const plannedEdges = createDemoPlan(opts).supersession;
  expect(plannedEdges.length).toBe(3);
  const edges = (await t.call('get', '/api/supersession', { token: admin })).body as Array<Record<string, unknown>>;
  expect(edges.map((e) => [e.from_item_xuid, e.to_item_xuid, e.effective_date, e.demand_factor, e.site_id, e.stock_rollable]))
    .toEqual(plannedEdges.map((p) => [p.old_item_xuid, p.new_item_xuid, p.effective_date, p.ratio, null, true]));
  const [first, second] = plannedEdges;
  expect(second.old_item_xuid).toBe(first.new_item_xuid);
  const ids = new Map(edges.flatMap((e) => [[e.from_item_xuid, e.from_item_id], [e.to_item_xuid, e.to_item_id]] as Array<[string, number]>));
  const idOf = (xuid: string) => ids.get(xuid)!;
  const middle = (await t.call('get', `/api/supersession/item/${idOf(first.new_item_xuid)}`, { token: admin })).body;
  expect([middle.role, middle.upstream.map((r: any) => r.item_xuid), middle.downstream.map((r: any) => r.item_xuid)]).toEqual(['middle', [first.old_item_xuid], [second.new_item_xuid]]);
  const top = (await t.call('get', `/api/supersession/item/${idOf(second.new_item_xuid)}`, { token: admin })).body;
  expect([top.role, top.upstream.map((r: any) => [r.item_xuid, r.depth])]).toEqual(['top', [[first.new_item_xuid, 1], [first.old_item_xuid, 2]]]);

  const counts = await withTenant(t.db, tenant.accountId, async (tx) => ({
    items: await tx.oneFirst(sql.unsafe`SELECT count(*) FROM items`),
    demand: await tx.oneFirst(sql.unsafe`SELECT count(*) FROM demand_history`),
    notMonday: await tx.oneFirst(sql.unsafe`SELECT count(*) FROM series_weekly WHERE extract(isodow FROM week) <> 1`),
    weeklyTotal: await tx.oneFirst(sql.unsafe`SELECT sum(y)::float8 FROM series_weekly`),
    demandTotal: await tx.oneFirst(sql.unsafe`SELECT sum(qty)::float8 FROM demand_history`),
  }));
  expect(counts).toMatchObject({ items: 40, demand: expectedRows, notMonday: 0 });
  expect(counts.weeklyTotal).toBeCloseTo(counts.demandTotal as number, 6);

  const reload = await t.call('post', '/api/reload', { token: admin });
  expect(reload.body.cache_sizes).toMatchObject({ items: 40, sites: 6 });
  expect(reload.body.cache_sizes.series).toBeGreaterThanOrEqual(seriesWithDemand);

  // the demo pipeline runs under a "Baseline" forecast scenario, so the run routes have a scenario_id to take
  const pipeline = (await t.call('get', `/api/scenario-pipeline/${result.pipelineId}`, { token: admin })).body;
  const baseline = (await t.call('get', `/api/forecast/scenarios/${result.scenarioId}`, { token: admin })).body;
  expect([pipeline.name, pipeline.forecast_scenario_id, baseline.name, baseline.is_baseline]).toEqual(['Demo pipeline', result.scenarioId, 'Baseline', true]);

  // the start command then forecasts the demo pipeline: every series gets forecasts, a best method and a distribution
  const jobId = await startDemoForecast(t.db, { client: tw.client, taskQueue: tw.taskQueue }, tenant.accountId, result.pipelineId, 'test');
  const job = await waitForDemoJob(t.db, tenant.accountId, jobId, 300_000);
  expect([job.status, job.error]).toEqual(['completed', null]);
  // and reads without pipeline_id show it (docs/API.md, "Which pipeline a read uses")
  const uid = (await t.call('get', '/api/series', { token: admin, query: { limit: 1 } })).body[0].unique_id;
  const forecasts = (await t.call('get', `/api/forecasts/${uid}`, { token: admin })).body;
  expect(forecasts.pipeline_id).toBe(result.pipelineId);
  expect(Object.keys(forecasts.forecasts).length).toBeGreaterThan(0);
  expect((await t.call('get', '/api/best-methods', { token: admin })).body).toMatchObject({ pipeline_id: result.pipelineId, total_series: seriesWithDemand });
  expect((await t.call('get', `/api/scenario-pipeline/${result.pipelineId}`, { token: admin })).body.last_run_at).not.toBeNull();
  expect(DEMO_FORECAST_STEPS).toEqual(['outlier', 'characterization', 'forecast', 'backtest', 'backtest-forecast', 'best-method', 'distribution', 'meio', 'eoq', 'supply']);
  const done = await withTenant(t.db, tenant.accountId, async (tx) => ({
    forecasted: await tx.oneFirst(sql.unsafe`SELECT count(DISTINCT (item_id, site_id))::int FROM forecast_results WHERE pipeline_id = ${result.pipelineId}`),
    // a successor of a supersession edge where it had no series gets one, with the demand it takes over (rule 3)
    successorSeries: await tx.oneFirst(sql.unsafe`
      SELECT count(*)::int FROM series s WHERE s.n_observations IS NULL
        AND EXISTS (SELECT 1 FROM supersession e WHERE e.to_item_id = s.item_id AND (e.site_id IS NULL OR e.site_id = s.site_id))`),
    best: await tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM series_best_method WHERE pipeline_id = ${result.pipelineId}`),
    distributions: await tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM series_distributions WHERE pipeline_id = ${result.pipelineId}`),
    negative: await tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM forecast_results, unnest(yhat) v WHERE v < 0 OR v = 'NaN'`),
    // every series with demand gets a stock target; the routes add the DCs and plants that feed the stores
    meioSeries: await tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM meio_results r JOIN series s USING (item_id, site_id) WHERE r.pipeline_id = ${result.pipelineId} AND r.weekly_mean > 0 AND s.n_observations IS NOT NULL`),
    routes: await tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM routes`),
    // and a supply plan along those routes, its checks passed, allocated by its child step
    supply: await tx.maybeOne(sql.unsafe`
      SELECT r.status, (r.checks->>'ok')::boolean AS ok, r.n_orders > 0 AS has_orders, r.n_sku_sites >= ${seriesWithDemand} AS covers_series, a.status AS allocation
      FROM supply_runs r LEFT JOIN allocation_runs a ON a.supply_run_id = r.run_id WHERE r.pipeline_id = ${result.pipelineId}`),
  }));
  expect(done.supply).toEqual({ status: 'completed', ok: true, has_orders: true, covers_series: true, allocation: 'completed' });
  expect(done).toMatchObject({ forecasted: seriesWithDemand + (done.successorSeries as number), best: seriesWithDemand, distributions: seriesWithDemand, negative: 0 });
  expect(done.successorSeries).toBeGreaterThan(0);
  expect(done.routes).toBeGreaterThan(0);
  expect(done.meioSeries).toBe(seriesWithDemand);
  // the default supply scenario plans maintenance demand (docs/SUPPLY.md "Which demand a plan covers"): every part of
  // the demo's events falls inside the plan's 52 weeks, and the plan's own demand of each part's series is its
  // forecast plus exactly what /api/maintenance/demand/series says the events take in those weeks
  const plan = await withTenant(t.db, tenant.accountId, (tx) => tx.one(sql.unsafe`
    SELECT run_id, planning_date::text AS planning_date, horizon FROM supply_runs WHERE pipeline_id = ${result.pipelineId}`)) as { run_id: string; planning_date: string; horizon: number };
  const maint = (await t.call('get', '/api/maintenance/demand/series', { token: admin, query: { start_week: plan.planning_date, horizon_weeks: plan.horizon } })).body;
  const cCheck = (await t.call('get', '/api/maintenance/events', { token: admin })).body.find((e: any) => e.event_type === 'C-check');
  const occurrences = (await t.call('get', `/api/maintenance/events/${cCheck.id}/occurrences`, { token: admin, query: { start_week: plan.planning_date, horizon_weeks: plan.horizon } })).body;
  expect(occurrences.occurrences.length).toBeGreaterThanOrEqual(2);
  expect(maint.weeks[0]).toBe(plan.planning_date);
  const cParts = new Set(cCheck.bom.map((l: any) => `${l.item_id}_${l.site_id}`));
  expect(maint.series.filter((x: any) => cParts.has(x.unique_id)).length).toBe(cParts.size);
  for (const x of maint.series) {
    const row = await withTenant(t.db, tenant.accountId, (tx) => tx.one(sql.unsafe`
      SELECT p.demand, fr.yhat, fr.start_week::text AS start_week FROM supply_plans p
      JOIN series_best_method b ON b.pipeline_id = ${result.pipelineId} AND b.item_id = p.item_id AND b.site_id = p.site_id
      JOIN forecast_results fr ON fr.pipeline_id = b.pipeline_id AND fr.item_id = b.item_id AND fr.site_id = b.site_id AND fr.method = b.best_method
      WHERE p.run_id = ${plan.run_id} AND p.item_id = ${x.item_id} AND p.site_id = ${x.site_id}`)) as { demand: number[]; yhat: number[]; start_week: string };
    expect(row.start_week).toBe(plan.planning_date);
    const extra = row.demand.map((d, k) => d - Math.max(0, row.yhat[k] ?? 0));
    expect([x.unique_id, extra.map((v) => Math.round(v * 1e6) / 1e6)]).toEqual([x.unique_id, x.values]);
  }
  // the job ends with the planner's work queue: alerts and the exception log of the demo pipeline, as the job reports them
  const alerts = (await t.call('get', '/api/alerts', { token: admin, query: { page_size: 1 } })).body;
  const log = (await t.call('get', '/api/exception-log', { token: admin, query: { pipeline_id: result.pipelineId, page_size: 1 } })).body;
  expect(alerts.total).toBeGreaterThan(0);
  expect(log.total).toBeGreaterThan(0);
  expect((job.result as { signals?: unknown }).signals).toEqual({ pipeline_id: result.pipelineId, alerts: alerts.total, alerts_cleared: 0, exception_rows: log.total });
}, 480_000);

test('the demo pipeline and its baseline scenario are created once: a second seed reuses them, a planner\'s choices stay', async () => {
  const tenant = await t.newTenant('seed-pipeline');
  const first = await withTenant(t.db, tenant.accountId, (tx) => ensureDemoPipeline(tx, 'test'));
  expect(await withTenant(t.db, tenant.accountId, (tx) => ensureDemoPipeline(tx, 'test'))).toEqual(first);
  const counts = await withTenant(t.db, tenant.accountId, async (tx) => ({
    scenarios: await tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM forecast_scenarios`),
    baselines: await tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM forecast_scenarios WHERE is_baseline AND name = 'Baseline'`),
    pipelines: await tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM scenario_pipelines WHERE name = 'Demo pipeline' AND forecast_scenario_id = ${first.scenarioId}`),
  }));
  expect(counts).toEqual({ scenarios: 1, baselines: 1, pipelines: 1 });

  // a planner linked the pipeline to another scenario: the seed keeps that link
  const admin = await t.login(tenant.admin);
  const other = (await t.call('post', '/api/forecast/scenarios', { token: admin, body: { name: 'Promo' } })).body.id;
  await t.call('put', `/api/scenario-pipeline/${first.pipelineId}`, { token: admin, body: { forecast_scenario_id: other } });
  expect(await withTenant(t.db, tenant.accountId, (tx) => ensureDemoPipeline(tx, 'test'))).toEqual({ pipelineId: first.pipelineId, scenarioId: other });
});
