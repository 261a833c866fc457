import { sql, withTenant } from '../../db/pool';
import { PlanReads, answerKey } from '../../api/planReads';
import { seedSupply, PLANNING_DATE, type SupplySeed } from '../support/supplySeed';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';

/**
 * The work lists the API keeps per plan version (api/planReads.ts, migration 033): GET /api/supply/orders and
 * GET /api/exception-log answer from memory while nothing they show has changed, and read PostgreSQL again after any
 * commit that changes it, whoever makes it (the API, a worker, plain SQL).
 */

describe('PlanReads', () => {
  const body = (n: number) => ({ body: 'x'.repeat(n) });
  /** the body as text, as a client reads it */
  const text = async (p: Promise<{ body: Buffer }>) => (await p).body.toString();

  test('an answer is kept per tenant, key and version; a newer version reads again, an older one is served the newer answer', async () => {
    const c = new PlanReads(1 << 20);
    let loads = 0;
    const load = (v: string) => async () => {
      loads++;
      return { body: v };
    };
    expect(await text(c.answer('a', 1, 'k', load('one')))).toBe('one');
    expect(await text(c.answer('a', 1, 'k', load('never')))).toBe('one');
    expect(await text(c.answer('b', 1, 'k', load('other tenant')))).toBe('other tenant');
    expect(await text(c.answer('a', 1, 'k2', load('other key')))).toBe('other key');
    expect(await text(c.answer('a', 2, 'k', load('two')))).toBe('two');
    expect(await text(c.answer('a', 1, 'k', load('never')))).toBe('two');
    expect(loads).toBe(4);
    expect(c.size().answers).toBe(3);
  });

  test('what the route adds to the body is kept with it; the body is kept as its UTF-8 bytes', async () => {
    const c = new PlanReads(1 << 20);
    const a = await c.answer('a', 1, 'k', async () => ({ body: '["Überseering"]', total: 7 }));
    expect(a.total).toBe(7);
    expect([a.body.length, JSON.parse(a.body.toString())]).toEqual([16, ['Überseering']]);
    expect(c.size().bytes).toBe(16 + 2 * 'a\u0000k'.length + 200);
  });

  test('requests that arrive while a load runs share it; a failed load is not kept', async () => {
    const c = new PlanReads(1 << 20);
    let loads = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const slow = async () => {
      loads++;
      await gate;
      return { body: 'slow' };
    };
    const both = [text(c.answer('a', 1, 'k', slow)), text(c.answer('a', 1, 'k', slow))];
    release();
    expect(await Promise.all(both)).toEqual(['slow', 'slow']);
    expect(loads).toBe(1);
    await expect(c.answer('a', 1, 'bad', async () => { throw new Error('404'); })).rejects.toThrow('404');
    expect(await text(c.answer('a', 1, 'bad', async () => ({ body: 'fine now' })))).toBe('fine now');
  });

  test('the least recently read answers go when the bytes pass the budget; a budget of 0 keeps nothing; drop forgets a tenant', async () => {
    const entry = 1000 + 2 * 'a\u0000k1'.length + 200;
    const c = new PlanReads(2 * entry + 100);
    await c.answer('a', 1, 'k1', async () => body(1000));
    await c.answer('a', 1, 'k2', async () => body(1000));
    await c.answer('a', 1, 'k1', async () => body(1)); // k1 read again: k2 is now the oldest
    await c.answer('a', 1, 'k3', async () => body(1000));
    expect(c.size()).toEqual({ answers: 2, bytes: 2 * entry });
    expect(await text(c.answer('a', 1, 'k1', async () => body(5)))).toBe(body(1000).body);
    expect(await text(c.answer('a', 1, 'k2', async () => body(7)))).toBe(body(7).body);

    c.drop('a');
    expect(c.size()).toEqual({ answers: 0, bytes: 0 });

    const none = new PlanReads(0);
    let loads = 0;
    for (let i = 0; i < 3; i++) await none.answer('a', 1, 'k', async () => ({ body: String(++loads) }));
    expect(loads).toBe(3);
    expect(none.size().answers).toBe(0);
  });

  test('the key is the validated query in a fixed order, without the parameters left out', () => {
    expect(answerKey('r', { b: 2, a: 'x', c: undefined })).toBe(answerKey('r', { a: 'x', b: 2 }));
    expect(answerKey('r', { a: ['io', 'supply'] })).not.toBe(answerKey('r', { a: ['io'] }));
    expect(answerKey('r', { a: 1 })).not.toBe(answerKey('s', { a: 1 }));
  });
});

