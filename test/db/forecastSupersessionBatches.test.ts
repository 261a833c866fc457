import { supersedeForecasts } from '../../db/forecastSupersession';
import { openPool, sql, withTenant, type Db, type Tx } from '../../db/pool';
import { createTestAccount } from '../support/tenantPool';

/**
 * The forecast step's supersession plans a few items at a time and upserts a page of rows per statement
 * (db/forecastSupersession.ts), so neither the worker nor a PostgreSQL backend holds every edge's rows at once. One
 * item per batch and two rows per page must store exactly what one batch and one statement store.
 */
let db: Db;
let accountId: string;
let pipelineId: number;
const ids: Record<string, number> = {};

class Rollback extends Error {}

beforeAll(async () => {
  db = await openPool(process.env.DATABASE_URL!, 2);
  accountId = (await createTestAccount(db, process.env.DATABASE_URL!, `supersession-batches-${Date.now()}`)).id;
  await withTenant(db, accountId, async (tx) => {
    pipelineId = (await tx.oneFirst(sql.unsafe`INSERT INTO scenario_pipelines (name) VALUES ('batches') RETURNING id`)) as number;
    await tx.query(sql.unsafe`INSERT INTO items (xuid, name) SELECT x, x FROM unnest(${sql.array(['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H'], 'text')}) x`);
    await tx.query(sql.unsafe`INSERT INTO sites (xuid, name) VALUES ('S1', 'S1'), ('S2', 'S2')`);
    for (const r of (await tx.any(sql.unsafe`SELECT xuid, id FROM items UNION ALL SELECT xuid, id FROM sites`)) as any[]) ids[r.xuid] = r.id;
    // every item but C and E has history at both sites; C (the chain's end) and E (a split's side) get created rows
    await tx.query(sql.unsafe`
      INSERT INTO series (item_id, site_id) SELECT i.id, s.id FROM items i, sites s WHERE i.xuid NOT IN ('C', 'E')`);
    await tx.query(sql.unsafe`
      INSERT INTO forecast_results (pipeline_id, item_id, site_id, method, start_week, yhat, yhat_lower, yhat_upper, level, params)
      SELECT ${pipelineId}, k.item_id, k.site_id, m, '2026-06-01', ARRAY[k.item_id + 1, k.site_id * 2, 3]::float8[], ARRAY[1, 1, 1]::float8[],
        ARRAY[k.item_id * 3, 9, 9]::float8[], 0.9, '{"method_source": "recommended"}'
      FROM series k, unnest(ARRAY['ses', 'naive', 'theta']) m`);
    const edge = (from: string, to: string, site: string | null, date: string | null, factor: number) => tx.query(sql.unsafe`
      INSERT INTO supersession (from_item_id, to_item_id, site_id, effective_date, demand_factor)
      VALUES (${ids[from]}, ${ids[to]}, ${site === null ? null : ids[site]}, ${date}::date, ${factor})`);
    await edge('A', 'B', null, null, 1);
    await edge('B', 'C', null, '2026-06-10', 1);
    await edge('D', 'E', 'S2', null, 0.5);
    await edge('D', 'F', 'S2', null, 0.5);
    await edge('G', 'H', null, null, 2);
  });
}, 120_000);
afterAll(async () => {
  await db.end();
});

/** The supersession and the rows it leaves, rolled back so that every call starts from the same rows. */
const trial = (bounds: { batchItems: number; pageRows: number }) => withTenant(db, accountId, async (tx) => {
  let seen: { result: unknown; rows: unknown[] } | undefined;
  await tx.transaction(async (sp: Tx) => {
    const result = await supersedeForecasts(sp, pipelineId, 'job-batches', bounds);
    const again = await supersedeForecasts(sp, pipelineId, 'job-batches', bounds);
    const rows = await sp.any(sql.unsafe`
      SELECT item_id, site_id, method, yhat, yhat_lower, yhat_upper, params FROM forecast_results
      WHERE pipeline_id = ${pipelineId} ORDER BY item_id, site_id, method`);
    seen = { result: { result, again }, rows: [...rows] };
    throw new Rollback();
  }).catch((e) => { if (!(e instanceof Rollback)) throw e; });
  return seen!;
});

test('one item per batch and two rows per statement store what one batch and one statement store', async () => {
  const whole = await trial({ batchItems: 1000, pageRows: 100_000 });
  const small = await trial({ batchItems: 1, pageRows: 2 });
  expect(small).toEqual(whole);
  // the chain A → B → C, the split of D at S2 and G → H (factor 2) all moved: 4 predecessors at 2 sites, D at S2 only
  expect(whole.result).toEqual({
    result: { edges: 5, movedSeries: 7, written: 3 * (2 + 2 + 2 + 1 + 1 + 1 + 2 + 2), removed: 0 },
    again: { edges: 5, movedSeries: 7, written: 0, removed: 0 },
  });
  const row = (item: string, site: string, method = 'ses') => (whole.rows as any[]).find((r) => r.item_id === ids[item] && r.site_id === ids[site] && r.method === method);
  // G → H adds twice G's forecast to H's; A's weeks reach B, and B's (with A's) from the week of 2026-06-08 reach C
  expect(row('G', 'S1').yhat).toEqual([0, 0, 0]);
  expect(row('H', 'S1').yhat).toEqual([ids.H + 1 + 2 * (ids.G + 1), 6 * ids.S1, 9]);
  expect(row('B', 'S2').yhat).toEqual([ids.A + ids.B + 2, 0, 0]);
  expect(row('C', 'S2').yhat).toEqual([0, 4 * ids.S2, 6]);
  expect(row('E', 'S2').params.supersession.created).toBe(true);
  expect(row('E', 'S1')).toBeUndefined();
});
