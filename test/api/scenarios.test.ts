import { FORECAST_METHODS } from '../../api/routes/scenarios/schemas';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';

let t: TestApp;
let a: TestTenant;
let admin: string;
let planner: string;
let plain: string;
beforeAll(async () => {
  t = await startTestApp();
  a = await t.newTenant('scen-a');
  admin = await t.login(a.admin);
  planner = await t.login(a.planner);
  plain = await t.login(await t.addUser(a.accountId, { role: 'user' }));
});
afterAll(() => t.close());

const ts = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
let seq = 0;
const uniqueName = (label: string) => `${label} ${Date.now()}-${(seq += 1)}`;

async function create(body: Record<string, unknown>, token = planner) {
  const res = await t.call('post', '/api/forecast/scenarios', { token, body });
  expect([res.status, res.body]).toEqual([201, expect.anything()]);
  return res.body;
}

async function auditOf(entityId: number, action: string) {
  const res = await t.call('get', '/api/audit-log', { token: admin, query: { entity_type: 'forecast_scenario', entity_id: String(entityId), action } });
  expect(res.status).toBe(200);
  return res.body.items;
}

describe('create and read', () => {
  test('defaults: not baseline, 52 weeks, no methods, empty settings; created_by is the caller', async () => {
    const name = uniqueName('Defaults');
    const res = await t.call('post', '/api/forecast/scenarios', { token: planner, body: { name: `  ${name}  ` } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(Number), name, description: null, is_baseline: false, horizon_weeks: 52, methods: [], settings: {},
      created_by: a.planner.email, created_at: ts, updated_at: ts,
    });
    const one = await t.call('get', `/api/forecast/scenarios/${res.body.id}`, { token: plain });
    expect(one.status).toBe(200);
    expect(one.body).toEqual(res.body);
  });

  test('every documented field is stored as sent', async () => {
    const body = {
      name: uniqueName('Full'), description: 'Intermittent items, long horizon', horizon_weeks: 104,
      methods: ['croston', 'sba', 'tsb', 'adida'], settings: { season_length: 52, intervals: [80, 95], nested: { a: true } },
    };
    const created = await create(body);
    expect(created).toEqual({ ...body, id: expect.any(Number), is_baseline: false, created_by: a.planner.email, created_at: ts, updated_at: ts });
  });

  test('accepts every documented method', async () => {
    const created = await create({ name: uniqueName('All methods'), methods: [...FORECAST_METHODS] });
    expect(created.methods).toEqual([...FORECAST_METHODS]);
    expect(FORECAST_METHODS).toHaveLength(16);
  });

  test('list is ordered by id, paginated with skip and limit, and counts in X-Total-Count', async () => {
    const tenant = await t.newTenant('scen-list');
    const token = await t.login(tenant.planner);
    const ids: number[] = [];
    for (const n of ['one', 'two', 'three']) {
      const res = await t.call('post', '/api/forecast/scenarios', { token, body: { name: n } });
      ids.push(res.body.id);
    }
    const all = await t.call('get', '/api/forecast/scenarios', { token });
    expect(all.status).toBe(200);
    expect(all.body.map((s: { id: number; name: string }) => [s.id, s.name])).toEqual([[ids[0], 'one'], [ids[1], 'two'], [ids[2], 'three']]);
    expect(all.headers['x-total-count']).toBe('3');
    const page = await t.call('get', '/api/forecast/scenarios', { token, query: { skip: 1, limit: 1 } });
    expect(page.body.map((s: { id: number }) => s.id)).toEqual([ids[1]]);
    expect(page.headers['x-total-count']).toBe('3');
    for (const [query, message] of [
      [{ limit: 1001 }, 'query.limit must be <= 1000'],
      [{ limit: 0 }, 'query.limit must be >= 1'],
      [{ skip: -1 }, 'query.skip must be >= 0'],
      [{ page: 2 }, "query: unknown field 'page'"],
    ] as const) {
      const res = await t.call('get', '/api/forecast/scenarios', { token, query });
      expect([res.status, res.body.detail]).toEqual([400, message]);
    }
  });
  test('list filters by part of the name (ignoring case, % and _ literal) and by baseline, and sorts by a declared column', async () => {
    const tenant = await t.newTenant('scen-filter');
    const token = await t.login(tenant.planner);
    const made: Record<string, number> = {};
    for (const [name, is_baseline] of [['Spares North', false], ['spares south', true], ['Fast movers', false], ['100% fill', false]] as const) {
      made[name] = (await t.call('post', '/api/forecast/scenarios', { token, body: { name, is_baseline } })).body.id;
    }
    const names = async (query: Record<string, unknown>) => {
      const res = await t.call('get', '/api/forecast/scenarios', { token, query });
      expect(res.status).toBe(200);
      return [res.headers['x-total-count'], res.body.map((r: { name: string }) => r.name)];
    };
    expect(await names({ name: 'SPARES' })).toEqual(['2', ['Spares North', 'spares south']]);
    expect(await names({ name: '%' })).toEqual(['1', ['100% fill']]);
    expect(await names({ name: '_' })).toEqual(['0', []]);
    expect(await names({ is_baseline: true })).toEqual(['1', ['spares south']]);
    expect(await names({ sort: 'name', order: 'desc', limit: 2 })).toEqual(['4', ['spares south', 'Spares North']]);
    expect(await names({ sort: 'id', order: 'desc', skip: 3 })).toEqual(['4', ['Spares North']]);
    const bad = await t.call('get', '/api/forecast/scenarios', { token, query: { sort: 'settings' } });
    expect([bad.status, bad.body.detail]).toEqual([400, expect.stringContaining('query.sort')]);
    expect(made['Spares North']).toBeLessThan(made['100% fill']);
  });
});

