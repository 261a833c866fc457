/**
 * The service-backtest routes over HTTP against real PostgreSQL: settings (validation, partial updates, nothing
 * changed by a refused request), and the reads of rows the step's own writer stored from the pure backtest of two
 * SKU-sites: paging, filters, one SKU-site, the summaries and the chart.
 */
import { pipelineModels } from '../../activities/serviceBacktest/models';
import { meioScenarioForRun } from '../../db/meioResults';
import { sql, withTenant } from '../../db/pool';
import { replaceServiceBacktestResults } from '../../db/serviceBacktest';
import { createRng, samplePoisson } from '../../domain/inventory/random';
import { backtestItem, type BacktestRow } from '../../domain/serviceBacktest/derive';
import { createPipeline, okBody } from '../support/jobs';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';

let t: TestApp;
let a: TestTenant;
let planner: string;
let reader: string;
let pipelineId: number;
let scenarioId: number;
let rows: BacktestRow[];
const ids = { smooth: 0, sparse: 0, site: 0 };

const target = { service_type: 'fill_rate' as const, target_service: 0.95, holding_rate: 0.25, ordering_cost: 50, policy: 'rQ' as const, review_period_weeks: 1, source: 'scenario' };

beforeAll(async () => {
  t = await startTestApp();
  a = await t.newTenant('service-backtest-api');
  planner = await t.login(a.planner);
  reader = await t.login(await t.addUser(a.accountId, { role: 'user', can_run_process: false }));
  pipelineId = await createPipeline(t, planner, 'Backtest reads');
  const rng = createRng(5);
  const smooth = Array.from({ length: 104 }, () => samplePoisson(rng, 10));
  const sparse = Array.from({ length: 104 }, () => (rng() < 0.2 ? 1 + samplePoisson(rng, 4) : 0));
  await withTenant(t.db, a.accountId, async (tx) => {
    ids.site = (await tx.oneFirst(sql.unsafe`INSERT INTO sites (xuid, name) VALUES ('S', 'Store') RETURNING id`)) as number;
    ids.smooth = (await tx.oneFirst(sql.unsafe`INSERT INTO items (xuid, name) VALUES ('SM', 'Smooth') RETURNING id`)) as number;
    ids.sparse = (await tx.oneFirst(sql.unsafe`INSERT INTO items (xuid, name) VALUES ('SP', 'Sparse') RETURNING id`)) as number;
    scenarioId = (await meioScenarioForRun(tx, null))!;
    const site = (history: number[], abcClass: string) => ({ siteId: ids.site, history, unitCost: 4, masterLeadTime: 2, moq: 0, orderMultiple: 1, target, abcClass, segmentIds: [] });
    rows = [
      ...backtestItem({ itemId: ids.smooth, sites: [site(smooth, 'A')], routes: [] }, pipelineModels(new Map()), { originWeeks: [26, 52], sweepTargets: [0.8, 0.9, 0.99] }).rows,
      ...backtestItem({ itemId: ids.sparse, sites: [site(sparse, 'C')], routes: [] }, pipelineModels(new Map()), { originWeeks: [26, 52], sweepTargets: [0.8, 0.9, 0.99] }).rows,
    ];
    await replaceServiceBacktestResults(tx, pipelineId, scenarioId, [ids.smooth, ids.sparse], rows, 'backorder', 'test-job');
  });
}, 120_000);
afterAll(() => t.close());

