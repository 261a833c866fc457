import { freezeVersion } from '../../db/history';
import { sql, withTenant } from '../../db/pool';
import { startTestApp, type TestApp } from '../support/testApp';

/**
 * A frozen version compared with the live plan it was frozen from shows no change, whatever order PostgreSQL reads
 * either copy in: 0.1 + 0.2 + 0.3 is 0.6000000000000001 in that order and 0.6 in the other, so float8 sums of the
 * same orders and exceptions differed by 1e-16 and the rows were "changed" (found by test/workflows/consistency).
 */
const V = '2026-06-01';
let t: TestApp;
let token: string;
let pipelineId: number;

beforeAll(async () => {
  t = await startTestApp();
  const tenant = await t.newTenant('exact-sums');
  token = await t.login(tenant.admin);
  pipelineId = await withTenant(t.db, tenant.accountId, async (tx) => {
    const p = (await tx.oneFirst(sql.unsafe`INSERT INTO scenario_pipelines (name) VALUES ('Exact sums') RETURNING id`)) as number;
    const site = (await tx.oneFirst(sql.unsafe`INSERT INTO sites (xuid, name) VALUES ('S1', 'Store 1') RETURNING id`)) as number;
    const item = (await tx.oneFirst(sql.unsafe`INSERT INTO items (xuid, name) VALUES ('I1', 'Item 1') RETURNING id`)) as number;
    await tx.query(sql.unsafe`INSERT INTO series (item_id, site_id) VALUES (${item}, ${site})`);
    const scenario = (await tx.oneFirst(sql.unsafe`SELECT id FROM supply_scenarios WHERE is_default`)) as number;
    await tx.query(sql.unsafe`
      INSERT INTO supply_runs (run_id, pipeline_id, scenario_id, status, planning_date, kpis, finished_at)
      VALUES ('run-x', ${p}, ${scenario}, 'completed', ${V}, '{}'::jsonb, now())`);
    for (const [n, cost] of [[1, 0.1], [2, 0.2], [3, 0.3]]) {
      await tx.query(sql.unsafe`
        INSERT INTO supply_orders (run_id, pipeline_id, scenario_id, engine_order_id, item_id, site_id, order_type, status, qty, requested_qty,
          release_week, arrival_week, need_week, release_date, arrival_date, unit_cost)
        VALUES ('run-x', ${p}, ${scenario}, ${n}, ${item}, ${site}, 'BUY', 'planned', 1, 1, 0, 1, 1, '2026-06-01', '2026-06-08', ${cost})`);
      await tx.query(sql.unsafe`
        INSERT INTO supply_exceptions (run_id, item_id, site_id, type, week, end_week, qty, severity, description)
        VALUES ('run-x', ${item}, ${site}, 'shortage', ${n}, ${n}, ${cost}, 'high', 'short')`);
    }
    await freezeVersion(tx, { pipelineId: p, archiveDate: V, comment: null, pin: false, createdBy: 'test@example.com', jobId: null, source: 'api' });
    // the frozen copy in the other order: a fresh table is read in the order its rows went in
    for (const table of ['history_supply_orders', 'history_supply_exceptions']) {
      const id = sql.identifier([table]);
      const cost = sql.identifier([table === 'history_supply_orders' ? 'unit_cost' : 'qty']);
      await tx.query(sql.unsafe`CREATE TEMP TABLE reversed ON COMMIT DROP AS SELECT * FROM ${id}`);
      await tx.query(sql.unsafe`DELETE FROM ${id}`);
      await tx.query(sql.unsafe`INSERT INTO ${id} SELECT * FROM reversed ORDER BY ${cost} DESC`);
      await tx.query(sql.unsafe`DROP TABLE reversed`);
    }
    return p;
  });
});
afterAll(() => t.close());

test.each(['order', 'exceptions'])('%s: the frozen version and the live plan it came from compare unchanged', async (dimension) => {
  const res = await t.call('get', '/api/compare/versions', { token, query: { pipeline_id: pipelineId, base: V, target: 'live', dimension } });
  expect(res.status).toBe(200);
  expect(res.body.rows.length).toBeGreaterThan(0);
  expect(res.body.rows.map((r: { changed: boolean }) => r.changed)).toEqual(res.body.rows.map(() => false));
  if (dimension === 'order') expect(res.body.rows[0]).toMatchObject({ base_value: 0.6, target_value: 0.6, delta_value: 0, base_n_orders: 3 });
});
