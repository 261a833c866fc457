import { sql, withTenant } from '../../db/pool';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';

/*
 * The demand-stream switches of supply and MEIO scenarios (docs/SUPPLY.md "Which demand a plan covers",
 * docs/INVENTORY_CONFIG.md "Which demand MEIO plans"): defaults, partial updates, validation, OpenAPI.
 */
let t: TestApp;
let a: TestTenant;
let planner: string;
beforeAll(async () => {
  t = await startTestApp();
  a = await t.newTenant('demand-streams');
  planner = await t.login(a.planner);
});
afterAll(() => t.close());

const SUPPLY = '/api/supply/scenarios';
const MEIO = '/api/meio/scenarios';
const SUPPLY_FIELDS = ['demand_statistical', 'demand_netted', 'demand_causal', 'demand_maintenance'];
const MEIO_FIELDS = ['demand_statistical', 'demand_causal', 'demand_maintenance'];
const pick = (o: Record<string, unknown>, keys: string[]) => Object.fromEntries(keys.map((k) => [k, o[k]]));
const stored = (table: 'supply_scenarios' | 'meio_scenarios', id: number) => withTenant(t.db, a.accountId, (tx) => tx.one(
  table === 'supply_scenarios'
    ? sql.unsafe`SELECT demand_statistical, demand_netted, demand_causal, demand_maintenance FROM supply_scenarios WHERE id = ${id}`
    : sql.unsafe`SELECT demand_statistical, demand_causal, demand_maintenance FROM meio_scenarios WHERE id = ${id}`));

describe('supply scenarios', () => {
  test('the default scenario and a new one plan statistical and maintenance demand, not netted or causal', async () => {
    const base = (await t.call('get', SUPPLY, { token: planner })).body[0];
    expect(pick(base, SUPPLY_FIELDS)).toEqual({ demand_statistical: true, demand_netted: false, demand_causal: false, demand_maintenance: true });
    const res = await t.call('post', SUPPLY, { token: planner, body: { name: 'Defaults' } });
    expect(res.status).toBe(201);
    expect(pick(res.body, SUPPLY_FIELDS)).toEqual({ demand_statistical: true, demand_netted: false, demand_causal: false, demand_maintenance: true });
  });

  test('create and update set the switches; an update changes only the ones sent', async () => {
    const res = await t.call('post', SUPPLY, { token: planner, body: { name: 'Causal instead', demand_statistical: false, demand_causal: true } });
    expect(res.status).toBe(201);
    expect(pick(res.body, SUPPLY_FIELDS)).toEqual({ demand_statistical: false, demand_netted: false, demand_causal: true, demand_maintenance: true });
    const up = await t.call('put', `${SUPPLY}/${res.body.id}`, { token: planner, body: { demand_maintenance: false, demand_netted: true } });
    expect(up.status).toBe(200);
    expect(pick(up.body, SUPPLY_FIELDS)).toEqual({ demand_statistical: false, demand_netted: true, demand_causal: true, demand_maintenance: false });
    expect(await stored('supply_scenarios', res.body.id)).toEqual({ demand_statistical: false, demand_netted: true, demand_causal: true, demand_maintenance: false });
    const one = await t.call('get', `${SUPPLY}/${res.body.id}`, { token: planner });
    expect(pick(one.body, SUPPLY_FIELDS)).toEqual(pick(up.body, SUPPLY_FIELDS));
  });

  test('a switch that is not a boolean is a 400 naming it, and nothing changes', async () => {
    const s = (await t.call('post', SUPPLY, { token: planner, body: { name: 'Untouched' } })).body;
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ demand_maintenance: 'yes' }, 'body.demand_maintenance must be boolean'],
      [{ demand_causal: null }, 'body.demand_causal must be boolean'],
      [{ demand_netted: 1 }, 'body.demand_netted must be boolean'],
      [{ demand_statistical: 'false' }, 'body.demand_statistical must be boolean'],
      [{ demand_streams: { maintenance: true } }, "body: unknown field 'demand_streams'"],
    ];
    for (const [body, detail] of cases) {
      const up = await t.call('put', `${SUPPLY}/${s.id}`, { token: planner, body });
      expect([JSON.stringify(body), up.status, up.body.detail]).toEqual([JSON.stringify(body), 400, detail]);
    }
    const created = await t.call('post', SUPPLY, { token: planner, body: { name: 'Never', demand_maintenance: 'on' } });
    expect([created.status, created.body.detail]).toEqual([400, 'body.demand_maintenance must be boolean']);
    expect((await t.call('get', SUPPLY, { token: planner, query: { name: 'Never' } })).body).toEqual([]);
    expect(await stored('supply_scenarios', s.id)).toEqual({ demand_statistical: true, demand_netted: false, demand_causal: false, demand_maintenance: true });
  });
});