describe('validation', () => {
  test('bad bodies are 400s naming the field, and create nothing', async () => {
    const before = (await t.call('get', '/api/forecast/scenarios', { token: planner })).headers['x-total-count'];
    const cases: Array<[Record<string, unknown>, string | RegExp]> = [
      [{}, 'body.name is required'],
      [{ name: '   ' }, /^body\.name must match pattern/],
      [{ name: 'x'.repeat(201) }, 'body.name must NOT have more than 200 characters'],
      [{ name: 'h', horizon_weeks: 0 }, 'body.horizon_weeks must be >= 1'],
      [{ name: 'h', horizon_weeks: 261 }, 'body.horizon_weeks must be <= 260'],
      [{ name: 'h', horizon_weeks: 12.5 }, 'body.horizon_weeks must be integer'],
      [{ name: 'm', methods: ['ets', 'prophet'] }, `body.methods[1] must be one of: ${FORECAST_METHODS.join(', ')}`],
      [{ name: 'm', methods: 'ets' }, 'body.methods must be array'],
      [{ name: 'm', methods: ['ets', 'ets'] }, /^body\.methods must NOT have duplicate items/],
      [{ name: 's', settings: [1, 2] }, 'body.settings must be object'],
      [{ name: 'b', is_baseline: 'yes' }, 'body.is_baseline must be boolean'],
      [{ name: 'd', description: 5 }, 'body.description must be string'],
      [{ name: 'u', owner: 'me' }, "body: unknown field 'owner'"],
    ];
    for (const [body, message] of cases) {
      const res = await t.call('post', '/api/forecast/scenarios', { token: planner, body });
      expect([JSON.stringify(body), res.status]).toEqual([JSON.stringify(body), 400]);
      expect(res.body.detail).toEqual(typeof message === 'string' ? message : expect.stringMatching(message));
    }
    expect((await t.call('get', '/api/forecast/scenarios', { token: planner })).headers['x-total-count']).toBe(before);
  });

  test('path ids must be positive 32-bit integers', async () => {
    for (const [id, message] of [['abc', 'path.id must be integer'], ['0', 'path.id must be >= 1'], ['99999999999', 'path.id must be <= 2147483647']]) {
      const res = await t.call('get', `/api/forecast/scenarios/${id}`, { token: planner });
      expect([id, res.status, res.body.detail]).toEqual([id, 400, message]);
    }
  });

  test('an update needs at least one field and takes no unknown ones', async () => {
    const s = await create({ name: uniqueName('Upd-validation') });
    const empty = await t.call('put', `/api/forecast/scenarios/${s.id}`, { token: planner, body: {} });
    expect([empty.status, empty.body.detail]).toEqual([400, 'body must NOT have fewer than 1 properties']);
    const id = await t.call('put', `/api/forecast/scenarios/${s.id}`, { token: planner, body: { id: 7 } });
    expect([id.status, id.body.detail]).toEqual([400, "body: unknown field 'id'"]);
  });
});

