import { sql, withTenant } from '../../db/pool';
import { planSupply } from '../../domain/supply/engine';
import type { FirmOrderInput } from '../../domain/supply/types';
import { isFinished, okBody, waitForJob } from '../support/jobs';
import { PLANNING_DATE, seedInput, seedSupply, type SupplySeed } from '../support/supplySeed';
import { startTestWorker, type TestWorker } from '../support/temporal';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';

let tw: TestWorker;
let t: TestApp;
let a: TestTenant;
let planner: string;
let admin: string;
let seed: SupplySeed;
beforeAll(async () => {
  tw = await startTestWorker();
  t = await startTestApp({ temporal: { client: tw.client, taskQueue: tw.taskQueue } });
  a = await t.newTenant('supply-inputs');
  planner = await t.login(a.planner);
  admin = await t.login(a.admin);
  seed = await seedSupply(t.db, a.accountId);
}, 120_000);
afterAll(async () => {
  await t.close();
  await tw.close();
});

const ok = okBody;

test('firm orders, sales returns, capacity and the scenario\'s flags all reach the engine exactly as entered through the API', async () => {
  const s = seed.sites;
  // firm orders: a released BUY of Q arriving in week 1 (rule 1 blocks BUY for Q before week -1 → never), a firm
  // TRANSFER of P into S2 not yet shipped (indirect demand at the DC), and a received one that counts for nothing
  const firm = [
    { external_id: 'PO-1', item_id: seed.items.Q, site_id: s.S1, source_site_id: s.V, order_type: 'buy', qty: 12, release_dt: '2026-05-25T00:00:00Z', arrival_dt: '2026-06-08T00:00:00Z', erp_status: 'released' },
    { external_id: 'TO-1', item_id: seed.items.P, site_id: s.S2, source_site_id: s.DC, order_type: 'TRANSFER', qty: 5, release_dt: '2026-06-08T00:00:00Z', arrival_dt: '2026-06-15T00:00:00Z' },
    { external_id: 'PO-0', item_id: seed.items.P, site_id: s.S1, source_site_id: s.DC, order_type: 'TRANSFER', qty: 40, received_qty: 40, release_dt: '2026-05-18T00:00:00Z', arrival_dt: '2026-05-25T00:00:00Z', erp_status: 'received' },
  ];
  const ids: number[] = [];
  for (const f of firm) ids.push(ok(await t.call('post', '/api/supply/firm-orders', { token: planner, body: f }), 201).id);
  // a return of 3 units of P at S2 in week 2
  ok(await t.call('post', '/api/supply/sales-returns', { token: admin, body: { item_id: seed.items.P, site_id: s.S2, qty: 3, return_date: '2026-06-17' } }), 201);
  // the DC ships at most 12 a week, nothing in week 3
  ok(await t.call('put', `/api/supply/capacity/${s.DC}`, { token: admin, body: { period_start: null, qty: 12 } }));
  ok(await t.call('put', `/api/supply/capacity/${s.DC}`, { token: admin, body: { period_start: '2026-06-22', qty: 0 } }));
  // a scenario with both document 2 §4.2 flags on, one of them given as a string
  const scenario = ok(await t.call('post', '/api/supply/scenarios', { token: planner, body: { name: 'Strict' } }), 201).id;
  ok(await t.call('put', `/api/supply/scenarios/${scenario}/param-overrides`, { token: planner, body: { firm_orders_block_horizon: 'yes', respect_lead_time: true } }));

  const started = ok(await t.call('post', '/api/supply/run', { token: planner, body: { pipeline_id: seed.pipelineId, scenario_id: scenario } }));
  const job = await waitForJob(t, planner, started.job_id, isFinished, 120_000);
  expect([job.status, job.error]).toEqual(['completed', null]);

  // the same input written out by hand
  const items = seedInput(seed);
  const asInput = (f: (typeof firm)[number], id: number): FirmOrderInput => ({
    id, site_id: f.site_id, source_site_id: f.source_site_id, order_type: f.order_type.toUpperCase(), qty: f.qty, received_qty: f.received_qty ?? 0,
    erp_status: f.erp_status ?? 'firm', release_dt: f.release_dt, arrival_dt: f.arrival_dt,
  });
  items[0].firm_orders = [asInput(firm[2], ids[2]), asInput(firm[1], ids[1])];
  items[1].firm_orders = [asInput(firm[0], ids[0])];
  const returns = new Float64Array(52);
  returns[2] = 3;
  items[0].sites.find((x) => x.site_id === s.S2)!.returns = returns;
  const capacity = Array.from({ length: 52 }, (_, w) => ({ site_id: s.DC, week: w, qty: w === 3 ? 0 : 12 }));
  const expected = planSupply({ planning_date: PLANNING_DATE, flags: { firm_orders_block_horizon: true, respect_lead_time: true }, items, capacity });
  expect(expected.errors).toEqual([]);

  const rows = await withTenant(t.db, a.accountId, (tx) => tx.any(sql.unsafe`
    SELECT item_id, site_id, order_type, kind, status, qty, requested_qty, release_week, arrival_week FROM supply_orders WHERE run_id = ${job.job_id}
    ORDER BY item_id, site_id, arrival_week, release_week, qty`));
  const want = expected.orders
    .map((o) => ({ item_id: o.item_id, site_id: o.site_id, order_type: o.order_type, kind: o.kind, status: o.status, qty: o.qty, requested_qty: o.requested_qty, release_week: o.release_week, arrival_week: o.arrival_week }))
    .sort((x, y) => x.item_id - y.item_id || x.site_id - y.site_id || x.arrival_week - y.arrival_week || x.release_week - y.release_week || x.qty - y.qty);
  expect(rows).toEqual(want);

  // and the effects are visible: capacity cut transfers out of the DC (none planned in week 3), the DC carries the
  // firm transfer as indirect demand, the return lowers S2's gross requirement in week 2, rule 4 kept Q's BUY out of
  // weeks 0-2 (its lead time is 3)
  const transfers = rows.filter((r: any) => r.order_type === 'TRANSFER');
  expect(transfers.some((r: any) => r.status === 'constrained' || r.status === 'delayed')).toBe(true);
  // (the post-processor's expedites and pre-positioning lie outside capacity by design)
  expect(transfers.filter((r: any) => r.kind === 'PLANNED' && r.release_week === 3)).toEqual([]);
  const used = await withTenant(t.db, a.accountId, (tx) => tx.any(sql.unsafe`
    SELECT week, sum(qty)::float8 AS qty FROM supply_capacity_used WHERE run_id = ${job.job_id} AND site_id = ${s.DC} GROUP BY week ORDER BY week`));
  expect(used.every((u: any) => u.qty <= 12 + 1e-9 && u.week !== 3)).toBe(true);
  const plan = await withTenant(t.db, a.accountId, (tx) => tx.one(sql.unsafe`
    SELECT (SELECT indirect[2] FROM supply_plans WHERE run_id = ${job.job_id} AND item_id = ${seed.items.P} AND site_id = ${s.DC}) AS dc_indirect_week1,
      (SELECT gross[3] FROM supply_plans WHERE run_id = ${job.job_id} AND item_id = ${seed.items.P} AND site_id = ${s.S2}) AS s2_gross_week2,
      (SELECT receipts_firm[2] FROM supply_plans WHERE run_id = ${job.job_id} AND item_id = ${seed.items.Q} AND site_id = ${s.S1}) AS q_firm_week1`));
  const s2 = expected.plans.find((p) => p.item_id === seed.items.P && p.site_id === s.S2)!;
  expect(plan).toEqual({ dc_indirect_week1: expected.plans.find((p) => p.item_id === seed.items.P && p.site_id === s.DC)!.indirect[1], s2_gross_week2: s2.demand[2] + s2.indirect[2] - 3, q_firm_week1: 12 });
  expect(rows.filter((r: any) => r.item_id === seed.items.Q && r.kind === 'PLANNED' && r.release_week < 0)).toEqual([]);
  const run = (await withTenant(t.db, a.accountId, (tx) => tx.one(sql.unsafe`SELECT flags, (checks->>'ok')::boolean AS ok FROM supply_runs WHERE run_id = ${job.job_id}`))) as any;
  expect(run).toEqual({ flags: { firm_orders_block_horizon: true, respect_lead_time: true }, ok: true });

  // the merged order list shows the two firm orders that still count as supply beside the engine's
  const merged = await t.call('get', '/api/supply/orders', { token: planner, query: { pipeline_id: seed.pipelineId, scenario_id: scenario, firm_only: true } });
  expect(merged.body.map((o: any) => [o.supply_id, o.status, o.arrival_week, o.remaining_qty])).toEqual([
    [`FIRM_${ids[1]}`, 'firm', 2, 5], [`FIRM_${ids[0]}`, 'released', 1, 12],
  ]);
  const received = await t.call('get', '/api/supply/orders', { token: planner, query: { pipeline_id: seed.pipelineId, scenario_id: scenario, firm_only: true, status: 'received' } });
  expect(received.body.map((o: any) => [o.supply_id, o.remaining_qty])).toEqual([[`FIRM_${ids[2]}`, 0]]);
}, 180_000);

