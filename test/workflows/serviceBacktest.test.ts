/**
 * The service-backtest step through the real Temporal server and PostgreSQL: inside run-all when asked (after etl
 * built the series from demand history), and alone from its own route with other settings; its rows are exactly what
 * the pure backtest gives for the stored series, its misses land in the exception log.
 */
import { pipelineModels } from '../../activities/serviceBacktest/models';
import { sql, withTenant } from '../../db/pool';
import { createRng, samplePoisson } from '../../domain/inventory/random';
import { backtestItem } from '../../domain/serviceBacktest/derive';
import { completedJob, createPipeline, okBody } from '../support/jobs';
import { startTestWorker, type TestWorker } from '../support/temporal';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';

let tw: TestWorker;
let t: TestApp;
let a: TestTenant;
let planner: string;
let pipelineId: number;
const ids = { items: {} as Record<'A' | 'B' | 'C', number>, sites: {} as Record<'SUP' | 'DC' | 'S1', number> };
const WEEKS = 104;
const HELD_OUT = 26;

/** A smooth part (Poisson 8 a week), an intermittent one (a 6 about one week in four) and C, whose demand triples after the origin. */
function demandOf(name: 'A' | 'B' | 'C'): number[] {
  const rng = createRng({ A: 1, B: 2, C: 3 }[name]);
  return Array.from({ length: WEEKS }, (_, w) => {
    if (name === 'B') return rng() < 0.25 ? 6 : 0;
    const base = samplePoisson(rng, 8);
    return name === 'C' && w >= WEEKS - HELD_OUT ? 3 * base : base;
  });
}

beforeAll(async () => {
  tw = await startTestWorker();
  t = await startTestApp({ temporal: { client: tw.client, taskQueue: tw.taskQueue } });
  a = await t.newTenant('service-backtest');
  planner = await t.login(a.planner);
  pipelineId = await createPipeline(t, planner, 'Backtested');
  await withTenant(t.db, a.accountId, async (tx) => {
    for (const x of ['SUP', 'DC', 'S1'] as const) ids.sites[x] = (await tx.oneFirst(sql.unsafe`INSERT INTO sites (xuid, name) VALUES (${x}, ${x}) RETURNING id`)) as number;
    for (const x of ['A', 'B', 'C'] as const) ids.items[x] = (await tx.oneFirst(sql.unsafe`INSERT INTO items (xuid, name, avg_unit_cost) VALUES (${x}, ${x}, 10) RETURNING id`)) as number;
    await tx.query(sql.unsafe`INSERT INTO routes (item_id, from_site_id, to_site_id, route_type, lead_time, priority) VALUES
      (NULL, ${ids.sites.SUP}, ${ids.sites.DC}, 'BUY', 2, 1), (NULL, ${ids.sites.DC}, ${ids.sites.S1}, 'REPLENISHMENT', 1, 1)`);
    for (const x of ['A', 'B', 'C'] as const) {
      await tx.query(sql.unsafe`INSERT INTO item_site (item_id, site_id, unit_cost, lead_time_weeks) VALUES (${ids.items[x]}, ${ids.sites.S1}, 10, 1)`);
      const y = demandOf(x);
      await tx.query(sql.unsafe`
        INSERT INTO demand_history (item_id, site_id, ds, qty)
        SELECT ${ids.items[x]}, ${ids.sites.S1}, (date '2026-11-16' - 7 * (${WEEKS} - k)::int)::date, q
        FROM unnest(${sql.array(y, 'float8')}::float8[]) WITH ORDINALITY AS u(q, k)`);
    }
  });
}, 120_000);
afterAll(async () => {
  await t.close();
  await tw.close();
});

const uid = (x: 'A' | 'B' | 'C') => `${ids.items[x]}_${ids.sites.S1}`;

