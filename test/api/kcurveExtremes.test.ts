/**
 * The K-curve's reads and solve at the edges of their number ranges: every answer is either a 400 naming the field or
 * a 200 whose every number is finite. Two tiny costs once multiplied to 0 inside the EOQ engine and answered 500.
 */
import type { SeriesKey } from '../../db/etl';
import { sql, withTenant } from '../../db/pool';
import { insertBest, insertForecast, writeWeeklyHistory } from '../support/forecastFixtures';
import { createPipeline } from '../support/jobs';
import { startTestApp, type TestApp } from '../support/testApp';

let t: TestApp;
let admin: string;
let P: number;

const WEEKS = ['2026-01-05', '2026-01-12', '2026-01-19', '2026-01-26'];

beforeAll(async () => {
  t = await startTestApp();
  const a = await t.newTenant('kcurve-extremes');
  admin = await t.login(a.admin);
  P = await createPipeline(t, admin, 'Main');
  await withTenant(t.db, a.accountId, async (tx) => {
    await tx.query(sql.unsafe`INSERT INTO sites (xuid, name) VALUES ('DC1', 'Central DC')`);
    // a cheap item and a dear one: the holding cost per unit r c spans both ends
    await tx.query(sql.unsafe`INSERT INTO items (xuid, name, avg_unit_cost, attributes) VALUES ('IA', 'Bolt', 0.01, '{}'), ('IB', 'Engine', 250000, '{}')`);
    for (const xuid of ['IA', 'IB']) {
      const k = (await tx.one(sql.unsafe`SELECT i.id AS item_id, s.id AS site_id FROM items i, sites s WHERE i.xuid = ${xuid} AND s.xuid = 'DC1'`)) as SeriesKey;
      await tx.query(sql.unsafe`INSERT INTO series (item_id, site_id, n_observations, date_range_start, date_range_end) VALUES (${k.item_id}, ${k.site_id}, 4, ${WEEKS[0]}, ${WEEKS[3]})`);
      await writeWeeklyHistory(tx, k, WEEKS, [9, 11, 9, 11]);
      await insertForecast(tx, P, k, 'ses', '2026-02-02', [10, 0.001, 1e6, 10], [9, 0, 9, 9], [11, 1, 1e6, 11]);
      await insertBest(tx, P, k, 'ses', null, 1, 'mae');
    }
  });
});
afterAll(() => t.close());

/** Every number anywhere in the body, with its path. */
function numbers(x: unknown, path = ''): Array<[string, number]> {
  if (typeof x === 'number') return [[path, x]];
  if (x === null || typeof x !== 'object') return [];
  return Object.entries(x).flatMap(([k, v]) => numbers(v, `${path}.${k}`));
}

const reads = ['/api/kcurve/eoq', '/api/kcurve/wagner-whitin', '/api/kcurve/curve'];
const call = (path: string, params: Record<string, number>) =>
  path === '/api/kcurve/solve'
    ? t.call('post', path, { token: admin, body: { pipeline_id: P, include_items: true, ...params } })
    : t.call('get', path, { token: admin, query: { pipeline_id: P, ...params } });

describe.each([...reads, '/api/kcurve/solve'])('%s', (path) => {
  it.each([
    ['ordering_cost', { ordering_cost: 5e-324, holding_rate: 5e-324 }],
    ['ordering_cost', { ordering_cost: 5e-324 }],
    ['holding_rate', { holding_rate: 5e-324 }],
    ['holding_rate', { ordering_cost: 1e9, holding_rate: 1e-300 }],
    ['ordering_cost', { ordering_cost: 1e-300, holding_rate: 10 }],
    ['ordering_cost', { ordering_cost: 1e300 }],
  ])('a 400 naming %s for %j', async (field, params) => {
    const res = await call(path, params);
    expect(res.status).toBe(400);
    expect(res.body.detail).toContain(field);
  });

  it.each([
    [{ ordering_cost: 1e-6, holding_rate: 10 }],
    [{ ordering_cost: 1e9, holding_rate: 1e-6 }],
    [{ ordering_cost: 1e-6, holding_rate: 1e-6 }],
    [{ ordering_cost: 1e9, holding_rate: 10 }],
    [{ k: 1e-6 }],
    [{ k: 1e12 }],
    [{ ordering_cost: 1e9, holding_rate: 1e-6, k: 1e12 }],
    [{ ordering_cost: 1e-6, holding_rate: 10, k: 1e-6 }],
  ])('every number finite at the edge of the ranges, %j', async (params) => {
    const res = await call(path, params);
    expect(res.status).toBe(200);
    const bad = numbers(res.body).filter(([, v]) => !Number.isFinite(v));
    expect(bad).toEqual([]);
  });
});

