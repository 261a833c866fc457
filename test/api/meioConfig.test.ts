import { loadMeioSettings } from '../../db/meioConfig';
import { sql, withTenant } from '../../db/pool';
import { resolveServiceTarget } from '../../domain/inventory/serviceTargets';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';

let t: TestApp;
let a: TestTenant;
let admin: string;
let planner: string;
let plain: string;
const seg: Record<string, number> = {};

const ts = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
let seq = 0;
const uniqueName = (label: string) => `${label} ${Date.now()}-${(seq += 1)}`;

beforeAll(async () => {
  t = await startTestApp();
  a = await t.newTenant('meio-a');
  admin = await t.login(a.admin);
  planner = await t.login(a.planner);
  plain = await t.login(await t.addUser(a.accountId, { role: 'user' }));
  await withTenant(t.db, a.accountId, async (tx) => {
    for (const name of ['Critical', 'Standard', 'Slow']) {
      seg[name] = (await tx.oneFirst(sql.unsafe`INSERT INTO segments (name) VALUES (${name}) RETURNING id`)) as number;
    }
  });
});
afterAll(() => t.close());

const SCENARIOS = '/api/meio/scenarios';

async function createScenario(body: Record<string, unknown> = {}, token = planner) {
  const res = await t.call('post', SCENARIOS, { token, body: { name: uniqueName('Scenario'), ...body } });
  expect([res.status, res.body]).toEqual([201, expect.anything()]);
  return res.body;
}

async function createSet(scenarioId: number, body: Record<string, unknown> = {}, token = planner) {
  const res = await t.call('post', `${SCENARIOS}/${scenarioId}/parameter-sets`, { token, body: { name: uniqueName('Set'), ...body } });
  expect([res.status, res.body]).toEqual([201, expect.anything()]);
  return res.body;
}

async function auditOf(entityType: string, entityId: number, action: string) {
  const res = await t.call('get', '/api/audit-log', { token: admin, query: { entity_type: entityType, entity_id: String(entityId), action } });
  expect(res.status).toBe(200);
  return res.body.items;
}

const setsOf = async (scenarioId: number) =>
  (await t.call('get', `${SCENARIOS}/${scenarioId}/parameter-sets`, { token: plain })).body.map((s: { id: number; priority: number }) => [s.id, s.priority]);