test('supersession in the supply step: the replaced item is not sourced and its stock rolls to its successor (document 2 §4.4 rules 4, 5)', async () => {
  const s = seed.sites;
  // P is replaced by Q everywhere, from before the planning date
  await withTenant(t.db, a.accountId, (tx) => tx.query(sql.unsafe`
    INSERT INTO supersession (from_item_id, to_item_id, site_id, effective_date, stock_rollable) VALUES (${seed.items.P}, ${seed.items.Q}, NULL, '2026-05-01', true)`));
  const scenario = (await withTenant(t.db, a.accountId, (tx) => tx.oneFirst(sql.unsafe`SELECT id FROM supply_scenarios WHERE is_default`))) as number;
  const started = ok(await t.call('post', '/api/supply/run', { token: planner, body: { pipeline_id: seed.pipelineId, scenario_id: scenario } }));
  const job = await waitForJob(t, planner, started.job_id, isFinished, 120_000);
  expect([job.status, job.error]).toEqual(['completed', null]);
  const rows = await withTenant(t.db, a.accountId, (tx) => tx.any(sql.unsafe`
    SELECT p.item_id, p.site_id, p.opening, (SELECT count(*)::int FROM supply_orders o WHERE o.run_id = p.run_id AND o.item_id = p.item_id AND o.site_id = p.site_id) AS orders,
      (SELECT sum(v) FROM unnest(p.indirect) v)::float8 AS indirect
    FROM supply_plans p WHERE p.run_id = ${job.job_id} ORDER BY p.item_id, p.site_id`));
  // P: 12 at S1 and 30 at the DC are gone to Q (Q is planned at S1 only, so the DC's 30 has nowhere to go); no orders,
  // no indirect demand at its DC; Q at S1 opens with P's 12
  expect(rows).toEqual([
    { item_id: seed.items.P, site_id: s.DC, opening: 0, orders: 0, indirect: 0 },
    { item_id: seed.items.P, site_id: s.S1, opening: 0, orders: 0, indirect: 0 },
    { item_id: seed.items.P, site_id: s.S2, opening: 0, orders: 0, indirect: 0 },
    { item_id: seed.items.Q, site_id: s.S1, opening: 12, orders: expect.any(Number), indirect: 0 },
  ]);
  const notes = await withTenant(t.db, a.accountId, (tx) => tx.anyFirst(sql.unsafe`SELECT message FROM supply_item_notes WHERE run_id = ${job.job_id} AND item_id = ${seed.items.P}`));
  expect(notes).toEqual([`superseded on an active global edge: routes ${seed.routes.V_DC}, ${seed.routes.DC_S1}, ${seed.routes.DC_S2} (BUY, BUILD, TRANSFER, BALANCING) blocked`]);
}, 180_000);