describe('an IO override at the edge of its range', () => {
  let keyA: SeriesKey;
  beforeAll(async () => {
    keyA = (await t.call('get', '/api/kcurve/items', { token: admin, query: { pipeline_id: P } })).body.items[0];
  });
  afterAll(async () => {
    await t.call('post', '/api/io-overrides', { token: admin, body: { pipeline_id: P, item_id: keyA.item_id, site_id: keyA.site_id, eoq_override: null } });
  });

  it('a denormal eoq_override is a 400 naming it: D / eoq would be Infinity orders a year', async () => {
    const res = await t.call('post', '/api/io-overrides', { token: admin, body: { pipeline_id: P, item_id: keyA.item_id, site_id: keyA.site_id, eoq_override: 5e-324 } });
    expect(res.status).toBe(400);
    expect(res.body.detail).toContain('eoq_override');
  });

  it.each(['/api/kcurve/eoq', '/api/kcurve/wagner-whitin'])('the smallest accepted override keeps %s finite', async (path) => {
    const set = await t.call('post', '/api/io-overrides', { token: admin, body: { pipeline_id: P, item_id: keyA.item_id, site_id: keyA.site_id, eoq_override: 1e-6 } });
    expect(set.status).toBe(200);
    const res = await call(path, {});
    expect(res.status).toBe(200);
    expect(res.body.items.find((i: { item_id: number; site_id: number }) => i.item_id === keyA.item_id && i.site_id === keyA.site_id).eoq_override).toBe(1e-6);
    expect(numbers(res.body).filter(([, v]) => !Number.isFinite(v))).toEqual([]);
  });
});

describe('a unit cost so small that r c / 52 underflows', () => {
  let token: string;
  let Q: number;
  beforeAll(async () => {
    const b = await t.newTenant('kcurve-denormal');
    token = await t.login(b.admin);
    Q = await createPipeline(t, token, 'Main');
    await withTenant(t.db, b.accountId, async (tx) => {
      await tx.query(sql.unsafe`INSERT INTO sites (xuid, name) VALUES ('DC1', 'Central DC')`);
      await tx.query(sql.unsafe`INSERT INTO items (xuid, name, avg_unit_cost, attributes) VALUES ('IZ', 'Dust', 1e-320, '{}')`);
      const k = (await tx.one(sql.unsafe`SELECT i.id AS item_id, s.id AS site_id FROM items i, sites s WHERE i.xuid = 'IZ' AND s.xuid = 'DC1'`)) as SeriesKey;
      await tx.query(sql.unsafe`INSERT INTO series (item_id, site_id, n_observations, date_range_start, date_range_end) VALUES (${k.item_id}, ${k.site_id}, 4, ${WEEKS[0]}, ${WEEKS[3]})`);
      await writeWeeklyHistory(tx, k, WEEKS, [9, 11, 9, 11]);
      await insertForecast(tx, Q, k, 'ses', '2026-02-02', [10, 10, 10, 10], [9, 9, 9, 9], [11, 11, 11, 11]);
      await insertBest(tx, Q, k, 'ses', null, 1, 'mae');
    });
  });

  it.each(['/api/kcurve/eoq', '/api/kcurve/wagner-whitin'])('%s is a 400 naming holding_rate and the SKU-site', async (path) => {
    const res = await t.call('get', path, { token, query: { pipeline_id: Q, holding_rate: 1e-6 } });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/^query\.holding_rate: the holding cost r c \/ 52 of SKU-site \d+_\d+ \(unit cost 1e-320\) is 0/);
  });

  it('solve at the catalogue costs is a 400: r c / 52 stays above 0 but the EOQ overflows', async () => {
    const res = await t.call('post', '/api/kcurve/solve', { token, body: { pipeline_id: Q } });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/^body\.ordering_cost: the EOQ or its annual cost of SKU-site \d+_\d+ \(demand 520, unit cost 1e-320\) overflows/);
  });
});