describe('names', () => {
  test('are unique per tenant ignoring case: create and rename clash with 409', async () => {
    const name = uniqueName('Unique');
    const first = await create({ name });
    const dup = await t.call('post', '/api/forecast/scenarios', { token: planner, body: { name: name.toUpperCase() } });
    expect(dup.status).toBe(409);
    expect(dup.body.detail).toBe(`body.name: forecast scenario ${first.id} is already named '${name}'`);
    const other = await create({ name: uniqueName('Other') });
    const rename = await t.call('put', `/api/forecast/scenarios/${other.id}`, { token: planner, body: { name } });
    expect(rename.status).toBe(409);
    expect(rename.body.detail).toMatch(new RegExp(`^body\\.name: forecast scenario ${first.id} is already named`));
    // keeping one's own name (in another case) is no clash
    const self = await t.call('put', `/api/forecast/scenarios/${first.id}`, { token: planner, body: { name: name.toLowerCase() } });
    expect([self.status, self.body.name]).toEqual([200, name.toLowerCase()]);
  });

  test('the same name may exist in another tenant', async () => {
    const other = await t.newTenant('scen-names');
    const name = uniqueName('Shared');
    await create({ name });
    const res = await t.call('post', '/api/forecast/scenarios', { token: await t.login(other.planner), body: { name } });
    expect(res.status).toBe(201);
  });
});

describe('update', () => {
  test('is partial: only the fields sent change; settings are replaced whole', async () => {
    const s = await create({ name: uniqueName('Partial'), description: 'keep me', horizon_weeks: 26, methods: ['ets'], settings: { a: 1, b: 2 } });
    await new Promise((r) => setTimeout(r, 5));
    const res = await t.call('put', `/api/forecast/scenarios/${s.id}`, { token: planner, body: { horizon_weeks: 13, settings: { c: 3 } } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...s, horizon_weeks: 13, settings: { c: 3 }, updated_at: ts });
    expect(res.body.updated_at > s.updated_at).toBe(true);
    const cleared = await t.call('put', `/api/forecast/scenarios/${s.id}`, { token: planner, body: { description: null, methods: [] } });
    expect(cleared.body).toMatchObject({ description: null, methods: [], horizon_weeks: 13, name: s.name });
  });

  test('unknown ids are 404s naming the id', async () => {
    for (const [method, path, body] of [
      ['get', '/api/forecast/scenarios/987654', undefined],
      ['put', '/api/forecast/scenarios/987654', { name: 'x' }],
      ['delete', '/api/forecast/scenarios/987654', undefined],
      ['post', '/api/forecast/scenarios/987654/clone', {}],
    ] as const) {
      const res = await t.call(method, path, { token: planner, body });
      expect([method, path, res.status, res.body.detail]).toEqual([method, path, 404, 'Forecast scenario 987654 not found']);
    }
  });
});

describe('baseline', () => {
  test('at most one: marking one unmarks the others, on create and on update', async () => {
    const tenant = await t.newTenant('scen-baseline');
    const token = await t.login(tenant.planner);
    const post = async (body: object) => (await t.call('post', '/api/forecast/scenarios', { token, body })).body;
    const baselines = async () => (await t.call('get', '/api/forecast/scenarios', { token })).body.filter((s: { is_baseline: boolean }) => s.is_baseline).map((s: { id: number }) => s.id);
    const first = await post({ name: 'first', is_baseline: true });
    expect(await baselines()).toEqual([first.id]);
    const second = await post({ name: 'second', is_baseline: true });
    expect(await baselines()).toEqual([second.id]);
    const third = await post({ name: 'third' });
    const upd = await t.call('put', `/api/forecast/scenarios/${third.id}`, { token, body: { is_baseline: true } });
    expect(upd.body.is_baseline).toBe(true);
    expect(await baselines()).toEqual([third.id]);
    // re-marking the baseline keeps it
    await t.call('put', `/api/forecast/scenarios/${third.id}`, { token, body: { is_baseline: true } });
    expect(await baselines()).toEqual([third.id]);
    // unmarking leaves none
    await t.call('put', `/api/forecast/scenarios/${third.id}`, { token, body: { is_baseline: false } });
    expect(await baselines()).toEqual([]);
  });

  test('concurrent baseline changes still leave exactly one', async () => {
    const tenant = await t.newTenant('scen-race');
    const token = await t.login(tenant.planner);
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => t.call('post', '/api/forecast/scenarios', { token, body: { name: `race ${i}`, is_baseline: true } })),
    );
    expect(results.map((r) => r.status)).toEqual(Array(6).fill(201));
    const list = (await t.call('get', '/api/forecast/scenarios', { token })).body;
    expect(list.filter((s: { is_baseline: boolean }) => s.is_baseline)).toHaveLength(1);
    const dup = await Promise.all(Array.from({ length: 4 }, () => t.call('post', '/api/forecast/scenarios', { token, body: { name: 'same name' } })));
    expect(dup.map((r) => r.status).sort()).toEqual([201, 409, 409, 409]);
  });
});

