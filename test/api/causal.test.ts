/**
 * The causal routes over HTTP on real PostgreSQL (core-service.md §4.10, document 2 §4.6; docs/CAUSAL.md): master
 * data CRUD with every refusal naming its field and changing nothing, the CSV imports with per-row errors and their
 * templates, the read-only views, the BOM explosion over three levels, the failure-rate fit on a known Poisson
 * process, and the breakdown rules with hand-computed numbers (test/support/causalSeed.ts). Runs through Temporal are
 * in test/workflows/causalRun.test.ts.
 */
import { sql, withTenant } from '../../db/pool';
import { ADMIN_REQUIRED } from '../../api/errors';
import { seedDemoCausal } from '../../scripts/demoData/causal';
import { seedCausal, type CausalSeed } from '../support/causalSeed';
import { seedForecastReads } from '../support/forecastReadsSeed';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';

let t: TestApp;
let a: TestTenant;
let admin: string;
let plain: string;
let seed: CausalSeed;

beforeAll(async () => {
  t = await startTestApp();
  a = await t.newTenant('causal');
  admin = await t.login(a.admin);
  plain = await t.login(await t.addUser(a.accountId, { role: 'user' }));
  seed = await seedCausal(t, a.accountId, admin);
}, 120_000);
afterAll(() => t.close());