test('run-all with service_backtest runs the step last; its rows are the pure backtest of the stored series, and misses go to the exception log', async () => {
  okBody(await t.call('put', '/api/service-backtest/settings', { token: planner, body: { pipeline_id: pipelineId, tolerance: 0.15, sweep_targets: [0.9, 0.99] } }));
  const started = okBody(await t.call('post', '/api/pipeline/run-all', { token: planner, body: { pipeline_id: pipelineId, service_backtest: true } }));
  const job = await completedJob(t, planner, started.job_id, 300_000);
  expect(job.children.map((c) => c.step).slice(-2)).toEqual(['supply', 'service-backtest']);
  const child = job.children.find((c) => c.step === 'service-backtest')!;
  const step = await completedJob(t, planner, child.job_id);
  expect(step.result).toMatchObject({ step: 'service-backtest', series: 3 });
  expect(step.log.map((l) => l.message)).toEqual(expect.arrayContaining([
    expect.stringMatching(/^service-backtest: scenario \d+: 3 SKU-site replays, mean fill rate [\d.]+ % against [\d.]+ %; peers normal [\d.]+ %, bootstrap [\d.]+ %; exception log: 1 SKU-sites more than 15.00 % below their target/),
  ]));

  const res = await t.call('get', '/api/service-backtest/results', { token: planner, query: { pipeline_id: pipelineId, variant: 'target' } });
  const rows = okBody(res);
  expect(res.headers['x-total-count']).toBe('3');
  expect(rows.map((r: any) => r.unique_id)).toEqual([uid('A'), uid('B'), uid('C')]);
  for (const [i, x] of (['A', 'B', 'C'] as const).entries()) {
    // the held-out weeks are the last 26 of what was loaded; the guaranteed-service model holds no stock at the DC,
    // so the store's stock covers the DC's 2 weeks and its own 1: orders arrive 3 weeks after they are placed
    expect(rows[i]).toMatchObject({ origin_weeks: 26, weeks: 26, shortage_mode: 'backorder', lead_time_weeks: 3, unit_cost: 10 });
    expect(rows[i].demand).toBe(demandOf(x).slice(-HELD_OUT).reduce((s, v) => s + v, 0));
    expect(rows[i].fill_rate).toBeCloseTo(rows[i].served_from_stock / rows[i].demand, 12);
  }
  expect(rows[1].demand_class).toBe('intermittent');
  expect(rows[2].fill_rate).toBeLessThan(rows[2].target_service - 0.15);

  // the same series, targets and network through the pure backtest give the stored numbers
  const { scenario, series } = await withTenant(t.db, a.accountId, async (tx) => ({
    scenario: (await tx.one(sql.unsafe`SELECT target_service, service_type, holding_rate, ordering_cost, policy, review_period_weeks FROM meio_scenarios ORDER BY is_default DESC, id LIMIT 1`)) as any,
    series: (await tx.any(sql.unsafe`SELECT item_id, array_agg(y::float8 ORDER BY week) AS y FROM series_weekly WHERE site_id = ${ids.sites.S1} GROUP BY item_id ORDER BY item_id`)) as any[],
  }));
  for (const [i, s] of series.entries()) {
    const expected = backtestItem({
      itemId: s.item_id,
      sites: [
        { siteId: ids.sites.SUP, history: null, unitCost: 10, masterLeadTime: null, moq: 0, orderMultiple: 1, target: { ...scenario, source: 'scenario' } },
        { siteId: ids.sites.DC, history: null, unitCost: 10, masterLeadTime: null, moq: 0, orderMultiple: 1, target: { ...scenario, source: 'scenario' } },
        { siteId: ids.sites.S1, history: s.y, unitCost: 10, masterLeadTime: 1, moq: 0, orderMultiple: 1, target: { ...scenario, source: 'scenario' } },
      ],
      routes: [
        { from: ids.sites.SUP, to: ids.sites.DC, type: 'BUY', leadTime: 2, priority: 1 },
        { from: ids.sites.DC, to: ids.sites.S1, type: 'REPLENISHMENT', leadTime: 1, priority: 1 },
      ],
    }, pipelineModels(new Map()), { originWeeks: [26], sweepTargets: [0.9, 0.99] }).rows;
    const ours = expected.find((r) => r.variant === 'target')!;
    expect([rows[i].reorder_point, rows[i].order_qty, rows[i].policy]).toEqual([ours.reorderPoint, ours.orderQty, ours.policy]);
    expect(rows[i].fill_rate).toBeCloseTo(ours.result.fillRate!, 12);
    expect(rows[i].average_on_hand).toBeCloseTo(ours.result.averageOnHand, 12);
    const all = okBody(await t.call('get', `/api/service-backtest/results/${uid((['A', 'B', 'C'] as const)[i])}`, { token: planner, query: { pipeline_id: pipelineId } }));
    expect(all.map((r: any) => [r.variant, r.target_service])).toEqual(expected.map((r) => [r.variant, r.targetService]));
    expect(all.map((r: any) => r.fill_rate)).toEqual(expected.map((r) => expect.closeTo(r.result.fillRate!, 12)));
  }

  const log = okBody(await t.call('get', '/api/exception-log', { token: planner, query: { pipeline_id: pipelineId } }));
  const service = log.items.filter((r: any) => r.exception_types.includes('service'));
  expect(service.map((r: any) => r.unique_id)).toEqual([uid('C')]);
  const issue = service[0].issues.find((i: any) => i.type === 'service');
  expect(issue).toMatchObject({ code: 'backtest_fill_rate', severity: 'high', origin_weeks: 26, target_service: rows[2].target_service });
  expect(issue.achieved_fill_rate).toBeCloseTo(rows[2].fill_rate, 12);
}, 420_000);