describe('the work lists over HTTP', () => {
  let t: TestApp;
  let a: TestTenant;
  let planner: string;
  let seed: SupplySeed;
  let scenarioId: number;
  let segmentId: number;
  const q = <T>(fn: (tx: any) => Promise<T>) => withTenant(t.db, a.accountId, fn);
  const planVersion = () => q((tx) => tx.oneFirst(sql.unsafe`SELECT plan_version::int FROM data_version`)) as Promise<number>;
  const dataVersion = () => q((tx) => tx.oneFirst(sql.unsafe`SELECT version::int FROM data_version`)) as Promise<number>;
  /** a change PostgreSQL makes without firing triggers, so the plan version does not move */
  const behindTheCounter = (fn: (tx: any) => Promise<unknown>) => q(async (tx) => {
    await tx.query(sql.unsafe`SET LOCAL session_replication_role = replica`);
    await fn(tx);
  });

  const orders = async () => {
    const res = await t.call('get', `/api/supply/orders?pipeline_id=${seed.pipelineId}&scenario_id=${scenarioId}`, { token: planner });
    expect(res.status).toBe(200);
    return { total: Number(res.headers['x-total-count']), rows: res.body as Array<Record<string, any>> };
  };
  const log = async (extra = '') => {
    const res = await t.call('get', `/api/exception-log?pipeline_id=${seed.pipelineId}${extra}`, { token: planner });
    expect(res.status).toBe(200);
    return res.body as { total: number; items: Array<Record<string, any>> };
  };

  beforeAll(async () => {
    t = await startTestApp();
    a = await t.newTenant('plan-reads');
    planner = await t.login(a.planner);
    seed = await seedSupply(t.db, a.accountId);
    await q(async (tx) => {
      scenarioId = (await tx.oneFirst(sql.unsafe`SELECT id FROM supply_scenarios WHERE is_default`)) as number;
      await tx.query(sql.unsafe`INSERT INTO supply_runs (run_id, pipeline_id, scenario_id, status, planning_date) VALUES ('run-1', ${seed.pipelineId}, ${scenarioId}, 'completed', ${PLANNING_DATE})`);
      for (const [n, item, site, qty] of [[1, seed.items.P, seed.sites.S1, 10], [2, seed.items.Q, seed.sites.S1, 4]]) {
        await tx.query(sql.unsafe`
          INSERT INTO supply_orders (run_id, pipeline_id, scenario_id, engine_order_id, item_id, site_id, order_type, status, qty, requested_qty,
            release_week, arrival_week, need_week, release_date, arrival_date)
          VALUES ('run-1', ${seed.pipelineId}, ${scenarioId}, ${n}, ${item}, ${site}, 'BUY', 'planned', ${qty}, ${qty}, 1, 3, 3, '2026-06-08', '2026-06-22')`);
      }
      for (const [item, site, status] of [[seed.items.P, seed.sites.S1, 'open'], [seed.items.Q, seed.sites.S1, 'open']] as const) {
        await tx.query(sql.unsafe`
          INSERT INTO exception_log (pipeline_id, item_id, site_id, exception_types, issues, status)
          VALUES (${seed.pipelineId}, ${item}, ${site}, '{supply}', '[{"type": "supply", "code": "shortage", "severity": "high", "description": "short in week 2", "week": 2}]', ${status})`);
      }
      segmentId = (await tx.oneFirst(sql.unsafe`INSERT INTO segments (name) VALUES ('only P') RETURNING id`)) as number;
      await tx.query(sql.unsafe`INSERT INTO segment_members (segment_id, item_id, site_id) VALUES (${segmentId}, ${seed.items.P}, ${seed.sites.S1})`);
    });
  }, 120_000);
  afterAll(() => t.close());

  test('an unchanged list is answered from memory: a change that bypasses the counter is not seen until the next commit that raises it', async () => {
    expect((await orders()).rows.map((r) => r.qty)).toEqual([10, 4]);
    const before = t.cache.plan.size().answers;
    await behindTheCounter((tx) => tx.query(sql.unsafe`UPDATE supply_orders SET qty = 99 WHERE engine_order_id = 1`));
    expect((await orders()).rows.map((r) => r.qty)).toEqual([10, 4]);
    expect(t.cache.plan.size().answers).toBe(before);
    // any commit to a table the lists show raises the version; the next read sees everything committed so far
    await q((tx) => tx.query(sql.unsafe`UPDATE supply_orders SET status = 'planned' WHERE engine_order_id = 2`));
    expect((await orders()).rows.map((r) => r.qty)).toEqual([99, 4]);
  });

  test('each table the lists show raises the plan version once per committed transaction, and only those', async () => {
    const v0 = await planVersion();
    await q(async (tx) => {
      await tx.query(sql.unsafe`UPDATE supply_orders SET qty = 11 WHERE engine_order_id = 1`);
      await tx.query(sql.unsafe`UPDATE supply_orders SET qty = 5 WHERE engine_order_id = 2`);
    });
    expect(await planVersion()).toBe(v0 + 1);
    const d0 = await dataVersion();
    await q((tx) => tx.query(sql.unsafe`UPDATE series_weekly SET y = y WHERE item_id = ${seed.items.P} AND site_id = ${seed.sites.S1}`));
    expect([await planVersion(), await dataVersion()]).toEqual([v0 + 1, d0 + 1]);
    await expect(q(async (tx) => {
      await tx.query(sql.unsafe`UPDATE supply_orders SET qty = 12 WHERE engine_order_id = 1`);
      throw new Error('rolled back');
    })).rejects.toThrow('rolled back');
    expect(await planVersion()).toBe(v0 + 1);
    const tables: Array<[string, (tx: any) => Promise<unknown>]> = [
      ['supply_runs', (tx) => tx.query(sql.unsafe`UPDATE supply_runs SET n_orders = 2 WHERE run_id = 'run-1'`)],
      ['firm_orders', (tx) => tx.query(sql.unsafe`INSERT INTO firm_orders (item_id, site_id, order_type, qty, release_dt, arrival_dt, external_id) VALUES (${seed.items.P}, ${seed.sites.S1}, 'BUY', 3, '2026-06-01', '2026-06-15', 'PO-1')`)],
      ['supply_scenarios', (tx) => tx.query(sql.unsafe`UPDATE supply_scenarios SET name = name WHERE id = ${scenarioId}`)],
      ['scenario_pipelines', (tx) => tx.query(sql.unsafe`UPDATE scenario_pipelines SET name = name WHERE id = ${seed.pipelineId}`)],
      ['exception_log', (tx) => tx.query(sql.unsafe`UPDATE exception_log SET updated_at = now() WHERE pipeline_id = ${seed.pipelineId}`)],
      ['segments', (tx) => tx.query(sql.unsafe`UPDATE segments SET name = name WHERE id = ${segmentId}`)],
      ['segment_members', (tx) => tx.query(sql.unsafe`DELETE FROM segment_members WHERE segment_id = -1`)],
      ['items', (tx) => tx.query(sql.unsafe`UPDATE items SET name = name WHERE id = ${seed.items.P}`)],
      ['sites', (tx) => tx.query(sql.unsafe`UPDATE sites SET name = name WHERE id = ${seed.sites.S1}`)],
    ];
    const raised: string[] = [];
    for (const [name, change] of tables) {
      const v = await planVersion();
      await q(change);
      if ((await planVersion()) === v + 1) raised.push(name);
    }
    expect(raised).toEqual(tables.map(([name]) => name));
  });

  test('orders: a worker\'s edit, a firm order and a renamed item show on the next read', async () => {
    await q((tx) => tx.query(sql.unsafe`UPDATE supply_orders SET qty = 7 WHERE engine_order_id = 1`));
    let list = await orders();
    expect(list.rows.find((r) => !r.is_firm && r.item_id === seed.items.P)!.qty).toBe(7);
    expect(list.rows.filter((r) => r.is_firm).map((r) => r.external_id)).toEqual(['PO-1']);
    expect(list.total).toBe(3);
    await q((tx) => tx.query(sql.unsafe`UPDATE items SET name = 'Item P, renamed' WHERE id = ${seed.items.P}`));
    list = await orders();
    expect(list.rows.filter((r) => r.item_id === seed.items.P).map((r) => r.item_name)).toEqual(['Item P, renamed', 'Item P, renamed']);
    await q((tx) => tx.query(sql.unsafe`DELETE FROM firm_orders WHERE external_id = 'PO-1'`));
    list = await orders();
    expect([list.total, list.rows.some((r) => r.is_firm)]).toEqual([2, false]);
  });

  test('exception log: a status set elsewhere, a segment\'s new member and a deleted pipeline show on the next read', async () => {
    expect((await log('&status=open')).total).toBe(2);
    expect((await log(`&segment_id=${segmentId}`)).items.map((i) => i.item_id)).toEqual([seed.items.P]);
    await q((tx) => tx.query(sql.unsafe`UPDATE exception_log SET status = 'resolved' WHERE item_id = ${seed.items.Q}`));
    expect((await log('&status=open')).items.map((i) => i.item_id)).toEqual([seed.items.P]);
    const res = await t.call('patch', `/api/exception-log/${(await log('&status=open')).items[0].id}/status`, { token: planner, body: { status: 'snoozed', snoozed_until: '2099-01-01' } });
    expect(res.status).toBe(200);
    expect((await log('&status=open')).total).toBe(0);
    await q((tx) => tx.query(sql.unsafe`INSERT INTO segment_members (segment_id, item_id, site_id) VALUES (${segmentId}, ${seed.items.Q}, ${seed.sites.S1})`));
    expect((await log(`&segment_id=${segmentId}`)).items.map((i) => i.item_id)).toEqual([seed.items.P, seed.items.Q]);
    await q((tx) => tx.query(sql.unsafe`DELETE FROM segments WHERE id = ${segmentId}`));
    expect((await t.call('get', `/api/exception-log?pipeline_id=${seed.pipelineId}&segment_id=${segmentId}`, { token: planner })).status).toBe(404);
  });
});