describe('settings', () => {
  it('are the defaults until set; a PUT changes only the fields it sends', async () => {
    expect(okBody(await t.call('get', '/api/service-backtest/settings', { token: reader, query: { pipeline_id: pipelineId } }))).toEqual({
      pipeline_id: pipelineId, origin_weeks: [26], shortage_mode: 'backorder', tolerance: 0.05, warmup_weeks: 52, peers: true, sweep_targets: [0.8, 0.85, 0.9, 0.93, 0.95, 0.97, 0.98, 0.99, 0.995],
    });
    const put = okBody(await t.call('put', '/api/service-backtest/settings', { token: planner, body: { pipeline_id: pipelineId, origin_weeks: [13, 39], tolerance: 0.02 } }));
    expect(put).toMatchObject({ origin_weeks: [13, 39], tolerance: 0.02, shortage_mode: 'backorder', warmup_weeks: 52 });
    expect(okBody(await t.call('get', '/api/service-backtest/settings', { token: planner, query: { pipeline_id: pipelineId } }))).toEqual(put);
  });

  it('refuses bad input with a 400 naming the field, and changes nothing', async () => {
    const before = okBody(await t.call('get', '/api/service-backtest/settings', { token: planner, query: { pipeline_id: pipelineId } }));
    for (const [body, field] of [
      [{ origin_weeks: [0] }, 'origin_weeks'], [{ origin_weeks: [] }, 'origin_weeks'], [{ tolerance: 2 }, 'tolerance'], [{ shortage_mode: 'sometimes' }, 'shortage_mode'],
      [{ sweep_targets: [1] }, 'sweep_targets'], [{ sweep_targets: [0.2] }, 'sweep_targets'], [{ warmup_weeks: -1 }, 'warmup_weeks'], [{ colour: 'red' }, 'colour'],
    ] as const) {
      const res = await t.call('put', '/api/service-backtest/settings', { token: planner, body: { pipeline_id: pipelineId, ...body } });
      expect(res.status).toBe(400);
      expect(res.body.detail).toContain(field);
    }
    expect(okBody(await t.call('get', '/api/service-backtest/settings', { token: planner, query: { pipeline_id: pipelineId } }))).toEqual(before);
  });

  it('404 for an unknown pipeline, 403 for a user who may not run processes', async () => {
    const missing = await t.call('put', '/api/service-backtest/settings', { token: planner, body: { pipeline_id: 999999, tolerance: 0.1 } });
    expect([missing.status, missing.body.detail]).toEqual([404, 'pipeline_id: pipeline 999999 not found']);
    expect((await t.call('put', '/api/service-backtest/settings', { token: reader, body: { pipeline_id: pipelineId, tolerance: 0.1 } })).status).toBe(403);
    const run = await t.call('post', '/api/service-backtest/run', { token: planner, body: { pipeline_id: pipelineId, shortage_mode: 'never' } });
    expect(run.status).toBe(400);
    expect(run.body.detail).toContain('shortage_mode');
    const scenario = await t.call('post', '/api/service-backtest/run', { token: planner, body: { pipeline_id: pipelineId, meio_scenario_id: 999999 } });
    expect([scenario.status, scenario.body.detail]).toEqual([404, 'meio_scenario_id: MEIO scenario 999999 not found']);
  });
});