test('alone from its route with two origins and lost sales; the settings it was given stay stored', async () => {
  const started = okBody(await t.call('post', '/api/service-backtest/run', {
    token: planner, body: { pipeline_id: pipelineId, origin_weeks: [26, 52], shortage_mode: 'lost_sales', sweep_targets: [], tolerance: 0.5 },
  }));
  const job = await completedJob(t, planner, started.job_id, 180_000);
  expect(job.result).toMatchObject({ step: 'service-backtest', series: 3 });
  const res = await t.call('get', '/api/service-backtest/results', { token: planner, query: { pipeline_id: pipelineId, limit: 5 } });
  const rows = okBody(res);
  // 3 SKU-sites × 2 origins × (ours + 2 peers), the first 5 in SKU-site, origin, variant order
  expect(res.headers['x-total-count']).toBe('18');
  expect(rows.map((r: any) => [r.unique_id, r.origin_weeks, r.variant, r.shortage_mode])).toEqual([
    [uid('A'), 26, 'target', 'lost_sales'], [uid('A'), 26, 'normal', 'lost_sales'], [uid('A'), 26, 'bootstrap', 'lost_sales'],
    [uid('A'), 52, 'target', 'lost_sales'], [uid('A'), 52, 'normal', 'lost_sales'],
  ]);
  expect(rows.every((r: any) => r.end_backorders === 0)).toBe(true);
  expect(rows[3].weeks).toBe(52);
  const settings = okBody(await t.call('get', '/api/service-backtest/settings', { token: planner, query: { pipeline_id: pipelineId } }));
  expect(settings).toMatchObject({ origin_weeks: [26, 52], shortage_mode: 'lost_sales', tolerance: 0.5, sweep_targets: [], peers: true, warmup_weeks: 52 });
  // a tolerance of 50 points clears C's issue from the exception log
  const log = okBody(await t.call('get', '/api/exception-log', { token: planner, query: { pipeline_id: pipelineId } }));
  expect(log.items.filter((r: any) => r.exception_types.includes('service'))).toEqual([]);

  const summary = okBody(await t.call('get', '/api/service-backtest/summary', { token: planner, query: { pipeline_id: pipelineId, group_by: 'demand_class', origin_weeks: 26 } }));
  expect(summary.groups.map((g: any) => [g.group, g.variants.map((v: any) => [v.variant, v.sku_sites])])).toEqual([
    ['intermittent', [['target', 1], ['normal', 1], ['bootstrap', 1]]],
    ['smooth', [['target', 2], ['normal', 2], ['bootstrap', 2]]],
  ]);
  const chart = okBody(await t.call('get', '/api/service-backtest/chart', { token: planner, query: { pipeline_id: pipelineId, variant: 'target' } }));
  expect(chart.layer[1].data.values.map((p: any) => [p.unique_id, p.origin_weeks])).toEqual([[uid('A'), 26], [uid('A'), 52], [uid('B'), 26], [uid('B'), 52], [uid('C'), 26], [uid('C'), 52]]);
}, 300_000);