describe('scenarios', () => {
  test('create with defaults, read one and list', async () => {
    const tenant = await t.newTenant('meio-list');
    const token = await t.login(tenant.planner);
    const res = await t.call('post', SCENARIOS, { token, body: { name: '  Base  ' } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(Number), name: 'Base', description: null, service_type: 'fill_rate', target_service: 0.95, policy: 'rQ',
      review_period_weeks: 1, holding_rate: 0.25, ordering_cost: 50, budget: null, is_default: false,
      demand_statistical: true, demand_causal: false, demand_maintenance: true,
      created_by: tenant.planner.email, created_at: ts, updated_at: ts,
    });
    const one = await t.call('get', `${SCENARIOS}/${res.body.id}`, { token });
    expect([one.status, one.body]).toEqual([200, res.body]);
    const second = (await t.call('post', SCENARIOS, { token, body: { name: 'Spares', is_default: true } })).body;
    const list = await t.call('get', SCENARIOS, { token });
    expect([list.status, list.headers['x-total-count'], list.body]).toEqual([200, '2', [res.body, second]]);
    const filtered = await t.call('get', SCENARIOS, { token, query: { is_default: true } });
    expect(filtered.body.map((s: { name: string }) => s.name)).toEqual(['Spares']);
    const byName = await t.call('get', SCENARIOS, { token, query: { name: 'bas' } });
    expect(byName.body.map((s: { name: string }) => s.name)).toEqual(['Base']);
  });

  test('every field is stored as sent', async () => {
    const body = {
      name: uniqueName('Full'), description: 'Spare parts, periodic review', service_type: 'cycle_service', target_service: 0.985,
      policy: 'sS', review_period_weeks: 2.5, holding_rate: 0.18, ordering_cost: 0, budget: 1250000.5, is_default: false,
      demand_statistical: false, demand_causal: true, demand_maintenance: false,
    };
    const created = await createScenario(body);
    expect(created).toEqual({ ...body, id: expect.any(Number), created_by: a.planner.email, created_at: ts, updated_at: ts });
  });

  test('bad bodies are 400s naming the field and create nothing', async () => {
    const before = (await t.call('get', SCENARIOS, { token: planner })).headers['x-total-count'];
    const cases: Array<[Record<string, unknown>, string]> = [
      [{}, 'body.name is required'],
      [{ name: 'x', target_service: 0 }, 'body.target_service must be > 0'],
      [{ name: 'x', target_service: 1 }, 'body.target_service must be < 1'],
      [{ name: 'x', target_service: 1.5 }, 'body.target_service must be < 1'],
      [{ name: 'x', target_service: -1 }, 'body.target_service must be > 0'],
      [{ name: 'x', target_service: '0.9' }, 'body.target_service must be number'],
      [{ name: 'x', service_type: 'availability' }, 'body.service_type must be one of: fill_rate, cycle_service'],
      [{ name: 'x', policy: 'Qr' }, 'body.policy must be one of: rQ, sS, base_stock'],
      [{ name: 'x', review_period_weeks: 0 }, 'body.review_period_weeks must be > 0'],
      [{ name: 'x', review_period_weeks: 53 }, 'body.review_period_weeks must be <= 52'],
      [{ name: 'x', holding_rate: 0 }, 'body.holding_rate must be > 0'],
      [{ name: 'x', ordering_cost: -1 }, 'body.ordering_cost must be >= 0'],
      [{ name: 'x', budget: 0 }, 'body.budget must be > 0'],
      [{ name: 'x', is_default: 'yes' }, 'body.is_default must be boolean'],
      [{ name: 'x', fill_rate: 0.9 }, "body: unknown field 'fill_rate'"],
    ];
    for (const [body, message] of cases) {
      const res = await t.call('post', SCENARIOS, { token: planner, body });
      expect([JSON.stringify(body), res.status, res.body.detail]).toEqual([JSON.stringify(body), 400, message]);
    }
    expect((await t.call('get', SCENARIOS, { token: planner })).headers['x-total-count']).toBe(before);
  });

  test('update is partial and validated; budget can be cleared', async () => {
    const s = await createScenario({ budget: 1000 });
    await new Promise((r) => setTimeout(r, 5));
    const res = await t.call('put', `${SCENARIOS}/${s.id}`, { token: planner, body: { target_service: 0.9, budget: null } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...s, target_service: 0.9, budget: null, updated_at: ts });
    expect(res.body.updated_at > s.updated_at).toBe(true);
    for (const [body, message] of [
      [{}, 'body must NOT have fewer than 1 properties'],
      [{ target_service: 1 }, 'body.target_service must be < 1'],
      [{ id: 3 }, "body: unknown field 'id'"],
    ] as const) {
      const bad = await t.call('put', `${SCENARIOS}/${s.id}`, { token: planner, body });
      expect([bad.status, bad.body.detail]).toEqual([400, message]);
    }
    expect((await t.call('get', `${SCENARIOS}/${s.id}`, { token: planner })).body).toEqual(res.body);
  });

  test('names are unique ignoring case: 409 on create and rename', async () => {
    const name = uniqueName('Unique');
    const first = await createScenario({ name });
    const dup = await t.call('post', SCENARIOS, { token: planner, body: { name: name.toUpperCase() } });
    expect([dup.status, dup.body.detail]).toEqual([409, `body.name: meio scenario ${first.id} is already named '${name}'`]);
    const other = await createScenario();
    const rename = await t.call('put', `${SCENARIOS}/${other.id}`, { token: planner, body: { name } });
    expect(rename.status).toBe(409);
  });

  test('at most one default; deleting the default is allowed', async () => {
    const tenant = await t.newTenant('meio-default');
    const token = await t.login(tenant.planner);
    const post = async (body: object) => (await t.call('post', SCENARIOS, { token, body })).body;
    const defaults = async () => (await t.call('get', SCENARIOS, { token, query: { is_default: true } })).body.map((s: { id: number }) => s.id);
    const first = await post({ name: 'first', is_default: true });
    const second = await post({ name: 'second', is_default: true });
    expect(await defaults()).toEqual([second.id]);
    await t.call('put', `${SCENARIOS}/${first.id}`, { token, body: { is_default: true } });
    expect(await defaults()).toEqual([first.id]);
    const del = await t.call('delete', `${SCENARIOS}/${first.id}`, { token });
    expect([del.status, del.body]).toEqual([200, { status: 'deleted', id: first.id }]);
    expect(await defaults()).toEqual([]);
  });

  test('unknown and malformed ids', async () => {
    for (const [method, path, body] of [
      ['get', `${SCENARIOS}/987654`, undefined],
      ['put', `${SCENARIOS}/987654`, { name: 'x' }],
      ['delete', `${SCENARIOS}/987654`, undefined],
    ] as const) {
      const res = await t.call(method, path, { token: planner, body });
      expect([method, res.status, res.body.detail]).toEqual([method, 404, 'MEIO scenario 987654 not found']);
    }
    for (const [id, message] of [['abc', 'path.id must be integer'], ['0', 'path.id must be >= 1'], ['99999999999', 'path.id must be <= 2147483647']]) {
      const res = await t.call('get', `${SCENARIOS}/${id}`, { token: planner });
      expect([id, res.status, res.body.detail]).toEqual([id, 400, message]);
    }
  });
});