describe('reads', () => {
  const uid = (item: number) => `${item}_${ids.site}`;

  it('lists every row, paged, with the total in X-Total-Count', async () => {
    // 2 SKU-sites × 2 origins × (ours, normal, bootstrap and 3 sweep levels)
    expect(rows).toHaveLength(24);
    const first = await t.call('get', '/api/service-backtest/results', { token: reader, query: { pipeline_id: pipelineId, limit: 4 } });
    expect(okBody(first).map((r: any) => [r.unique_id, r.origin_weeks, r.variant, r.target_service])).toEqual([
      [uid(ids.smooth), 26, 'target', 0.95], [uid(ids.smooth), 26, 'normal', 0.95], [uid(ids.smooth), 26, 'bootstrap', 0.95], [uid(ids.smooth), 26, 'sweep', 0.8],
    ]);
    expect(first.headers['x-total-count']).toBe('24');
    const next = okBody(await t.call('get', '/api/service-backtest/results', { token: reader, query: { pipeline_id: pipelineId, skip: 4, limit: 2 } }));
    expect(next.map((r: any) => r.target_service)).toEqual([0.9, 0.99]);
    const ours = rows.find((r) => r.itemId === ids.smooth && r.originWeeks === 26 && r.variant === 'target')!;
    expect(okBody(first)[0]).toMatchObject({
      scenario_id: scenarioId, policy: 'sQ', reorder_point: ours.reorderPoint, order_qty: ours.orderQty, demand: ours.result.demand, served_from_stock: ours.result.servedFromStock,
      fill_rate: ours.result.fillRate, stockout_weeks: ours.result.stockoutWeeks, orders: ours.result.orders, abc_class: 'A', unit_cost: 4, job_id: 'test-job',
    });
    expect(okBody(first)[0].average_inventory_value).toBeCloseTo(4 * ours.result.averageOnHand, 9);
  });

  it('filters by variant, origin, demand class, ABC class and a miss of more than missed_by', async () => {
    const get = async (query: Record<string, unknown>) => {
      const res = await t.call('get', '/api/service-backtest/results', { token: reader, query: { pipeline_id: pipelineId, ...query } });
      return { body: okBody(res), total: Number(res.headers['x-total-count']) };
    };
    expect((await get({ variant: 'bootstrap', origin_weeks: 52 })).body.map((r: any) => r.unique_id)).toEqual([uid(ids.smooth), uid(ids.sparse)]);
    const sparseClass = rows.find((r) => r.itemId === ids.sparse)!.demandClass!;
    expect(['intermittent', 'lumpy']).toContain(sparseClass);
    expect((await get({ demand_class: sparseClass })).total).toBe(12);
    expect((await get({ abc_class: 'A' })).body.every((r: any) => r.item_id === ids.smooth)).toBe(true);
    const missed = rows.filter((r) => r.variant === 'target' && r.result.fillRate !== null && r.result.fillRate < r.targetService - 0.01).length;
    expect((await get({ variant: 'target', missed_by: 0.01 })).total).toBe(missed);
    expect((await t.call('get', '/api/service-backtest/results', { token: reader, query: { pipeline_id: pipelineId, demand_class: 'wobbly' } })).status).toBe(400);
  });

  it('reads one SKU-site; 404 for one without rows, 400 for a malformed id', async () => {
    const one = okBody(await t.call('get', `/api/service-backtest/results/${uid(ids.sparse)}`, { token: reader, query: { pipeline_id: pipelineId } }));
    expect(one).toHaveLength(12);
    const none = await t.call('get', `/api/service-backtest/results/${ids.sparse}_999999`, { token: reader, query: { pipeline_id: pipelineId } });
    expect([none.status, none.body.detail]).toEqual([404, `SKU-site ${ids.sparse}_999999 has no service backtest rows in pipeline ${pipelineId}`]);
    expect((await t.call('get', '/api/service-backtest/results/abc', { token: reader, query: { pipeline_id: pipelineId } })).status).toBe(400);
  });

  it('summarises per group: the mean target and achieved fill rate of ours and the peers, and ours along the sweep', async () => {
    const body = okBody(await t.call('get', '/api/service-backtest/summary', { token: reader, query: { pipeline_id: pipelineId, group_by: 'all' } }));
    expect(body).toMatchObject({ pipeline_id: pipelineId, scenario_id: scenarioId, group_by: 'all' });
    const [all] = body.groups;
    const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
    for (const variant of ['target', 'normal', 'bootstrap']) {
      const mine = rows.filter((r) => r.variant === variant && r.result.fillRate !== null);
      const v = all.variants.find((x: any) => x.variant === variant);
      expect(v.sku_sites).toBe(mine.length);
      expect(v.mean_fill_rate).toBeCloseTo(mean(mine.map((r) => r.result.fillRate!)), 12);
      expect(v.inventory_value).toBeCloseTo(mine.reduce((s, r) => s + 4 * r.result.averageOnHand, 0), 9);
    }
    expect(all.sweep.map((p: any) => p.target_service)).toEqual([0.8, 0.9, 0.99]);
    expect(all.sweep[2].inventory_value).toBeGreaterThan(all.sweep[0].inventory_value);
    expect(all.equal_service.map((e: any) => e.peer)).toEqual(['normal', 'bootstrap']);
    const byClass = okBody(await t.call('get', '/api/service-backtest/summary', { token: reader, query: { pipeline_id: pipelineId } }));
    expect(byClass.group_by).toBe('demand_class');
    expect(byClass.groups.map((g: any) => g.variants[0].sku_sites)).toEqual([2, 2]);
    const empty = okBody(await t.call('get', '/api/service-backtest/summary', { token: reader, query: { pipeline_id: await createPipeline(t, planner, 'Never backtested') } }));
    expect(empty).toMatchObject({ scenario_id: null, groups: [] });
  });

  it('charts achieved against target as a Vega-Lite layer over the diagonal', async () => {
    const spec = okBody(await t.call('get', '/api/service-backtest/chart', { token: reader, query: { pipeline_id: pipelineId, variant: 'target' } }));
    expect(spec.$schema).toContain('vega-lite');
    expect(spec.layer[0].mark.type).toBe('line');
    const points = spec.layer[1].data.values;
    const ours = rows.filter((r) => r.variant === 'target' && r.result.fillRate !== null);
    expect(points.map((p: any) => p.fill_rate)).toEqual(ours.map((r) => expect.closeTo(r.result.fillRate!, 12)));
    expect(spec.layer[1].encoding.y.field).toBe('fill_rate');
  });
});

