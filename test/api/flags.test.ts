/**
 * Flags that are not booleans (docs/API.md "Flags", a choice where the spec is silent): a boolean query parameter
 * takes exactly `true` or `false`, a boolean body field a JSON boolean; anything else is a 400 naming it and changes
 * nothing, and every boolean query parameter says so in /openapi.json. The spec's one exception, a supply scenario's
 * coerced flags, is pinned in test/api/supplyScenarios.test.ts.
 */
import { FLAG_NOTE } from '../../api/openapi';
import { sql, withTenant } from '../../db/pool';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';

let t: TestApp;
let a: TestTenant;
let admin: string;
let items: { A: number; B: number };

beforeAll(async () => {
  t = await startTestApp();
  a = await t.newTenant('flags');
  admin = await t.login(a.admin);
  items = await withTenant(t.db, a.accountId, async (tx) => ({
    A: (await tx.oneFirst(sql.unsafe`INSERT INTO items (xuid, name) VALUES ('A', 'Item A') RETURNING id`)) as number,
    B: (await tx.oneFirst(sql.unsafe`INSERT INTO items (xuid, name) VALUES ('B', 'Item B') RETURNING id`)) as number,
  }));
}, 120_000);
afterAll(() => t.close());

const edges = () => withTenant(t.db, a.accountId, (tx) => tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM supersession`)) as Promise<number>;

test('a boolean query parameter is true or false, lower case; 1, 0, yes, TRUE and empty are 400 naming it', async () => {
  for (const value of ['true', 'false']) expect((await t.call('get', '/api/supersession', { token: admin, query: { active: value } })).status).toBe(200);
  for (const value of ['1', '0', 'yes', 'TRUE', 'True', '']) {
    const res = await t.call('get', '/api/supersession', { token: admin, query: { active: value } });
    expect([value, res.status, res.body.detail]).toEqual([value, 400, 'query.active must be boolean']);
  }
});

test('a boolean body field is a JSON boolean; "true", 1 and null are 400 naming it and nothing is written', async () => {
  for (const value of ['true', 1, null]) {
    const res = await t.call('post', '/api/supersession', { token: admin, body: { from_item_id: items.A, to_item_id: items.B, stock_rollable: value } });
    expect([JSON.stringify(value), res.status, res.body.detail]).toEqual([JSON.stringify(value), 400, 'body.stock_rollable must be boolean']);
  }
  expect(await edges()).toBe(0);
  expect((await t.call('post', '/api/supersession', { token: admin, body: { from_item_id: items.A, to_item_id: items.B, stock_rollable: false } })).status).toBe(201);
  expect(await edges()).toBe(1);
});

test('every boolean query parameter of /openapi.json states what it takes', async () => {
  const doc = (await t.call('get', '/openapi.json', {})).body;
  const flags = Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, ops]) =>
    Object.entries(ops).flatMap(([method, op]) => (op.parameters ?? [])
      .filter((p: any) => p.in === 'query' && p.schema?.type === 'boolean')
      .map((p: any) => ({ at: `${method} ${path} ${p.name}`, description: p.description as string }))));
  expect(flags.length).toBeGreaterThan(20);
  expect(flags.filter((f) => !f.description.endsWith(FLAG_NOTE))).toEqual([]);
  expect(doc.info.description).toMatch(/Boolean query parameters take `true` or `false` exactly/);
});