describe('segment parameters', () => {
  test('upsert: each entry replaces its segment, others stay; GET lists them by segment', async () => {
    const s = await createScenario();
    const path = `${SCENARIOS}/${s.id}/segment-params`;
    expect((await t.call('get', path, { token: plain })).body).toEqual([]);
    const first = await t.call('put', path, {
      token: planner,
      body: { segment_params: [{ segment_id: seg.Standard, target_service: 0.9 }, { segment_id: seg.Critical, target_service: 0.99, service_type: 'cycle_service', holding_rate: 0.3 }] },
    });
    const row = (segment: string, fields: object) => ({ scenario_id: s.id, segment_id: seg[segment], segment_name: segment, updated_by: a.planner.email, updated_at: ts, ...fields });
    expect(first.status).toBe(200);
    expect(first.body).toEqual([
      row('Critical', { target_service: 0.99, service_type: 'cycle_service', holding_rate: 0.3 }),
      row('Standard', { target_service: 0.9, service_type: null, holding_rate: null }),
    ]);
    const second = await t.call('put', path, {
      token: planner,
      body: { segment_params: [{ segment_id: seg.Critical, target_service: 0.995 }, { segment_id: seg.Slow, target_service: 0.8, holding_rate: 0.4 }] },
    });
    expect(second.body).toEqual([
      row('Critical', { target_service: 0.995, service_type: null, holding_rate: null }),
      row('Standard', { target_service: 0.9, service_type: null, holding_rate: null }),
      row('Slow', { target_service: 0.8, service_type: null, holding_rate: 0.4 }),
    ]);
    expect((await t.call('get', path, { token: plain })).body).toEqual(second.body);
    const empty = await t.call('put', path, { token: planner, body: { segment_params: [] } });
    expect(empty.body).toEqual(second.body);
  });

  test('bad entries are 400s naming the field and change nothing', async () => {
    const s = await createScenario();
    const path = `${SCENARIOS}/${s.id}/segment-params`;
    await t.call('put', path, { token: planner, body: { segment_params: [{ segment_id: seg.Slow, target_service: 0.7 }] } });
    const before = (await t.call('get', path, { token: planner })).body;
    const ok = { segment_id: seg.Critical, target_service: 0.99 };
    const cases: Array<[unknown, string]> = [
      [{}, 'body.segment_params is required'],
      [{ segment_params: [ok, { segment_id: seg.Standard, target_service: 0 }] }, 'body.segment_params[1].target_service must be > 0'],
      [{ segment_params: [{ segment_id: seg.Standard, target_service: 1 }] }, 'body.segment_params[0].target_service must be < 1'],
      [{ segment_params: [{ segment_id: seg.Standard, target_service: 1.5 }] }, 'body.segment_params[0].target_service must be < 1'],
      [{ segment_params: [{ segment_id: seg.Standard, target_service: -1 }] }, 'body.segment_params[0].target_service must be > 0'],
      [{ segment_params: [{ segment_id: seg.Standard }] }, 'body.segment_params[0].target_service is required'],
      [{ segment_params: [{ segment_id: seg.Standard, target_service: 0.9, service_type: 'x' }] }, 'body.segment_params[0].service_type must be one of: fill_rate, cycle_service'],
      [{ segment_params: [{ segment_id: seg.Standard, target_service: 0.9, holding_rate: 0 }] }, 'body.segment_params[0].holding_rate must be > 0'],
      [{ segment_params: [{ segment_id: seg.Standard, target_service: 0.9, policy: 'sS' }] }, "body.segment_params[0]: unknown field 'policy'"],
      [{ segment_params: [ok, { segment_id: 999998, target_service: 0.9 }, { segment_id: 999999, target_service: 0.9 }] }, 'body.segment_params: segments 999998, 999999 do not exist'],
      [{ segment_params: [ok, { segment_id: 999999, target_service: 0.9 }] }, 'body.segment_params: segment 999999 does not exist'],
      [{ segment_params: [ok, { ...ok, target_service: 0.5 }] }, `body.segment_params[1].segment_id: segment ${seg.Critical} is already listed at [0]`],
      [{ segment_params: [ok], extra: 1 }, "body: unknown field 'extra'"],
    ];
    for (const [body, message] of cases) {
      const res = await t.call('put', path, { token: planner, body });
      expect([JSON.stringify(body), res.status, res.body.detail]).toEqual([JSON.stringify(body), 400, message]);
    }
    expect((await t.call('get', path, { token: planner })).body).toEqual(before);
  });

  test('remove one, then clear all', async () => {
    const s = await createScenario();
    const path = `${SCENARIOS}/${s.id}/segment-params`;
    await t.call('put', path, { token: planner, body: { segment_params: ['Critical', 'Standard', 'Slow'].map((n) => ({ segment_id: seg[n], target_service: 0.9 })) } });
    const one = await t.call('delete', `${path}/${seg.Standard}`, { token: planner });
    expect([one.status, one.body]).toEqual([200, { status: 'deleted', scenario_id: s.id, segment_ids: [seg.Standard] }]);
    const again = await t.call('delete', `${path}/${seg.Standard}`, { token: planner });
    expect([again.status, again.body.detail]).toEqual([404, `MEIO scenario ${s.id} has no segment parameters for segment ${seg.Standard}`]);
    expect((await t.call('get', path, { token: planner })).body.map((r: { segment_id: number }) => r.segment_id)).toEqual([seg.Critical, seg.Slow]);
    const all = await t.call('delete', path, { token: planner });
    expect([all.status, all.body]).toEqual([200, { status: 'deleted', scenario_id: s.id, segment_ids: [seg.Critical, seg.Slow] }]);
    expect((await t.call('get', path, { token: planner })).body).toEqual([]);
    const none = await t.call('delete', path, { token: planner });
    expect([none.status, none.body]).toEqual([200, { status: 'deleted', scenario_id: s.id, segment_ids: [] }]);
  });

  test('unknown scenarios are 404s; a bad segment id in the path is a 400', async () => {
    for (const [method, path, body] of [
      ['get', `${SCENARIOS}/987654/segment-params`, undefined],
      ['put', `${SCENARIOS}/987654/segment-params`, { segment_params: [] }],
      ['delete', `${SCENARIOS}/987654/segment-params`, undefined],
      ['delete', `${SCENARIOS}/987654/segment-params/${seg.Slow}`, undefined],
    ] as const) {
      const res = await t.call(method, path, { token: planner, body });
      expect([method, path, res.status, res.body.detail]).toEqual([method, path, 404, 'MEIO scenario 987654 not found']);
    }
    const s = await createScenario();
    const bad = await t.call('delete', `${SCENARIOS}/${s.id}/segment-params/x`, { token: planner });
    expect([bad.status, bad.body.detail]).toEqual([400, 'path.seg must be integer']);
  });

  test('deleting a segment drops its overrides', async () => {
    const s = await createScenario();
    const doomed = await withTenant(t.db, a.accountId, (tx) => tx.oneFirst(sql.unsafe`INSERT INTO segments (name) VALUES (${uniqueName('Doomed')}) RETURNING id`)) as number;
    await t.call('put', `${SCENARIOS}/${s.id}/segment-params`, { token: planner, body: { segment_params: [{ segment_id: doomed, target_service: 0.9 }, { segment_id: seg.Slow, target_service: 0.8 }] } });
    await withTenant(t.db, a.accountId, (tx) => tx.query(sql.unsafe`DELETE FROM segments WHERE id = ${doomed}`));
    expect((await t.call('get', `${SCENARIOS}/${s.id}/segment-params`, { token: planner })).body.map((r: { segment_id: number }) => r.segment_id)).toEqual([seg.Slow]);
  });
});