const get = (path: string, query: Record<string, unknown> = {}, token = admin) => t.call('get', `/api/causal/${path}`, { token, query });
const post = (path: string, body: unknown, token = admin) => t.call('post', `/api/causal/${path}`, { token, body });
const count = (table: string) => withTenant(t.db, a.accountId, (tx) => tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM ${sql.identifier([table])}`)) as Promise<number>;
const sum = (xs: number[]) => xs.reduce((p, q) => p + q, 0);

describe('master data CRUD', () => {
  test('asset types: list and create; a taken code is 409 and nothing changes', async () => {
    const list = await get('asset-types');
    expect(list.status).toBe(200);
    expect(list.body.map((r: any) => r.code)).toEqual(['CRANE', 'TRK']);
    expect(list.headers['x-total-count']).toBe('2');
    const before = await count('causal_asset_types');
    const dup = await post('asset-types', { code: 'trk', name: 'again' });
    expect(dup.status).toBe(409);
    expect(dup.body.detail).toMatch(/code/);
    const bad = await post('asset-types', { name: 'no code' });
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toMatch(/code/);
    expect(await count('causal_asset_types')).toBe(before);
  });

  test('writes need an admin role; reads do not', async () => {
    const res = await post('asset-types', { code: 'X', name: 'X' }, plain);
    expect(res.status).toBe(403);
    expect(res.body.detail).toBe(ADMIN_REQUIRED);
    expect((await get('bom', {}, plain)).status).toBe(200);
  });

  test('assets: create, update, delete; an unknown asset type is 400 naming the field', async () => {
    const bad = await post('assets', { asset_type_id: 999999, serial_number: 'Z-1' });
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toBe('body.asset_type_id: asset type 999999 does not exist');
    const created = await post('assets', { asset_type_id: seed.assetTypes.CRANE, serial_number: 'CR-1', in_service_date: '2024-05-01' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ serial_number: 'CR-1', status: 'active', in_service_date: '2024-05-01' });
    const upd = await t.call('put', `/api/causal/assets/${created.body.id}`, { token: admin, body: { status: 'retired' } });
    expect(upd.status).toBe(200);
    expect(upd.body.status).toBe('retired');
    const badDate = await t.call('put', `/api/causal/assets/${created.body.id}`, { token: admin, body: { in_service_date: '2024-02-30' } });
    expect(badDate.status).toBe(400);
    expect(badDate.body.detail).toMatch(/in_service_date/);
    expect((await get('assets', { asset_type_id: seed.assetTypes.CRANE })).body.map((r: any) => r.serial_number)).toEqual(['CR-1']);
    expect((await t.call('delete', `/api/causal/assets/${created.body.id}`, { token: admin })).body).toEqual({ status: 'deleted', id: created.body.id });
    expect((await t.call('delete', `/api/causal/assets/${created.body.id}`, { token: admin })).status).toBe(404);
  });

  test('deployments: an end before the start, an unknown site or no customer is 400 naming the field, nothing written', async () => {
    const asset = (await get('assets', { search: 'TRK-1' })).body[0];
    const before = await count('causal_asset_deployments');
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ asset_id: asset.id, customer_id: seed.customers.C1, site_id: seed.sites.S100, start_date: '2026-02-01', end_date: '2026-01-01' }, /^body\.end_date: 2026-01-01 is before start_date 2026-02-01$/],
      [{ asset_id: asset.id, customer_id: seed.customers.C1, site_id: 999999, start_date: '2026-02-01' }, /^body\.site_id: site 999999 does not exist$/],
      [{ asset_id: asset.id, site_id: seed.sites.S100, start_date: '2026-02-01' }, /^body\.customer_id: required/],
      [{ asset_id: asset.id, customer_id: 999999, site_id: seed.sites.S100, start_date: '2026-02-01' }, /^body\.customer_id: customer 999999 does not exist$/],
      [{ asset_id: asset.id, customer_id: seed.customers.C1, site_id: seed.sites.S100, start_date: 'soon' }, /start_date/],
    ];
    for (const [body, detail] of cases) {
      const res = await post('asset-deployments', body);
      expect([res.status, res.body.detail]).toEqual([400, expect.stringMatching(detail)]);
    }
    expect(await count('causal_asset_deployments')).toBe(before);
    const list = await get('asset-deployments', { customer_id: seed.customers.C1 });
    expect(list.body).toHaveLength(3);
    const upd = await t.call('put', `/api/causal/asset-deployments/${list.body[0].id}`, { token: admin, body: { end_date: '2027-12-31' } });
    expect(upd.status).toBe(200);
    expect(upd.body.end_date).toBe('2027-12-31');
    const tmp = await post('asset-deployments', { asset_id: asset.id, customer_code: 'C9', site_id: seed.sites.S200, start_date: '2030-01-01' });
    expect(tmp.status).toBe(201);
    expect((await t.call('delete', `/api/causal/asset-deployments/${tmp.body.id}`, { token: admin })).status).toBe(200);
  });

  test('coverage: no PUT; a second row for the same asset type, customer and site is 409', async () => {
    const dup = await post('coverage', { asset_type_id: seed.assetTypes.TRK, customer_id: seed.customers.C1, site_id: seed.sites.S100, coverage_pct: 5 });
    expect(dup.status).toBe(409);
    expect(dup.body.detail).toMatch(/^body\.site_id: coverage row \d+ already covers/);
    const neg = await post('coverage', { asset_type_id: seed.assetTypes.TRK, site_id: seed.sites.S100, coverage_pct: -1 });
    expect(neg.status).toBe(400);
    expect(neg.body.detail).toMatch(/coverage_pct/);
    const rows = (await get('coverage', { asset_type_id: seed.assetTypes.TRK })).body;
    expect(rows.map((r: any) => [r.customer_id, r.site_id, r.coverage_pct])).toEqual([
      [seed.customers.C1, seed.sites.S100, 30], [seed.customers.C1, seed.sites.S200, 10], [null, seed.sites.S200, 50],
    ]);
    const tmp = await post('coverage', { asset_type_id: seed.assetTypes.CRANE, customer_code: 'C1', site_id: seed.sites.S100, coverage_pct: 1 });
    expect(tmp.status).toBe(201);
    expect(tmp.body.customer_id).toBe(seed.customers.C1);
    expect((await t.call('put', `/api/causal/coverage/${tmp.body.id}`, { token: admin, body: { coverage_pct: 2 } })).status).toBe(405);
    expect((await t.call('delete', `/api/causal/coverage/${tmp.body.id}`, { token: admin })).status).toBe(200);
  });

  test('fleet plan, usage and failure rates: update and delete, and their checks', async () => {
    const plan = await post('fleet-plan', { asset_type_id: seed.assetTypes.CRANE, customer_code: 'NEWCO', customer_name: 'New Co', start_date: '2027-01-04', quantity: 2 });
    expect(plan.status).toBe(201);
    expect((await t.call('put', `/api/causal/fleet-plan/${plan.body.id}`, { token: admin, body: { quantity: 5 } })).body.quantity).toBe(5);
    expect((await t.call('put', `/api/causal/fleet-plan/${plan.body.id}`, { token: admin, body: { end_date: '2026-01-01' } })).body.detail).toBe('body.end_date: 2026-01-01 is before start_date 2027-01-04');
    expect((await t.call('delete', `/api/causal/fleet-plan/${plan.body.id}`, { token: admin })).status).toBe(200);

    const usage = await post('asset-usage', { asset_type_id: seed.assetTypes.CRANE, customer_id: seed.customers.C2, usage_type_id: seed.hours, period_start: '2025-01-01', period_end: '2025-01-31', total_usage: 10 });
    expect(usage.status).toBe(201);
    expect((await t.call('put', `/api/causal/asset-usage/${usage.body.id}`, { token: admin, body: { usage_type_id: 999 } })).body.detail).toBe('body.usage_type_id: usage type 999 does not exist');
    expect((await t.call('put', `/api/causal/asset-usage/${usage.body.id}`, { token: admin, body: { total_usage: 20 } })).body.total_usage).toBe(20);
    expect((await t.call('delete', `/api/causal/asset-usage/${usage.body.id}`, { token: admin })).status).toBe(200);

    const dupRate = await post('failure-rate', { asset_type_id: seed.assetTypes.TRK, item_id: seed.items.P, usage_type_id: seed.hours, rate: 1 });
    expect(dupRate.status).toBe(409);
    const rate = await post('failure-rate', { asset_type_id: seed.assetTypes.CRANE, item_id: seed.items.G, usage_type_id: seed.hours, rate: 0.5, ci_lower: 0.8, ci_upper: 0.7 });
    expect([rate.status, rate.body.detail]).toEqual([400, 'body.ci_lower: 0.8 is above ci_upper 0.7']);
    const ok = await post('failure-rate', { asset_type_id: seed.assetTypes.CRANE, item_id: seed.items.G, usage_type_id: seed.hours, rate: 0.5 });
    expect(ok.body).toMatchObject({ rate: 0.5, source: 'manual', ci_lower: null });
    expect((await t.call('put', `/api/causal/failure-rate/${ok.body.id}`, { token: admin, body: { rate: 0.25 } })).body.rate).toBe(0.25);
    expect((await t.call('delete', `/api/causal/failure-rate/${ok.body.id}`, { token: admin })).status).toBe(200);
  });

  test('scenarios: create with defaults, update, delete; a taken name is 409', async () => {
    const res = await post('scenarios', { name: 'What if' }, plain);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ usage_mode: 'fleet_total', horizon_weeks: 52, usage_multiplier: 1, fleet_multiplier: 1, failure_rate_multiplier: 1, last_run_at: null });
    expect((await post('scenarios', { name: 'what IF' })).status).toBe(409);
    expect((await post('scenarios', { name: 'Bad mode', usage_mode: 'per_truck' })).body.detail).toMatch(/usage_mode/);
    expect((await t.call('put', `/api/causal/scenarios/${res.body.id}`, { token: plain, body: { usage_multiplier: 1.5 } })).body.usage_multiplier).toBe(1.5);
    expect((await t.call('delete', `/api/causal/scenarios/${res.body.id}`, { token: plain })).status).toBe(200);
  });
});

describe('BOM', () => {
  test('three levels: explosion multiplies along each path and sums a part over its paths; a cycle is refused', async () => {
    // TRK holds 2 × P (seed); P holds 3 × G; G holds 4 × B; TRK also holds 1 × G directly
    const pg = await post('bom', { parent_item_id: seed.items.P, item_id: seed.items.G, qty_per_asset: 3 });
    const gb = await post('bom', { parent_item_id: seed.items.G, item_id: seed.items.B, qty_per_asset: 4 });
    const tg = await post('bom', { asset_type_id: seed.assetTypes.TRK, item_id: seed.items.G, qty_per_asset: 1 });
    expect([pg.status, gb.status, tg.status]).toEqual([201, 201, 201]);
    const before = await count('causal_bom');
    const cycle = await post('bom', { parent_item_id: seed.items.B, item_id: seed.items.P, qty_per_asset: 1 });
    expect(cycle.status).toBe(400);
    expect(cycle.body.detail).toBe(`body.item_id: the line would close a cycle of parts ${[seed.items.B, seed.items.P, seed.items.G, seed.items.B].join(' → ')}`);
    const both = await post('bom', { asset_type_id: seed.assetTypes.TRK, parent_item_id: seed.items.P, item_id: seed.items.B, qty_per_asset: 1 });
    expect(both.body.detail).toBe('body.parent_item_id: give asset_type_id or parent_item_id, not both');
    const dup = await post('bom', { asset_type_id: seed.assetTypes.TRK, item_id: seed.items.P, qty_per_asset: 9 });
    expect(dup.status).toBe(409);
    expect(await count('causal_bom')).toBe(before);

    const ex = await get('bom/explosion', { asset_type_id: seed.assetTypes.TRK });
    expect(ex.status).toBe(200);
    expect(ex.body.levels).toBe(3);
    const { P, G, B } = seed.items;
    const [first, second] = P < G ? [P, G] : [G, P];
    expect(ex.body.rows.filter((r: any) => r.path[0] === P).map((r: any) => [r.item_code, r.level, r.qty_per_asset])).toEqual([['P', 1, 2], ['G', 2, 6], ['B', 3, 24]]);
    expect(ex.body.rows.filter((r: any) => r.path[0] === G).map((r: any) => [r.item_code, r.level, r.qty_per_asset])).toEqual([['G', 1, 1], ['B', 2, 4]]);
    expect(ex.body.rows[0].path[0]).toBe(first);
    expect(second).toBeGreaterThan(first);
    expect(Object.fromEntries(ex.body.totals.map((r: any) => [r.item_code, r.qty_per_asset]))).toEqual({ P: 2, G: 7, B: 28 });
    expect((await get('bom/explosion', { asset_type_id: 999999 })).status).toBe(404);
    expect((await get('bom/explosion')).body.detail).toMatch(/asset_type_id/);

    // the sub-tree does not change P's own demand; clean up so later tests see the seed's BOM
    for (const id of [pg.body.id, gb.body.id, tg.body.id]) expect((await t.call('delete', `/api/causal/bom/${id}`, { token: admin })).status).toBe(200);
  });

  test('import: good rows written (upsert), bad rows listed by line and field, a bad header is 400 with nothing written', async () => {
    const before = await count('causal_bom');
    const csv = [
      'asset_type_code,parent_item_code,item_code,qty_per_asset',
      'CRANE,,G,2',
      ',G,B,5',
      'NOPE,,P,1',
      'CRANE,G,B,1',
      'CRANE,,P,abc',
      ',B,G,1',
      'CRANE,,P,3',
    ].join('\n');
    const res = await post('bom/import', { csv });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ rows_read: 7, written: 3, rejected: 4, replaced: 0 });
    expect(res.body.errors.map((e: any) => [e.line, e.field])).toEqual([[4, 'asset_type_code'], [5, 'asset_type_code'], [6, 'qty_per_asset'], [7, 'item_code']]);
    expect(res.body.errors[3].message).toMatch(/cycle/);
    expect(await count('causal_bom')).toBe(before + 2);
    const crane = (await get('bom', { asset_type_id: seed.assetTypes.CRANE })).body;
    expect(Object.fromEntries(crane.map((r: any) => [r.item_id, r.qty_per_asset]))).toEqual({ [seed.items.G]: 2, [seed.items.P]: 3 });

    const bad = await post('bom/import', { csv: 'asset,item_code,qty_per_asset\nX,P,1' });
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toBe("body.csv: unknown column 'asset' (known: asset_type_code, parent_item_code, item_code, qty_per_asset)");
    const missing = await post('bom/import', { csv: 'asset_type_code,item_code\nX,P' });
    expect(missing.body.detail).toBe("body.csv: missing required column 'qty_per_asset'");
    expect(await count('causal_bom')).toBe(before + 2);

    // restore the seed's BOM: CRANE → P × 1 only
    await withTenant(t.db, a.accountId, (tx) => tx.query(sql.unsafe`
      DELETE FROM causal_bom WHERE (asset_type_id = ${seed.assetTypes.CRANE} AND item_id = ${seed.items.G}) OR parent_item_id = ${seed.items.G}`));
    await withTenant(t.db, a.accountId, (tx) => tx.query(sql.unsafe`UPDATE causal_bom SET qty_per_asset = 1 WHERE asset_type_id = ${seed.assetTypes.CRANE} AND item_id = ${seed.items.P}`));
  });
});

describe('fleet-plan import and templates', () => {
  test('rows with a new customer create it; bad rows are listed; replace starts over', async () => {
    const csv = [
      'asset_type_code,customer_code,customer_name,start_date,end_date,quantity,notes',
      'CRANE,C3,Initech,2027-01-04,,6,new depot',
      'CRANE,C3,,2027-02-30,,1,',
      'TRK,C1,,2027-01-04,2026-01-01,1,',
      'TRK,,,2027-01-04,,1,',
      'TRK,C1,,2027-01-04,,-2,',
    ].join('\n');
    const before = await count('causal_fleet_plan');
    const res = await post('fleet-plan/import', { csv });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ rows_read: 5, written: 1, rejected: 4 });
    expect(res.body.errors.map((e: any) => [e.line, e.field])).toEqual([[3, 'start_date'], [4, 'end_date'], [5, 'customer_code'], [6, 'quantity']]);
    expect(await count('causal_fleet_plan')).toBe(before + 1);
    const c3 = (await get('customers', { search: 'Initech' })).body;
    expect(c3.map((c: any) => c.code)).toEqual(['C3']);
    const rows = (await get('fleet-plan', { customer_id: c3[0].id })).body;
    expect(rows.map((r: any) => [r.quantity, r.notes, r.end_date])).toEqual([[6, 'new depot', null]]);
    await t.call('delete', `/api/causal/fleet-plan/${rows[0].id}`, { token: admin });
  });

  test('GET templates/{name} serves a CSV the import accepts; an unknown name is 404 listing the known ones', async () => {
    for (const name of ['bom', 'fleet-plan']) {
      const res = await get(`templates/${name}`);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/text\/csv/);
      expect(res.headers['content-disposition']).toMatch(/attachment/);
      expect(res.text.split('\n')[0]).toMatch(/^asset_type_code,/);
    }
    expect((await get('templates/fleet-plan')).text.split('\n')[0]).toBe('asset_type_code,customer_code,customer_name,start_date,end_date,quantity,notes');
    const unknown = await get('templates/nope');
    expect(unknown.status).toBe(404);
    expect(unknown.body.detail).toBe("Unknown template 'nope' (known: bom, fleet-plan)");
  });
});

describe('read-only views', () => {
  test('customers with their deployed assets; usage types', async () => {
    const res = await get('customers');
    expect(res.status).toBe(200);
    const c1 = res.body.find((c: any) => c.code === 'C1');
    expect(c1).toMatchObject({ id: seed.customers.C1, name: 'Acme', assets: 3, sites: 1, asset_types: 1 });
    expect((await get('usage-types')).body.map((u: any) => u.code)).toEqual(['hours', 'cycles', 'km']);
  });

  test('usage-timeseries: rule 2 per week, 0 outside the periods', async () => {
    const res = await get('usage-timeseries', { asset_type_id: seed.assetTypes.TRK, date_from: '2026-01-01', date_to: '2026-02-02' });
    expect(res.status).toBe(200);
    expect(res.body.weeks).toEqual(['2025-12-29', '2026-01-05', '2026-01-12', '2026-01-19', '2026-01-26', '2026-02-02']);
    const c2 = res.body.series.find((x: any) => x.customer_id === seed.customers.C2);
    // 2025-12-29: no period contains that Monday → 0; 01-05: 1500 × 7 / 10; 01-12: after the period → 0
    expect(c2.points.map((p: any) => Math.round(p.value * 1e6) / 1e6)).toEqual([0, 1050, 0, 0, 0, 0]);
    const c1 = res.body.series.find((x: any) => x.customer_id === seed.customers.C1);
    expect(c1.points.map((p: any) => Math.round(p.value * 1e6) / 1e6)).toEqual([0, 700, 700, 700, 700, 0]);
    expect((await get('usage-timeseries', { date_from: '2026-02-01', date_to: '2026-01-01' })).body.detail).toBe('query.date_to: 2026-01-01 is before date_from 2026-02-01');
    expect((await get('usage-timeseries', { date_from: '2000-01-03', date_to: '2026-01-01' })).body.detail).toMatch(/^query\.date_to: at most 520 weeks/);
  });
});

describe('breakdown (document 2 §4.6)', () => {
  const bd = (q: Record<string, unknown>) => get('results/breakdown', { scenario_id: seed.scenarios.base, ...q });

  test('rules 1–3: per-customer coverage, rule 2 weekly usage, names; period normalised to its Monday', async () => {
    const res = await bd({ item_id: `${seed.items.P}_${seed.sites.S200}`, period: '2026-01-08' });
    expect(res.status).toBe(200);
    expect(res.body.period).toBe('2026-01-05');
    expect(res.body.usage_mode).toBe('fleet_total');
    const trk = res.body.breakdown.filter((r: any) => r.asset_type_code === 'TRK');
    expect(trk.map((r: any) => [r.customer_name, r.asset_qty, r.fleet_qty, r.total_usage, r.failure_rate, r.qty_per_asset, r.usage_type_name])).toEqual([
      ['Acme', 3, 3, 2800, 0.001, 2, 'Operating hours'], ['Globex', 0, 4, 1500, 0.001, 2, 'Operating hours'],
    ]);
    expect(trk[0].coverage_pct).toBeCloseTo(0.25, 12);
    expect(trk[0].computed_demand).toBeCloseTo(0.35, 10);
    expect(trk[1].coverage_pct).toBe(1);
    expect(trk[1].computed_demand).toBeCloseTo(2.1, 10);
    // never run: actual_demand is the sum of the terms; one global coverage map would have made it 2.333
    expect(res.body.actual_source).toBe('computed');
    expect(res.body.actual_demand).toBeCloseTo(2.45, 10);
    expect(Math.abs(sum(res.body.breakdown.map((r: any) => r.computed_demand)) - res.body.actual_demand)).toBeLessThan(0.01);
  });

  test('rule 1 per_asset: multiplied by the fleet (3 deployed at C1, a plan of 4 at C2)', async () => {
    const res = await bd({ scenario_id: seed.scenarios.perAsset, item_id: `${seed.items.P}_${seed.sites.S200}`, period: '2026-01-05' });
    expect(res.body.usage_mode).toBe('per_asset');
    expect(res.body.actual_demand).toBeCloseTo(0.35 * 3 + 2.1 * 4, 10);
  });

  test('rule 6: the asset type without coverage is listed with 0', async () => {
    const res = await bd({ item_id: `${seed.items.P}_${seed.sites.S100}`, period: '2026-01-05' });
    const crane = res.body.breakdown.filter((r: any) => r.asset_type_code === 'CRANE');
    expect(crane).toHaveLength(1);
    expect([crane[0].coverage_pct, crane[0].computed_demand, crane[0].total_usage]).toEqual([0, 0, 700]);
    expect(res.body.actual_demand).toBeCloseTo(1.05, 10);
  });

  test('rule 5: the exact series is read before the item aggregate, and they are never summed', async () => {
    const { P } = seed.items;
    const { S100, S200 } = seed.sites;
    const sc = await post('scenarios', { name: 'Stored' });
    await withTenant(t.db, a.accountId, (tx) => tx.query(sql.unsafe`
      INSERT INTO causal_results (scenario_id, pipeline_id, item_id, site_id, week, demand) VALUES
        (${sc.body.id}, 7, ${P}, ${S200}, '2026-01-05', 2.45), (${sc.body.id}, 7, ${P}, 0, '2026-01-05', 3.5)`));
    const exact = await get('results/breakdown', { scenario_id: sc.body.id, item_id: `${P}_${S200}`, period: '2026-01-05', pipeline_id: 7 });
    expect(exact.status).toBe(200);
    expect([exact.body.actual_demand, exact.body.actual_source, exact.body.pipeline_id]).toEqual([2.45, 'series', 7]);
    expect(exact.body.actual_demand).not.toBeCloseTo(2.45 + 3.5, 5);
    // no stored value for S100 that week: the aggregate is read instead
    const fallback = await get('results/breakdown', { scenario_id: sc.body.id, item_id: `${P}_${S100}`, period: '2026-01-05' });
    expect([fallback.body.actual_demand, fallback.body.actual_source, fallback.body.pipeline_id]).toEqual([3.5, 'item_aggregate', 7]);
    // the chart value is the same number
    const chart = await get('results', { scenario_id: sc.body.id, item_id: P, site_id: S200 });
    expect(chart.body.items.map((r: any) => [r.series_id, r.week, r.demand])).toEqual([[`${P}_${S200}`, '2026-01-05', 2.45]]);
    expect((await get('results/breakdown', { scenario_id: sc.body.id, item_id: `${P}_${S200}`, period: '2026-01-05', pipeline_id: 8 })).status).toBe(404);
  });

  test('bad input is 400 naming the parameter; an unknown scenario is 404', async () => {
    expect((await bd({ item_id: `${seed.items.P}`, period: '2026-01-05' })).body.detail).toMatch(/^query\.item_id/);
    expect((await bd({ item_id: `${seed.items.P}_x`, period: '2026-01-05' })).body.detail).toMatch(/^query\.item_id must match pattern/);
    expect((await bd({ item_id: `0_${seed.sites.S100}`, period: '2026-01-05' })).body.detail).toBe(`query.item_id: '0_${seed.sites.S100}' is not a series id <item_id>_<site_id> (two positive integers joined by an underscore)`);
    expect((await bd({ item_id: 'x_1', period: '2026-01-05' })).status).toBe(400);
    expect((await bd({ item_id: `${seed.items.P}_${seed.sites.S100}`, period: '2026-13-01' })).body.detail).toMatch(/period/);
    expect((await bd({ item_id: `${seed.items.P}_${seed.sites.S100}` })).body.detail).toMatch(/period/);
    expect((await bd({ scenario_id: 999999, item_id: `${seed.items.P}_${seed.sites.S100}`, period: '2026-01-05' })).status).toBe(404);
  });
});

describe('failure-rate fit', () => {
  /** mulberry32 and Knuth's Poisson sampler: seeded, so every run sees the same data. */
  function rng(seedValue: number) {
    let s = seedValue >>> 0;
    return () => {
      s = (s + 0x6d2b79f5) >>> 0;
      let x = s;
      x = Math.imul(x ^ (x >>> 15), x | 1);
      x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
      return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
    };
  }
  const poisson = (mu: number, u: () => number) => {
    const l = Math.exp(-mu);
    let k = 0;
    let p = 1;
    do { k += 1; p *= u(); } while (p > l);
    return k - 1;
  };

  test('recovers the rate of demand generated from a known Poisson process within its interval, and stores it', async () => {
    // a new asset type: 2 × B per asset, 1 000 h a week at C1 over 2024 (52 weeks from 2024-01-01), true rate 0.002
    const at = (await post('asset-types', { code: 'GEN', name: 'Generator' })).body.id;
    await post('bom', { asset_type_id: at, item_id: seed.items.B, qty_per_asset: 2 });
    await post('asset-usage', { asset_type_id: at, customer_id: seed.customers.C1, usage_type_id: seed.hours, period_start: '2024-01-01', period_end: '2024-12-29', total_usage: 52_000 });
    const u = rng(42);
    const weeks = Array.from({ length: 52 }, (_, k) => new Date(Date.UTC(2024, 0, 1 + 7 * k)).toISOString().slice(0, 10));
    const qty = weeks.map(() => poisson(0.002 * 2 * 1000, u));
    await withTenant(t.db, a.accountId, (tx) => tx.query(sql.unsafe`
      INSERT INTO demand_history (item_id, site_id, ds, qty)
      SELECT ${seed.items.B}, ${seed.sites.S100}, w, q FROM unnest(${sql.array(weeks, 'date')}::date[], ${sql.array(qty, 'int4')}::int4[]) AS t(w, q)`));
    const res = await post('failure-rate/fit', { asset_type_id: at, item_id: seed.items.B, usage_type_id: seed.hours, date_from: '2024-01-01', date_to: '2024-12-29', confidence: 0.99 });
    expect(res.status).toBe(200);
    expect(res.body.n_events).toBe(sum(qty));
    expect(res.body.exposure).toBeCloseTo(104_000, 6);
    expect(res.body.rate).toBeCloseTo(sum(qty) / 104_000, 12);
    expect(res.body.ci_lower).toBeLessThan(0.002);
    expect(res.body.ci_upper).toBeGreaterThan(0.002);
    expect(res.body.saved).toBe(true);
    const stored = (await get('failure-rate', { asset_type_id: at })).body;
    expect(stored).toEqual([expect.objectContaining({ id: res.body.failure_rate_id, source: 'fit', rate: res.body.rate, ci_lower: res.body.ci_lower, confidence: 0.99 })]);
  });

  test('a part outside the BOM, a reversed window or a window without usage is 400 naming the field, nothing saved', async () => {
    const before = await count('causal_failure_rates');
    const base = { asset_type_id: seed.assetTypes.TRK, item_id: seed.items.P, usage_type_id: seed.hours, date_from: '2026-01-01', date_to: '2026-01-31' };
    expect((await post('failure-rate/fit', { ...base, item_id: seed.items.G })).body.detail).toMatch(/^body\.item_id: item \d+ is not in the bill of materials/);
    expect((await post('failure-rate/fit', { ...base, date_to: '2025-01-01' })).body.detail).toBe('body.date_to: 2025-01-01 is before date_from 2026-01-01');
    expect((await post('failure-rate/fit', { ...base, date_from: '2020-01-01', date_to: '2020-12-31' })).body.detail).toMatch(/^body\.date_from: no usage/);
    expect((await post('failure-rate/fit', { ...base, usage_type_id: 999 })).body.detail).toBe('body.usage_type_id: usage type 999 does not exist');
    expect((await post('failure-rate/fit', base, plain)).status).toBe(403);
    expect(await count('causal_failure_rates')).toBe(before);
  });
});

describe('results without a run', () => {
  test('a scenario never run answers empty results, a zero summary, and uncertainty 404', async () => {
    const r = await get('results', { scenario_id: seed.scenarios.base });
    expect(r.body).toEqual({ scenario_id: seed.scenarios.base, pipeline_id: null, total: 0, items: [] });
    expect((await get('results/summary', { scenario_id: seed.scenarios.base })).body).toMatchObject({ total_demand: 0, weeks: 0, weekly: [] });
    expect((await post('uncertainty', { scenario_id: seed.scenarios.base })).status).toBe(404);
    expect((await get('results', { scenario_id: 999999 })).status).toBe(404);
  });

  test('compare/deployments and compare/usage read the scenarios\' levers', async () => {
    const lever = await post('scenarios', { name: 'Double fleet', fleet_multiplier: 2, usage_multiplier: 1.5 });
    const ids = `${seed.scenarios.base},${lever.body.id}`;
    const dep = await get('results/compare/deployments', { scenario_ids: ids, date: '2026-01-07' });
    expect(dep.status).toBe(200);
    expect(dep.body.week).toBe('2026-01-05');
    const c2 = dep.body.rows.find((r: any) => r.asset_type_code === 'TRK' && r.customer_id === seed.customers.C2);
    expect(c2.fleet).toEqual([{ scenario_id: seed.scenarios.base, fleet_qty: 4 }, { scenario_id: lever.body.id, fleet_qty: 8 }]);
    const c1 = dep.body.rows.find((r: any) => r.asset_type_code === 'TRK' && r.customer_id === seed.customers.C1);
    expect([c1.asset_qty, c1.fleet[1].fleet_qty]).toEqual([3, 6]);
    const use = await get('results/compare/usage', { scenario_ids: ids, date: '2026-01-05' });
    const u2 = use.body.rows.find((r: any) => r.asset_type_code === 'TRK' && r.customer_id === seed.customers.C2);
    expect(u2.weekly_usage).toBeCloseTo(1050, 9);
    expect(u2.usage[1].weekly_usage).toBeCloseTo(1575, 9);
    expect((await get('results/compare/usage', { scenario_ids: `${seed.scenarios.base}` })).body.detail).toMatch(/scenario_ids/);
    expect((await get('results/compare', { scenario_ids: `${seed.scenarios.base},${seed.scenarios.base}` })).body.detail).toBe('query.scenario_ids: an id appears twice');
    expect((await get('results/compare', { scenario_ids: `${seed.scenarios.base},999999` })).status).toBe(404);
  });
});

describe('demo data', () => {
  test('seedDemoCausal: a truck fleet over the first series, once; its breakdown is computed from it', async () => {
    const b = await t.newTenant('causal-demo');
    await seedForecastReads(t.db, b.accountId);
    const token = await t.login(b.planner);
    expect(await withTenant(t.db, b.accountId, (tx) => seedDemoCausal(tx))).toEqual({ asset_types: 1, assets: 6, scenarios: 2 });
    expect(await withTenant(t.db, b.accountId, (tx) => seedDemoCausal(tx))).toEqual({ asset_types: 0, assets: 0, scenarios: 0 });
    const first = await withTenant(t.db, b.accountId, (tx) => tx.any(sql.unsafe`SELECT item_id, site_id FROM series ORDER BY item_id, site_id LIMIT 2`)) as any[];
    const types = (await t.call('get', '/api/causal/asset-types', { token })).body;
    const ex = await t.call('get', '/api/causal/bom/explosion', { token, query: { asset_type_id: types[0].id } });
    expect(ex.body.levels).toBe(2);
    const scenarios = (await t.call('get', '/api/causal/scenarios', { token })).body;
    expect(scenarios.map((x: any) => x.name)).toEqual(['Baseline', 'Usage +20 %']);
    // this week carries the last 4-week period forward: Demo Logistics 4 × 50 × 4 × 1.1 = 880 h → 220 a week, Demo
    // Build 440 h → 110; part 0: 2 × 0.0005 × 220 × its site share (0.7, or 1 when both sites are one) + 2 × 0.0005 × 110
    const base = scenarios[0].id;
    const res = await t.call('get', '/api/causal/results/breakdown', { token, query: { scenario_id: base, item_id: `${first[0].item_id}_${first[0].site_id}`, period: new Date().toISOString().slice(0, 10) } });
    expect(res.status).toBe(200);
    const share = first[0].site_id === first[1].site_id ? 1 : 0.7;
    expect(res.body.actual_demand).toBeCloseTo(0.22 * share + 0.11, 9);
    expect(res.body.breakdown.map((r: any) => r.customer_name)).toEqual(['Demo Logistics', 'Demo Build']);
  });
});

test('every mutating causal call writes an audit row', async () => {
  const rows = await withTenant(t.db, a.accountId, (tx) => tx.any(sql.unsafe`
    SELECT DISTINCT entity_type FROM audit_log WHERE entity_type LIKE 'causal%' AND outcome = 'success'`));
  expect(rows.map((r: any) => r.entity_type).sort()).toEqual(expect.arrayContaining([
    'causal_asset', 'causal_asset_deployment', 'causal_asset_type', 'causal_asset_usage', 'causal_bom', 'causal_coverage', 'causal_failure_rate', 'causal_fleet_plan', 'causal_scenario',
  ]));
});