describe('MEIO scenarios', () => {
  test('defaults, create, partial update and read', async () => {
    const res = await t.call('post', MEIO, { token: planner, body: { name: 'Spares' } });
    expect(res.status).toBe(201);
    expect(pick(res.body, MEIO_FIELDS)).toEqual({ demand_statistical: true, demand_causal: false, demand_maintenance: true });
    expect(res.body).not.toHaveProperty('demand_netted');
    const up = await t.call('put', `${MEIO}/${res.body.id}`, { token: planner, body: { demand_maintenance: false, demand_causal: true } });
    expect(up.status).toBe(200);
    expect(pick(up.body, MEIO_FIELDS)).toEqual({ demand_statistical: true, demand_causal: true, demand_maintenance: false });
    expect(await stored('meio_scenarios', res.body.id)).toEqual({ demand_statistical: true, demand_causal: true, demand_maintenance: false });
    const one = await t.call('get', `${MEIO}/${res.body.id}`, { token: planner });
    expect(pick(one.body, MEIO_FIELDS)).toEqual(pick(up.body, MEIO_FIELDS));
  });

  test('bad values are 400s naming the field; MEIO has no netted switch', async () => {
    const s = (await t.call('post', MEIO, { token: planner, body: { name: 'Kept' } })).body;
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ demand_maintenance: 'no' }, 'body.demand_maintenance must be boolean'],
      [{ demand_causal: 0 }, 'body.demand_causal must be boolean'],
      [{ demand_netted: true }, "body: unknown field 'demand_netted'"],
    ];
    for (const [body, detail] of cases) {
      const up = await t.call('put', `${MEIO}/${s.id}`, { token: planner, body });
      expect([JSON.stringify(body), up.status, up.body.detail]).toEqual([JSON.stringify(body), 400, detail]);
    }
    const created = await t.call('post', MEIO, { token: planner, body: { name: 'Never', demand_statistical: [] } });
    expect([created.status, created.body.detail]).toEqual([400, 'body.demand_statistical must be boolean']);
    expect(await stored('meio_scenarios', s.id)).toEqual({ demand_statistical: true, demand_causal: false, demand_maintenance: true });
  });
});

test('OpenAPI describes every switch in the create, update and read schemas of both scenario resources', async () => {
  const doc = (await t.call('get', '/openapi.json')).body;
  const schemaOf = (p: string, method: string, part: 'body' | 'row') => {
    const op = doc.paths[p][method];
    return part === 'body' ? op.requestBody.content['application/json'].schema : op.responses['200'].content['application/json'].schema;
  };
  for (const [base, fields] of [[SUPPLY, SUPPLY_FIELDS], [MEIO, MEIO_FIELDS]] as const) {
    const create = schemaOf(base, 'post', 'body');
    const update = schemaOf(`${base}/{id}`, 'put', 'body');
    const row = schemaOf(`${base}/{id}`, 'get', 'row');
    for (const f of fields) {
      for (const [what, s] of [['create', create], ['update', update], ['row', row]] as const) {
        expect([base, f, what, s.properties[f]?.type]).toEqual([base, f, what, 'boolean']);
        expect(String(s.properties[f].description).length).toBeGreaterThan(20);
      }
      expect(typeof create.properties[f].default).toBe('boolean');
    }
    expect(row.required).toEqual(expect.arrayContaining([...fields]));
  }
  expect(schemaOf(SUPPLY, 'post', 'body').properties.demand_maintenance.default).toBe(true);
  expect(schemaOf(MEIO, 'post', 'body').properties.demand_causal.default).toBe(false);
});