describe('clone', () => {
  test('copies everything but id and name; "<name> (copy)" numbered when taken; never the baseline', async () => {
    const tenant = await t.newTenant('scen-clone');
    const owner = await t.login(tenant.planner);
    const cloner = await t.login(tenant.admin);
    const src = (await t.call('post', '/api/forecast/scenarios', {
      token: owner, body: { name: 'Base', description: 'd', is_baseline: true, horizon_weeks: 30, methods: ['theta', 'arima'], settings: { k: [1] } },
    })).body;
    const c1 = await t.call('post', `/api/forecast/scenarios/${src.id}/clone`, { token: cloner });
    expect(c1.status).toBe(201);
    expect(c1.body).toEqual({
      id: expect.any(Number), name: 'Base (copy)', description: 'd', is_baseline: false, horizon_weeks: 30, methods: ['theta', 'arima'],
      settings: { k: [1] }, created_by: tenant.admin.email, created_at: ts, updated_at: ts,
    });
    expect(c1.body.id).not.toBe(src.id);
    const c2 = await t.call('post', `/api/forecast/scenarios/${src.id}/clone`, { token: cloner, body: {} });
    expect(c2.body.name).toBe('Base (copy 2)');
    const named = await t.call('post', `/api/forecast/scenarios/${src.id}/clone`, { token: cloner, body: { name: 'What-if', description: null } });
    expect(named.body).toMatchObject({ name: 'What-if', description: null, methods: ['theta', 'arima'] });
    const clash = await t.call('post', `/api/forecast/scenarios/${src.id}/clone`, { token: cloner, body: { name: 'base (COPY)' } });
    expect(clash.status).toBe(409);
    expect(clash.body.detail).toBe(`body.name: forecast scenario ${c1.body.id} is already named 'Base (copy)'`);
    // the source is untouched and still the only baseline
    const list = (await t.call('get', '/api/forecast/scenarios', { token: owner })).body;
    expect(list.find((s: { id: number }) => s.id === src.id)).toEqual(src);
    expect(list.filter((s: { is_baseline: boolean }) => s.is_baseline).map((s: { id: number }) => s.id)).toEqual([src.id]);
    const bad = await t.call('post', `/api/forecast/scenarios/${src.id}/clone`, { token: cloner, body: { horizon_weeks: 3 } });
    expect([bad.status, bad.body.detail]).toEqual([400, "body: unknown field 'horizon_weeks'"]);
  });

  test('a long name is cut so the copy name fits 200 characters', async () => {
    const src = await create({ name: `${'L'.repeat(190)}${Date.now()}`.slice(0, 200) });
    const res = await t.call('post', `/api/forecast/scenarios/${src.id}/clone`, { token: planner });
    expect(res.status).toBe(201);
    expect(res.body.name).toHaveLength(200);
    expect(res.body.name.endsWith(' (copy)')).toBe(true);
  });
});

describe('delete', () => {
  test('deletes an unused scenario', async () => {
    const s = await create({ name: uniqueName('Doomed') });
    const res = await t.call('delete', `/api/forecast/scenarios/${s.id}`, { token: planner });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'deleted', id: s.id, detached_pipeline_ids: [] });
    expect((await t.call('get', `/api/forecast/scenarios/${s.id}`, { token: planner })).status).toBe(404);
    const again = await t.call('delete', `/api/forecast/scenarios/${s.id}`, { token: planner });
    expect([again.status, again.body.detail]).toEqual([404, `Forecast scenario ${s.id} not found`]);
  });

  test('a scenario used by pipelines is a 409 naming them, unless force=true detaches them', async () => {
    const s = await create({ name: uniqueName('Used') });
    const p1 = (await t.call('post', '/api/scenario-pipeline', { token: planner, body: { name: uniqueName('P one'), forecast_scenario_id: s.id } })).body;
    const p2 = (await t.call('post', '/api/scenario-pipeline', { token: planner, body: { name: uniqueName('P two'), forecast_scenario_id: s.id } })).body;
    const refused = await t.call('delete', `/api/forecast/scenarios/${s.id}`, { token: planner });
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toBe(
      `Forecast scenario ${s.id} is used by pipelines ${p1.id} '${p1.name}', ${p2.id} '${p2.name}'; point them at another scenario first, or delete with force=true to detach them`,
    );
    expect((await t.call('get', `/api/forecast/scenarios/${s.id}`, { token: planner })).status).toBe(200);
    const notForced = await t.call('delete', `/api/forecast/scenarios/${s.id}`, { token: planner, query: { force: false } });
    expect(notForced.status).toBe(409);
    const badForce = await t.call('delete', `/api/forecast/scenarios/${s.id}`, { token: planner, query: { force: 'maybe' } });
    expect([badForce.status, badForce.body.detail]).toEqual([400, 'query.force must be boolean']);

    const forced = await t.call('delete', `/api/forecast/scenarios/${s.id}`, { token: planner, query: { force: true } });
    expect(forced.status).toBe(200);
    expect(forced.body).toEqual({ status: 'deleted', id: s.id, detached_pipeline_ids: [p1.id, p2.id] });
    const after = await t.call('get', `/api/scenario-pipeline/${p1.id}`, { token: planner });
    expect(after.body).toMatchObject({ id: p1.id, forecast_scenario_id: null });
  });

  test('one using pipeline is named in the singular', async () => {
    const used = await create({ name: uniqueName('Used by one') });
    const p = (await t.call('post', '/api/scenario-pipeline', { token: planner, body: { name: uniqueName('Solo'), forecast_scenario_id: used.id } })).body;
    const res = await t.call('delete', `/api/forecast/scenarios/${used.id}`, { token: planner });
    expect(res.body.detail).toBe(`Forecast scenario ${used.id} is used by pipeline ${p.id} '${p.name}'; point it at another scenario first, or delete with force=true to detach it`);
  });
});