describe('parameter sets', () => {
  test('create with defaults goes last; priorities are 1..n; a given priority inserts there', async () => {
    const s = await createScenario();
    const res = await t.call('post', `${SCENARIOS}/${s.id}/parameter-sets`, { token: planner, body: { name: ' Fast movers ' } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(Number), scenario_id: s.id, name: 'Fast movers', description: null, priority: 1, is_active: true, values: {}, segment_ids: [],
      created_by: a.planner.email, created_at: ts, updated_at: ts,
    });
    const body = {
      name: 'Critical spares', description: 'high service', is_active: false, segment_ids: [seg.Slow, seg.Critical],
      values: { target_service: 0.995, service_type: 'cycle_service', holding_rate: 0.2, ordering_cost: 12.5, policy: 'base_stock', review_period_weeks: 4 },
    };
    const second = await t.call('post', `${SCENARIOS}/${s.id}/parameter-sets`, { token: planner, body });
    expect(second.body).toEqual({
      ...body, segment_ids: [seg.Critical, seg.Slow], id: expect.any(Number), scenario_id: s.id, priority: 2, created_by: a.planner.email, created_at: ts, updated_at: ts,
    });
    const top = await createSet(s.id, { priority: 1 });
    const middle = await createSet(s.id, { priority: 3 });
    const last = await createSet(s.id, { priority: 5 });
    expect(await setsOf(s.id)).toEqual([[top.id, 1], [res.body.id, 2], [middle.id, 3], [second.body.id, 4], [last.id, 5]]);
    const tooFar = await t.call('post', `${SCENARIOS}/${s.id}/parameter-sets`, { token: planner, body: { name: 'far', priority: 7 } });
    expect([tooFar.status, tooFar.body.detail]).toEqual([400, `body.priority must be <= 6 (MEIO scenario ${s.id} has 5 parameter sets; priorities are 1..n)`]);
  });

  test('concurrent creates and deletes keep priorities 1..n', async () => {
    const s = await createScenario();
    const made = await Promise.all([1, 2, 3, 4, 5, 6].map((i) => t.call('post', `${SCENARIOS}/${s.id}/parameter-sets`, { token: planner, body: { name: `c${i}` } })));
    expect(made.map((r) => r.status)).toEqual([201, 201, 201, 201, 201, 201]);
    expect((await setsOf(s.id)).map(([, priority]: [number, number]) => priority)).toEqual([1, 2, 3, 4, 5, 6]);
    await Promise.all([made[0], made[2], made[4]].map((r) => t.call('delete', `/api/meio/parameter-sets/${r.body.id}`, { token: planner })));
    expect((await setsOf(s.id)).map(([, priority]: [number, number]) => priority)).toEqual([1, 2, 3]);
  });

  test('bad bodies are 400s naming the field and create nothing', async () => {
    const s = await createScenario();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{}, 'body.name is required'],
      [{ name: 'v', values: { target_service: 0 } }, 'body.values.target_service must be > 0'],
      [{ name: 'v', values: { target_service: 1 } }, 'body.values.target_service must be < 1'],
      [{ name: 'v', values: { target_service: 1.5 } }, 'body.values.target_service must be < 1'],
      [{ name: 'v', values: { target_service: -1 } }, 'body.values.target_service must be > 0'],
      [{ name: 'v', values: { safety_factor: 2 } }, "body.values: unknown field 'safety_factor'"],
      [{ name: 'v', values: { policy: 'kanban' } }, 'body.values.policy must be one of: rQ, sS, base_stock'],
      [{ name: 'v', values: { review_period_weeks: 0 } }, 'body.values.review_period_weeks must be > 0'],
      [{ name: 'v', values: { ordering_cost: -5 } }, 'body.values.ordering_cost must be >= 0'],
      [{ name: 'v', values: [] }, 'body.values must be object'],
      [{ name: 'v', priority: 0 }, 'body.priority must be >= 1'],
      [{ name: 'v', segment_ids: [seg.Slow, seg.Slow] }, 'body.segment_ids must NOT have duplicate items (items ## 1 and 0 are identical)'],
      [{ name: 'v', segment_ids: [seg.Slow, 999998, 999999] }, 'body.segment_ids: segments 999998, 999999 do not exist'],
      [{ name: 'v', scenario_id: 3 }, "body: unknown field 'scenario_id'"],
    ];
    for (const [body, message] of cases) {
      const res = await t.call('post', `${SCENARIOS}/${s.id}/parameter-sets`, { token: planner, body });
      expect([JSON.stringify(body), res.status, res.body.detail]).toEqual([JSON.stringify(body), 400, message]);
    }
    expect(await setsOf(s.id)).toEqual([]);
  });

  test('names are unique per scenario ignoring case', async () => {
    const s = await createScenario();
    const first = await createSet(s.id, { name: 'Spares' });
    const dup = await t.call('post', `${SCENARIOS}/${s.id}/parameter-sets`, { token: planner, body: { name: 'SPARES' } });
    expect([dup.status, dup.body.detail]).toEqual([409, `body.name: MEIO parameter set ${first.id} of scenario ${s.id} is already named 'Spares'`]);
    const other = await createScenario();
    await createSet(other.id, { name: 'Spares' });
    const second = await createSet(s.id, { name: 'Other' });
    const rename = await t.call('put', `/api/meio/parameter-sets/${second.id}`, { token: planner, body: { name: 'spares' } });
    expect(rename.status).toBe(409);
    const self = await t.call('put', `/api/meio/parameter-sets/${first.id}`, { token: planner, body: { name: 'SPARES' } });
    expect([self.status, self.body.name]).toEqual([200, 'SPARES']);
  });

  test('update is partial; values and segments are replaced whole; priority moves the set', async () => {
    const s = await createScenario();
    const [x, y, z] = [await createSet(s.id), await createSet(s.id, { values: { policy: 'sS', holding_rate: 0.3 }, segment_ids: [seg.Slow] }), await createSet(s.id)];
    const res = await t.call('put', `/api/meio/parameter-sets/${y.id}`, { token: planner, body: { values: { target_service: 0.97 }, is_active: false, description: 'tuned' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...y, values: { target_service: 0.97 }, is_active: false, description: 'tuned', updated_at: ts });
    const moved = await t.call('put', `/api/meio/parameter-sets/${z.id}`, { token: planner, body: { priority: 1, segment_ids: [seg.Critical] } });
    expect(moved.body).toMatchObject({ priority: 1, segment_ids: [seg.Critical] });
    expect(await setsOf(s.id)).toEqual([[z.id, 1], [x.id, 2], [y.id, 3]]);
    await t.call('put', `/api/meio/parameter-sets/${z.id}`, { token: planner, body: { priority: 3 } });
    expect(await setsOf(s.id)).toEqual([[x.id, 1], [y.id, 2], [z.id, 3]]);
    for (const [body, message] of [
      [{}, 'body must NOT have fewer than 1 properties'],
      [{ priority: 4 }, `body.priority must be <= 3 (MEIO scenario ${s.id} has 3 parameter sets; priorities are 1..n)`],
      [{ values: { target_service: 1 } }, 'body.values.target_service must be < 1'],
      [{ values: { fr: 1 } }, "body.values: unknown field 'fr'"],
      [{ segment_ids: [999999] }, 'body.segment_ids: segment 999999 does not exist'],
      [{ scenario_id: 1 }, "body: unknown field 'scenario_id'"],
    ] as const) {
      const bad = await t.call('put', `/api/meio/parameter-sets/${x.id}`, { token: planner, body });
      expect([JSON.stringify(body), bad.status, bad.body.detail]).toEqual([JSON.stringify(body), 400, message]);
    }
    const missing = await t.call('put', '/api/meio/parameter-sets/987654', { token: planner, body: { name: 'x' } });
    expect([missing.status, missing.body.detail]).toEqual([404, 'MEIO parameter set 987654 not found']);
  });

  test('segments: replace the list; unknown ids are 400s naming them; empty applies to every series', async () => {
    const s = await createScenario();
    const p = await createSet(s.id, { segment_ids: [seg.Slow] });
    const path = `/api/meio/parameter-sets/${p.id}/segments`;
    const res = await t.call('put', path, { token: planner, body: { segment_ids: [seg.Standard, seg.Critical] } });
    expect([res.status, res.body]).toEqual([200, {
      parameter_set_id: p.id, scenario_id: s.id, segment_ids: [seg.Critical, seg.Standard],
      segments: [{ id: seg.Critical, name: 'Critical' }, { id: seg.Standard, name: 'Standard' }], applies_to_all: false,
    }]);
    const bad = await t.call('put', path, { token: planner, body: { segment_ids: [seg.Slow, 999998, 999999] } });
    expect([bad.status, bad.body.detail]).toEqual([400, 'body.segment_ids: segments 999998, 999999 do not exist']);
    for (const [body, message] of [
      [{}, 'body.segment_ids is required'],
      [{ segment_ids: [0] }, 'body.segment_ids[0] must be >= 1'],
      [{ segment_ids: 'all' }, 'body.segment_ids must be array'],
    ] as const) {
      const r = await t.call('put', path, { token: planner, body });
      expect([r.status, r.body.detail]).toEqual([400, message]);
    }
    expect((await setsOf(s.id)).length).toBe(1);
    const [stored] = (await t.call('get', `${SCENARIOS}/${s.id}/parameter-sets`, { token: planner })).body;
    expect(stored.segment_ids).toEqual([seg.Critical, seg.Standard]);
    const cleared = await t.call('put', path, { token: planner, body: { segment_ids: [] } });
    expect(cleared.body).toEqual({ parameter_set_id: p.id, scenario_id: s.id, segment_ids: [], segments: [], applies_to_all: true });
    const missing = await t.call('put', '/api/meio/parameter-sets/987654/segments', { token: planner, body: { segment_ids: [] } });
    expect([missing.status, missing.body.detail]).toEqual([404, 'MEIO parameter set 987654 not found']);
  });

  test('reorder takes the full list exactly once', async () => {
    const s = await createScenario();
    const [x, y, z] = [await createSet(s.id), await createSet(s.id), await createSet(s.id)];
    const other = await createSet((await createScenario()).id);
    const path = `${SCENARIOS}/${s.id}/parameter-sets/reorder`;
    const res = await t.call('put', path, { token: planner, body: { ordered_ids: [z.id, x.id, y.id] } });
    expect(res.status).toBe(200);
    expect(res.body.map((p: { id: number; priority: number }) => [p.id, p.priority])).toEqual([[z.id, 1], [x.id, 2], [y.id, 3]]);
    expect(res.body[0]).toEqual({ ...z, priority: 1, updated_at: ts });
    for (const [ids, message] of [
      [[z.id, x.id], `body.ordered_ids: missing parameter set ${y.id}; list every set of MEIO scenario ${s.id} exactly once`],
      [[z.id], `body.ordered_ids: missing parameter sets ${x.id}, ${y.id}; list every set of MEIO scenario ${s.id} exactly once`],
      [[z.id, x.id, y.id, other.id], `body.ordered_ids[3]: parameter set ${other.id} is not a set of MEIO scenario ${s.id}`],
      [[z.id, x.id, 987654], `body.ordered_ids[2]: parameter set 987654 is not a set of MEIO scenario ${s.id}`],
      [[z.id, x.id, y.id, x.id], 'body.ordered_ids must NOT have duplicate items (items ## 3 and 1 are identical)'],
      [[z.id, 0], 'body.ordered_ids[1] must be >= 1'],
    ] as const) {
      const bad = await t.call('put', path, { token: planner, body: { ordered_ids: ids } });
      expect([JSON.stringify(ids), bad.status, bad.body.detail]).toEqual([JSON.stringify(ids), 400, message]);
    }
    const noList = await t.call('put', path, { token: planner, body: {} });
    expect([noList.status, noList.body.detail]).toEqual([400, 'body.ordered_ids is required']);
    expect(await setsOf(s.id)).toEqual([[z.id, 1], [x.id, 2], [y.id, 3]]);
    const missing = await t.call('put', `${SCENARIOS}/987654/parameter-sets/reorder`, { token: planner, body: { ordered_ids: [] } });
    expect([missing.status, missing.body.detail]).toEqual([404, 'MEIO scenario 987654 not found']);
  });

  test('delete renumbers the rest; a second delete is a 404', async () => {
    const s = await createScenario();
    const [x, y, z] = [await createSet(s.id), await createSet(s.id, { segment_ids: [seg.Slow] }), await createSet(s.id)];
    const res = await t.call('delete', `/api/meio/parameter-sets/${y.id}`, { token: planner });
    expect([res.status, res.body]).toEqual([200, { status: 'deleted', id: y.id }]);
    expect(await setsOf(s.id)).toEqual([[x.id, 1], [z.id, 2]]);
    const again = await t.call('delete', `/api/meio/parameter-sets/${y.id}`, { token: planner });
    expect([again.status, again.body.detail]).toEqual([404, `MEIO parameter set ${y.id} not found`]);
    const links = await withTenant(t.db, a.accountId, (tx) => tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM meio_parameter_set_segments WHERE pset_id = ${y.id}`));
    expect(links).toBe(0);
    const list404 = await t.call('get', `${SCENARIOS}/987654/parameter-sets`, { token: planner });
    expect([list404.status, list404.body.detail]).toEqual([404, 'MEIO scenario 987654 not found']);
    const post404 = await t.call('post', `${SCENARIOS}/987654/parameter-sets`, { token: planner, body: { name: 'x' } });
    expect([post404.status, post404.body.detail]).toEqual([404, 'MEIO scenario 987654 not found']);
  });
});

describe('scenario delete cascades', () => {
  test('segment parameters, parameter sets and their links go with the scenario', async () => {
    const s = await createScenario();
    const keep = await createScenario();
    await t.call('put', `${SCENARIOS}/${s.id}/segment-params`, { token: planner, body: { segment_params: [{ segment_id: seg.Slow, target_service: 0.8 }] } });
    await t.call('put', `${SCENARIOS}/${keep.id}/segment-params`, { token: planner, body: { segment_params: [{ segment_id: seg.Slow, target_service: 0.8 }] } });
    const p = await createSet(s.id, { segment_ids: [seg.Critical, seg.Slow] });
    const kept = await createSet(keep.id, { segment_ids: [seg.Critical] });
    const res = await t.call('delete', `${SCENARIOS}/${s.id}`, { token: planner });
    expect([res.status, res.body]).toEqual([200, { status: 'deleted', id: s.id }]);
    const counts = await withTenant(t.db, a.accountId, (tx) => tx.one(sql.unsafe`
      SELECT (SELECT count(*)::int FROM meio_segment_params WHERE scenario_id = ${s.id}) AS params,
             (SELECT count(*)::int FROM meio_parameter_sets WHERE scenario_id = ${s.id}) AS sets,
             (SELECT count(*)::int FROM meio_parameter_set_segments WHERE pset_id = ${p.id}) AS links,
             (SELECT count(*)::int FROM meio_segment_params WHERE scenario_id = ${keep.id}) AS kept_params,
             (SELECT count(*)::int FROM meio_parameter_set_segments WHERE pset_id = ${kept.id}) AS kept_links`));
    expect(counts).toEqual({ params: 0, sets: 0, links: 0, kept_params: 1, kept_links: 1 });
    expect((await t.call('put', `/api/meio/parameter-sets/${p.id}`, { token: planner, body: { name: 'x' } })).status).toBe(404);
  });
});

describe('what the meio step reads', () => {
  test('loadMeioSettings returns the scenario, its overrides and its active sets by priority; resolution follows the precedence', async () => {
    const s = await createScenario({ target_service: 0.9, holding_rate: 0.2 });
    await t.call('put', `${SCENARIOS}/${s.id}/segment-params`, {
      token: planner, body: { segment_params: [{ segment_id: seg.Critical, target_service: 0.99 }, { segment_id: seg.Standard, target_service: 0.95, holding_rate: 0.3 }] },
    });
    const slow = await createSet(s.id, { values: { policy: 'sS', target_service: 0.85 }, segment_ids: [seg.Slow] });
    const all = await createSet(s.id, { values: { ordering_cost: 20 } });
    await createSet(s.id, { values: { target_service: 0.5 }, is_active: false });
    const settings = (await withTenant(t.db, a.accountId, (tx) => loadMeioSettings(tx, s.id)))!;
    expect(settings).toEqual({
      scenario: {
        id: s.id, name: s.name, service_type: 'fill_rate', target_service: 0.9, policy: 'rQ', review_period_weeks: 1, holding_rate: 0.2,
        ordering_cost: 50, budget: null, is_default: false,
      },
      segment_params: [
        { segment_id: seg.Critical, target_service: 0.99, service_type: null, holding_rate: null },
        { segment_id: seg.Standard, target_service: 0.95, service_type: null, holding_rate: 0.3 },
      ].sort((p, q) => p.segment_id - q.segment_id),
      parameter_sets: [
        { id: slow.id, priority: 1, is_active: true, values: { policy: 'sS', target_service: 0.85 }, segment_ids: [seg.Slow] },
        { id: all.id, priority: 2, is_active: true, values: { ordering_cost: 20 }, segment_ids: [] },
      ],
    });
    const both = resolveServiceTarget(settings, [seg.Critical, seg.Standard]);
    expect(both).toMatchObject({ target_service: 0.99, holding_rate: 0.2, ordering_cost: 20, policy: 'rQ', source: `segment:${seg.Critical}` });
    const slowSeries = resolveServiceTarget(settings, [seg.Slow, seg.Standard], { fr_override: null, sl_override: null });
    expect(slowSeries).toMatchObject({ target_service: 0.85, policy: 'sS', holding_rate: 0.3, source: `parameter_set:${slow.id}` });
    expect(resolveServiceTarget(settings, [seg.Slow], { sl_override: 0.97 })).toMatchObject({ target_service: 0.97, service_type: 'cycle_service', source: 'override' });
    expect(await withTenant(t.db, a.accountId, (tx) => loadMeioSettings(tx, 987654))).toBeNull();
  });
});

describe('permissions, audit and tenancy', () => {
  test('users without can_run_process read but cannot write (403); admins can; no token is a 401', async () => {
    const s = await createScenario();
    const p = await createSet(s.id);
    const writes: Array<[string, string, unknown]> = [
      ['post', SCENARIOS, { name: 'nope' }],
      ['put', `${SCENARIOS}/${s.id}`, { target_service: 0.9 }],
      ['delete', `${SCENARIOS}/${s.id}`, undefined],
      ['put', `${SCENARIOS}/${s.id}/segment-params`, { segment_params: [] }],
      ['delete', `${SCENARIOS}/${s.id}/segment-params/${seg.Slow}`, undefined],
      ['delete', `${SCENARIOS}/${s.id}/segment-params`, undefined],
      ['post', `${SCENARIOS}/${s.id}/parameter-sets`, { name: 'nope' }],
      ['put', `/api/meio/parameter-sets/${p.id}`, { name: 'nope' }],
      ['delete', `/api/meio/parameter-sets/${p.id}`, undefined],
      ['put', `/api/meio/parameter-sets/${p.id}/segments`, { segment_ids: [] }],
      ['put', `${SCENARIOS}/${s.id}/parameter-sets/reorder`, { ordered_ids: [p.id] }],
    ];
    for (const [method, path, body] of writes) {
      const res = await t.call(method, path, { token: plain, body });
      expect([method, path, res.status, res.body.detail]).toEqual([method, path, 403, 'Permission can_run_process (or an admin role) required to start runs']);
      const anon = await t.call(method, path, { body });
      expect([method, path, anon.status]).toEqual([method, path, 401]);
    }
    for (const path of [SCENARIOS, `${SCENARIOS}/${s.id}`, `${SCENARIOS}/${s.id}/segment-params`, `${SCENARIOS}/${s.id}/parameter-sets`]) {
      expect([path, (await t.call('get', path, { token: plain })).status]).toEqual([path, 200]);
      expect([path, (await t.call('get', path)).status]).toEqual([path, 401]);
    }
    expect(await setsOf(s.id)).toEqual([[p.id, 1]]);
    const byAdmin = await t.call('put', `${SCENARIOS}/${s.id}/parameter-sets/reorder`, { token: admin, body: { ordered_ids: [p.id] } });
    expect(byAdmin.status).toBe(200);
  });

  test('writes are audited with the entity id and values; a refused write leaves a failure row', async () => {
    const s = await createScenario({ target_service: 0.9 });
    await t.call('put', `${SCENARIOS}/${s.id}`, { token: planner, body: { target_service: 0.92 } });
    await t.call('put', `${SCENARIOS}/${s.id}/segment-params`, { token: planner, body: { segment_params: [{ segment_id: seg.Slow, target_service: 0.8 }] } });
    await t.call('delete', `${SCENARIOS}/${s.id}/segment-params/${seg.Slow}`, { token: planner });
    await t.call('delete', `${SCENARIOS}/${s.id}/segment-params`, { token: planner });
    const p = await createSet(s.id, { values: { policy: 'sS' } });
    const q = await createSet(s.id);
    await t.call('put', `/api/meio/parameter-sets/${p.id}`, { token: planner, body: { is_active: false } });
    await t.call('put', `/api/meio/parameter-sets/${p.id}/segments`, { token: planner, body: { segment_ids: [seg.Critical] } });
    await t.call('put', `${SCENARIOS}/${s.id}/parameter-sets/reorder`, { token: planner, body: { ordered_ids: [q.id, p.id] } });
    await t.call('delete', `/api/meio/parameter-sets/${p.id}`, { token: planner });
    await t.call('delete', `${SCENARIOS}/${s.id}`, { token: planner });

    const [created] = await auditOf('meio_scenario', s.id, 'create');
    expect(created).toMatchObject({ outcome: 'success', changed_by: a.planner.email, old_value: null, new_value: { ...s } });
    expect((await auditOf('meio_scenario', s.id, 'update'))[0]).toMatchObject({ old_value: { target_service: 0.9 }, new_value: { target_service: 0.92 } });
    expect((await auditOf('meio_scenario', s.id, 'delete'))[0]).toMatchObject({ old_value: { id: s.id, target_service: 0.92 }, new_value: { deleted: true } });
    const [upsert] = await auditOf('meio_scenario.segment_params', s.id, 'upsert');
    expect(upsert).toMatchObject({ old_value: [], new_value: [{ segment_id: seg.Slow, target_service: 0.8 }] });
    expect((await auditOf('meio_scenario.segment_params', s.id, 'delete'))[0]).toMatchObject({ old_value: { segment_id: seg.Slow }, new_value: { deleted: true, segment_ids: [seg.Slow] } });
    expect((await auditOf('meio_scenario.segment_params', s.id, 'clear'))[0]).toMatchObject({ new_value: { deleted: true, segment_ids: [] } });
    expect((await auditOf('meio_parameter_set', p.id, 'create'))[0]).toMatchObject({ new_value: { id: p.id, values: { policy: 'sS' } } });
    expect((await auditOf('meio_parameter_set', p.id, 'update'))[0]).toMatchObject({ old_value: { is_active: true }, new_value: { is_active: false } });
    expect((await auditOf('meio_parameter_set.segments', p.id, 'update'))[0]).toMatchObject({ old_value: { segment_ids: [] }, new_value: { segment_ids: [seg.Critical] } });
    expect((await auditOf('meio_scenario.parameter_sets', s.id, 'reorder'))[0]).toMatchObject({ old_value: { ordered_ids: [p.id, q.id] }, new_value: { ordered_ids: [q.id, p.id] } });
    expect((await auditOf('meio_parameter_set', p.id, 'delete'))[0]).toMatchObject({ old_value: { id: p.id, priority: 2 }, new_value: { deleted: true } });

    await t.call('put', `${SCENARIOS}/${s.id}/segment-params`, { token: planner, body: { segment_params: [] } });
    const [failed] = await auditOf('meio_scenario.segment_params', s.id, 'upsert').then((rows) => rows.filter((r: { outcome: string }) => r.outcome === 'failure'));
    expect(failed).toMatchObject({ status_code: 404, detail: `MEIO scenario ${s.id} not found` });
  });

  test("another tenant's scenarios and sets are invisible, even by id", async () => {
    const tb = await t.newTenant('meio-b');
    const tokenB = await t.login(tb.planner);
    const s = await createScenario();
    const p = await createSet(s.id);
    expect((await t.call('get', SCENARIOS, { token: tokenB })).body).toEqual([]);
    for (const [method, path, body, detail] of [
      ['get', `${SCENARIOS}/${s.id}`, undefined, `MEIO scenario ${s.id} not found`],
      ['put', `${SCENARIOS}/${s.id}`, { name: 'stolen' }, `MEIO scenario ${s.id} not found`],
      ['delete', `${SCENARIOS}/${s.id}`, undefined, `MEIO scenario ${s.id} not found`],
      ['get', `${SCENARIOS}/${s.id}/segment-params`, undefined, `MEIO scenario ${s.id} not found`],
      ['put', `${SCENARIOS}/${s.id}/segment-params`, { segment_params: [] }, `MEIO scenario ${s.id} not found`],
      ['delete', `${SCENARIOS}/${s.id}/segment-params`, undefined, `MEIO scenario ${s.id} not found`],
      ['get', `${SCENARIOS}/${s.id}/parameter-sets`, undefined, `MEIO scenario ${s.id} not found`],
      ['post', `${SCENARIOS}/${s.id}/parameter-sets`, { name: 'stolen' }, `MEIO scenario ${s.id} not found`],
      ['put', `${SCENARIOS}/${s.id}/parameter-sets/reorder`, { ordered_ids: [p.id] }, `MEIO scenario ${s.id} not found`],
      ['put', `/api/meio/parameter-sets/${p.id}`, { name: 'stolen' }, `MEIO parameter set ${p.id} not found`],
      ['put', `/api/meio/parameter-sets/${p.id}/segments`, { segment_ids: [] }, `MEIO parameter set ${p.id} not found`],
      ['delete', `/api/meio/parameter-sets/${p.id}`, undefined, `MEIO parameter set ${p.id} not found`],
    ] as const) {
      const res = await t.call(method, path, { token: tokenB, body });
      expect([method, path, res.status, res.body.detail]).toEqual([method, path, 404, detail]);
    }
    // A's segment ids name nothing in B
    const sb = (await t.call('post', SCENARIOS, { token: tokenB, body: { name: s.name } })).body;
    const cross = await t.call('put', `${SCENARIOS}/${sb.id}/segment-params`, { token: tokenB, body: { segment_params: [{ segment_id: seg.Critical, target_service: 0.9 }] } });
    expect([cross.status, cross.body.detail]).toEqual([400, `body.segment_params: segment ${seg.Critical} does not exist`]);
    expect((await t.call('get', `${SCENARIOS}/${s.id}`, { token: planner })).body.name).toBe(s.name);
    expect(await setsOf(s.id)).toEqual([[p.id, 1]]);
  });
});