describe('a user limited to segments', () => {
  it('reads only the SKU-sites of their segments: rows, summaries and chart; another SKU-site is a 403', async () => {
    const segment = await withTenant(t.db, a.accountId, async (tx) => {
      const id = (await tx.oneFirst(sql.unsafe`INSERT INTO segments (name) VALUES ('Smooth parts') RETURNING id`)) as number;
      await tx.query(sql.unsafe`INSERT INTO segment_members (segment_id, item_id, site_id) VALUES (${id}, ${ids.smooth}, ${ids.site})`);
      return id;
    });
    const limited = await t.login(await t.addUser(a.accountId, { role: 'user', allowed_segments: [segment] }));
    const listed = await t.call('get', '/api/service-backtest/results', { token: limited, query: { pipeline_id: pipelineId, limit: 500 } });
    expect(listed.status).toBe(200);
    const smoothRows = rows.filter((r) => r.itemId === ids.smooth);
    expect(listed.headers['x-total-count']).toBe(String(smoothRows.length));
    expect(new Set(listed.body.map((r: any) => r.unique_id))).toEqual(new Set([`${ids.smooth}_${ids.site}`]));
    // the unrestricted reader sees both items
    const everything = await t.call('get', '/api/service-backtest/results', { token: reader, query: { pipeline_id: pipelineId, limit: 1 } });
    expect(everything.headers['x-total-count']).toBe(String(rows.length));

    const other = await t.call('get', `/api/service-backtest/results/${ids.sparse}_${ids.site}`, { token: limited, query: { pipeline_id: pipelineId } });
    expect(other.status).toBe(403);
    expect(other.body.detail).toContain(`${ids.sparse}_${ids.site}`);
    expect(okBody(await t.call('get', `/api/service-backtest/results/${ids.smooth}_${ids.site}`, { token: limited, query: { pipeline_id: pipelineId } }))).toHaveLength(smoothRows.length);

    const summary = okBody(await t.call('get', '/api/service-backtest/summary', { token: limited, query: { pipeline_id: pipelineId, group_by: 'all' } }));
    expect(summary.groups[0].variants.find((v: any) => v.variant === 'target').sku_sites).toBe(smoothRows.filter((r) => r.variant === 'target' && r.result.fillRate !== null).length);
    const chart = okBody(await t.call('get', '/api/service-backtest/chart', { token: limited, query: { pipeline_id: pipelineId, variant: 'target' } }));
    expect(new Set(chart.layer[1].data.values.map((p: any) => p.unique_id))).toEqual(new Set([`${ids.smooth}_${ids.site}`]));
  });
});