describe('tenancy, permissions and audit', () => {
  test("a scenario of tenant B is invisible from tenant A, even by id", async () => {
    const ta = await t.newTenant('scen-iso-a');
    const tb = await t.newTenant('scen-iso-b');
    const tokenA = await t.login(ta.planner);
    const tokenB = await t.login(tb.planner);
    let lastB = 0;
    for (const n of ['b1', 'b2', 'b3']) lastB = (await t.call('post', '/api/forecast/scenarios', { token: tokenB, body: { name: n } })).body.id;
    expect((await t.call('get', '/api/forecast/scenarios', { token: tokenA })).body).toEqual([]);
    for (const [method, path, body] of [
      ['get', `/api/forecast/scenarios/${lastB}`, undefined],
      ['put', `/api/forecast/scenarios/${lastB}`, { name: 'stolen' }],
      ['post', `/api/forecast/scenarios/${lastB}/clone`, {}],
      ['delete', `/api/forecast/scenarios/${lastB}`, undefined],
    ] as const) {
      const res = await t.call(method, path, { token: tokenA, body });
      expect([method, res.status, res.body.detail]).toEqual([method, 404, `Forecast scenario ${lastB} not found`]);
    }
    expect((await t.call('get', `/api/forecast/scenarios/${lastB}`, { token: tokenB })).body.name).toBe('b3');
  });

  test('any signed-in user may manage scenarios; without a token it is a 401', async () => {
    const s = await create({ name: uniqueName('Plain user') }, plain);
    expect((await t.call('put', `/api/forecast/scenarios/${s.id}`, { token: plain, body: { horizon_weeks: 8 } })).status).toBe(200);
    expect((await t.call('get', '/api/forecast/scenarios')).status).toBe(401);
    expect((await t.call('post', '/api/forecast/scenarios', { body: { name: 'anon' } })).status).toBe(401);
  });

  test('create, update, clone and delete are audited with the entity id and values', async () => {
    const s = await create({ name: uniqueName('Audited'), horizon_weeks: 10 });
    await t.call('put', `/api/forecast/scenarios/${s.id}`, { token: planner, body: { horizon_weeks: 11 } });
    const copy = (await t.call('post', `/api/forecast/scenarios/${s.id}/clone`, { token: planner })).body;
    await t.call('delete', `/api/forecast/scenarios/${s.id}`, { token: planner });
    const [created] = await auditOf(s.id, 'create');
    expect(created).toMatchObject({ entity_type: 'forecast_scenario', entity_id: String(s.id), outcome: 'success', changed_by: a.planner.email, old_value: null, new_value: { ...s } });
    const [updated] = await auditOf(s.id, 'update');
    expect(updated).toMatchObject({ old_value: { horizon_weeks: 10 }, new_value: { horizon_weeks: 11 } });
    const [cloned] = await auditOf(copy.id, 'clone');
    expect(cloned.new_value).toMatchObject({ id: copy.id, cloned_from: s.id });
    const [deleted] = await auditOf(s.id, 'delete');
    expect(deleted).toMatchObject({ old_value: { id: s.id, horizon_weeks: 11 }, new_value: { deleted: true, detached_pipeline_ids: [] } });
    // a refused request leaves a failure row naming the reason
    await t.call('put', '/api/forecast/scenarios/987655', { token: planner, body: { name: 'x' } });
    const [failed] = await auditOf(987655, 'update');
    expect(failed).toMatchObject({ outcome: 'failure', status_code: 404, detail: 'Forecast scenario 987655 not found' });
  });
});
