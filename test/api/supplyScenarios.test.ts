import { sql, withTenant } from '../../db/pool';
import { defaultSupplyScenarioId, getSupplyScenario, supplyScenarioSegments } from '../../db/supplyScenarios';
import { coerceFlag } from '../../domain/supply/rules';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';

let t: TestApp;
let a: TestTenant;
let admin: string;
let planner: string;
let plain: string;
const seg: Record<string, number> = {};

const ts = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
let seq = 0;
const uniqueName = (label: string) => `${label} ${(seq += 1)}`;

const SCENARIOS = '/api/supply/scenarios';

/** docs/SUPPLY.md "Which demand a plan covers" (test/api/demandStreams.test.ts tests the switches) */
const DEFAULT_STREAMS = { demand_statistical: true, demand_netted: false, demand_causal: false, demand_maintenance: true };

const DEFAULT_EFFECTIVE = {
  firm_orders_block_horizon: false, respect_lead_time: false, late_orders: 'flag', max_delay_weeks: null, expedite: true, excess_cover_weeks: 13,
};

beforeAll(async () => {
  t = await startTestApp();
  a = await t.newTenant('supply-scen');
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

const q = <T = unknown>(accountId: string, fn: (tx: any) => Promise<T>) => withTenant(t.db, accountId, fn);
const scenarioCount = (accountId = a.accountId) => q(accountId, (tx) => tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM supply_scenarios`));
const storedRow = (id: number) => q<any>(a.accountId, (tx) => tx.one(sql.unsafe`SELECT * FROM supply_scenarios WHERE id = ${id}`));

async function createScenario(body: Record<string, unknown> = {}, token = planner) {
  const res = await t.call('post', SCENARIOS, { token, body: { name: uniqueName('Scenario'), ...body } });
  expect([res.status, res.body]).toEqual([201, expect.anything()]);
  return res.body;
}

async function addRun(accountId: string, scenarioId: number, status: string) {
  const runId = `run-${scenarioId}-${status}-${(seq += 1)}`;
  await q(accountId, (tx) => tx.query(sql.unsafe`
    INSERT INTO supply_runs (run_id, pipeline_id, scenario_id, status, planning_date) VALUES (${runId}, 1, ${scenarioId}, ${status}, '2024-01-01')`));
  return runId;
}

describe('scenarios', () => {
  test('a new tenant has the default scenario Base with every default', async () => {
    const tenant = await t.newTenant('supply-base');
    const token = await t.login(tenant.planner);
    const list = await t.call('get', SCENARIOS, { token });
    expect([list.status, list.headers['x-total-count']]).toEqual([200, '1']);
    expect(list.body).toEqual([{
      id: expect.any(Number), name: 'Base', description: 'Default supply scenario: both document 2 §4.2 flags off', param_overrides: {},
      effective: DEFAULT_EFFECTIVE, is_default: true, ...DEFAULT_STREAMS, created_by: null, created_at: ts, updated_at: ts,
    }]);
    const id = await q(tenant.accountId, (tx) => defaultSupplyScenarioId(tx));
    expect(id).toBe(list.body[0].id);
  });

  test('create with defaults, read one and list with filters', async () => {
    const tenant = await t.newTenant('supply-list');
    const token = await t.login(tenant.planner);
    const base = (await t.call('get', SCENARIOS, { token })).body[0];
    const res = await t.call('post', SCENARIOS, { token, body: { name: '  Tight  ' } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(Number), name: 'Tight', description: null, param_overrides: {}, effective: DEFAULT_EFFECTIVE, is_default: false, ...DEFAULT_STREAMS,
      created_by: tenant.planner.email, created_at: ts, updated_at: ts,
    });
    const one = await t.call('get', `${SCENARIOS}/${res.body.id}`, { token });
    expect([one.status, one.body]).toEqual([200, res.body]);
    const second = (await t.call('post', SCENARIOS, {
      token, body: { name: 'Firm block', description: 'frozen zone', param_overrides: { firm_orders_block_horizon: 'yes', late_orders: 'arrive_late' } },
    })).body;
    expect(second).toEqual({
      id: expect.any(Number), name: 'Firm block', description: 'frozen zone',
      param_overrides: { firm_orders_block_horizon: true, late_orders: 'arrive_late' },
      effective: { ...DEFAULT_EFFECTIVE, firm_orders_block_horizon: true, late_orders: 'arrive_late' },
      is_default: false, ...DEFAULT_STREAMS, created_by: tenant.planner.email, created_at: ts, updated_at: ts,
    });
    const list = await t.call('get', SCENARIOS, { token });
    expect([list.status, list.headers['x-total-count'], list.body]).toEqual([200, '3', [base, res.body, second]]);
    expect((await t.call('get', SCENARIOS, { token, query: { is_default: false } })).body).toEqual([res.body, second]);
    expect((await t.call('get', SCENARIOS, { token, query: { name: 'FIRM' } })).body).toEqual([second]);
    const paged = await t.call('get', SCENARIOS, { token, query: { sort: 'name', order: 'desc', skip: 1, limit: 1 } });
    expect([paged.headers['x-total-count'], paged.body]).toEqual(['3', [second]]);
  });

  test('bad bodies are 400s naming the field and create nothing', async () => {
    const before = await scenarioCount();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{}, 'body.name is required'],
      [{ name: '' }, 'body.name must NOT have fewer than 1 characters'],
      [{ name: '   ' }, 'body.name must match pattern "\\S"'],
      [{ name: 'x'.repeat(201) }, 'body.name must NOT have more than 200 characters'],
      [{ name: 'x', description: 5 }, 'body.description must be string'],
      [{ name: 'x', is_default: 'yes' }, 'body.is_default must be boolean'],
      [{ name: 'x', param_overrides: [] }, 'body.param_overrides must be object'],
      [{ name: 'x', param_overrides: { horizon: 26 } }, "body.param_overrides: unknown field 'horizon'"],
      [{ name: 'x', param_overrides: { late_orders: 'never' } }, 'body.param_overrides.late_orders must be one of: flag, arrive_late'],
      [{ name: 'x', param_overrides: { max_delay_weeks: -1 } }, 'body.param_overrides.max_delay_weeks must be >= 0'],
      [{ name: 'x', flags: {} }, "body: unknown field 'flags'"],
    ];
    for (const [body, message] of cases) {
      const res = await t.call('post', SCENARIOS, { token: planner, body });
      expect([JSON.stringify(body), res.status, res.body.detail]).toEqual([JSON.stringify(body), 400, message]);
    }
    expect(await scenarioCount()).toBe(before);
  });

  test('update is partial; param_overrides is replaced as a whole and coerced', async () => {
    const s = await createScenario({ description: 'keep me', param_overrides: { respect_lead_time: true, max_delay_weeks: 4 } });
    const res = await t.call('put', `${SCENARIOS}/${s.id}`, { token: planner, body: { param_overrides: { firm_orders_block_horizon: '1' } } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...s, param_overrides: { firm_orders_block_horizon: true },
      effective: { ...DEFAULT_EFFECTIVE, firm_orders_block_horizon: true }, updated_at: ts,
    });
    for (const [body, message] of [
      [{}, 'body must NOT have fewer than 1 properties'],
      [{ id: 3 }, "body: unknown field 'id'"],
      [{ param_overrides: { expedite: 'no' } }, 'body.param_overrides.expedite must be boolean'],
    ] as const) {
      const bad = await t.call('put', `${SCENARIOS}/${s.id}`, { token: planner, body });
      expect([bad.status, bad.body.detail]).toEqual([400, message]);
    }
    expect((await t.call('get', `${SCENARIOS}/${s.id}`, { token: planner })).body).toEqual(res.body);
  });

  test('names are unique ignoring case: 409 on create and rename, nothing written', async () => {
    const name = uniqueName('Unique');
    const first = await createScenario({ name });
    const before = await scenarioCount();
    const dup = await t.call('post', SCENARIOS, { token: planner, body: { name: `  ${name.toUpperCase()} ` } });
    expect([dup.status, dup.body.detail]).toEqual([409, `body.name: supply scenario ${first.id} is already named '${name}'`]);
    expect(await scenarioCount()).toBe(before);
    const other = await createScenario();
    const rename = await t.call('put', `${SCENARIOS}/${other.id}`, { token: planner, body: { name: name.toLowerCase() } });
    expect([rename.status, rename.body.detail]).toEqual([409, `body.name: supply scenario ${first.id} is already named '${name}'`]);
    expect((await t.call('get', `${SCENARIOS}/${other.id}`, { token: planner })).body).toEqual(other);
    const base = await t.call('post', SCENARIOS, { token: planner, body: { name: 'BASE' } });
    expect(base.status).toBe(409);
  });

  test('exactly one default: marking one unmarks the other; the default can be neither unmarked nor deleted', async () => {
    const tenant = await t.newTenant('supply-default');
    const token = await t.login(tenant.planner);
    const defaults = async () => (await t.call('get', SCENARIOS, { token, query: { is_default: true } })).body.map((s: { id: number }) => s.id);
    const base = (await t.call('get', SCENARIOS, { token })).body[0];
    const first = (await t.call('post', SCENARIOS, { token, body: { name: 'first', is_default: true } })).body;
    expect(first.is_default).toBe(true);
    expect(await defaults()).toEqual([first.id]);
    const second = (await t.call('post', SCENARIOS, { token, body: { name: 'second' } })).body;
    const mark = await t.call('put', `${SCENARIOS}/${second.id}`, { token, body: { is_default: true } });
    expect([mark.status, mark.body.is_default]).toEqual([200, true]);
    expect(await defaults()).toEqual([second.id]);
    expect(await q(tenant.accountId, (tx) => defaultSupplyScenarioId(tx))).toBe(second.id);

    const unmark = await t.call('put', `${SCENARIOS}/${second.id}`, { token, body: { is_default: false } });
    expect([unmark.status, unmark.body.detail]).toEqual([
      409, `body.is_default: supply scenario ${second.id} 'second' is the default; mark another scenario default instead (a tenant always has one)`,
    ]);
    const del = await t.call('delete', `${SCENARIOS}/${second.id}`, { token });
    expect([del.status, del.body.detail]).toEqual([
      409, `Supply scenario ${second.id} 'second' is the default and cannot be deleted; mark another scenario default first (PUT /api/supply/scenarios/{id} with is_default true)`,
    ]);
    expect(await defaults()).toEqual([second.id]);
    // false on a scenario that is not the default changes nothing and is allowed
    expect((await t.call('put', `${SCENARIOS}/${base.id}`, { token, body: { is_default: false } })).status).toBe(200);

    await t.call('put', `${SCENARIOS}/${first.id}`, { token, body: { is_default: true } });
    const ok = await t.call('delete', `${SCENARIOS}/${second.id}`, { token });
    expect([ok.status, ok.body]).toEqual([200, { status: 'deleted', id: second.id }]);
    expect(await defaults()).toEqual([first.id]);
    expect((await t.call('get', `${SCENARIOS}/${second.id}`, { token })).status).toBe(404);
  });

  test('a scenario with supply runs is deleted only with force; never while a run is running', async () => {
    const tenant = await t.newTenant('supply-runs');
    const token = await t.login(tenant.planner);
    const s = (await t.call('post', SCENARIOS, { token, body: { name: 'with runs' } })).body;
    await addRun(tenant.accountId, s.id, 'completed');
    await addRun(tenant.accountId, s.id, 'failed');
    const runs = () => q(tenant.accountId, (tx) => tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM supply_runs WHERE scenario_id = ${s.id}`));
    const refused = await t.call('delete', `${SCENARIOS}/${s.id}`, { token });
    expect([refused.status, refused.body.detail]).toEqual([409, `Supply scenario ${s.id} has 2 supply runs; delete with force=true to delete them too`]);
    const running = await addRun(tenant.accountId, s.id, 'running');
    const busy = await t.call('delete', `${SCENARIOS}/${s.id}`, { token, query: { force: true } });
    expect([busy.status, busy.body.detail]).toEqual([409, `Supply scenario ${s.id} has 1 running supply run; wait for it to finish or cancel it first`]);
    expect(await runs()).toBe(3);
    await q(tenant.accountId, (tx) => tx.query(sql.unsafe`UPDATE supply_runs SET status = 'completed' WHERE run_id = ${running}`));
    const forced = await t.call('delete', `${SCENARIOS}/${s.id}`, { token, query: { force: true } });
    expect([forced.status, forced.body]).toEqual([200, { status: 'deleted', id: s.id }]);
    expect(await runs()).toBe(0);
  });

  test('unknown ids are 404s', async () => {
    const missing = 2147483000;
    for (const [method, path, body] of [
      ['get', `${SCENARIOS}/${missing}`, undefined],
      ['put', `${SCENARIOS}/${missing}`, { name: 'x' }],
      ['delete', `${SCENARIOS}/${missing}`, undefined],
      ['put', `${SCENARIOS}/${missing}/param-overrides`, {}],
      ['get', `${SCENARIOS}/${missing}/segments`, undefined],
      ['put', `${SCENARIOS}/${missing}/segments`, { segment_ids: [] }],
    ] as const) {
      const res = await t.call(method, path, { token: planner, body });
      expect([method, path, res.status, res.body.detail]).toEqual([method, path, 404, `Supply scenario ${missing} not found`]);
    }
    const bad = await t.call('get', `${SCENARIOS}/0`, { token: planner });
    expect([bad.status, bad.body.detail]).toEqual([400, 'path.id must be >= 1']);
  });

  test('permissions: every user reads; writing needs can_run_process or an admin role', async () => {
    const s = await createScenario();
    expect((await t.call('get', SCENARIOS, { token: plain })).status).toBe(200);
    expect((await t.call('get', `${SCENARIOS}/${s.id}`, { token: plain })).status).toBe(200);
    expect((await t.call('get', `${SCENARIOS}/${s.id}/segments`, { token: plain })).status).toBe(200);
    const before = await scenarioCount();
    for (const [method, path, body] of [
      ['post', SCENARIOS, { name: 'nope' }],
      ['put', `${SCENARIOS}/${s.id}`, { name: 'nope' }],
      ['delete', `${SCENARIOS}/${s.id}`, undefined],
      ['put', `${SCENARIOS}/${s.id}/param-overrides`, { respect_lead_time: true }],
      ['put', `${SCENARIOS}/${s.id}/segments`, { segment_ids: [seg.Critical] }],
    ] as const) {
      const res = await t.call(method, path, { token: plain, body });
      expect([method, path, res.status, res.body.detail]).toEqual([method, path, 403, 'Permission can_run_process (or an admin role) required to start runs']);
    }
    expect(await scenarioCount()).toBe(before);
    expect((await t.call('get', `${SCENARIOS}/${s.id}`, { token: plain })).body).toEqual(s);
    expect((await t.call('get', `${SCENARIOS}/${s.id}/segments`, { token: plain })).body.segment_ids).toEqual([]);
    expect((await t.call('put', `${SCENARIOS}/${s.id}/param-overrides`, { token: admin, body: { expedite: false } })).status).toBe(200);
    expect((await t.call('get', SCENARIOS)).status).toBe(401);
  });
});

describe('param-overrides', () => {
  const path = (id: number) => `${SCENARIOS}/${id}/param-overrides`;

  test('the two flags are coerced to booleans exactly as the engine reads them, and stored as booleans', async () => {
    const s = await createScenario();
    const cases: Array<[unknown, boolean]> = [
      [true, true], [false, false],
      ['false', false], ['FALSE', false], ['0', false], ['off', false], ['no', false], ['n', false], ['f', false], ['', false], ['  False ', false],
      ['true', true], ['True', true], ['1', true], ['yes', true], ['Y', true], ['on', true], ['t', true], [' yes ', true],
      [1, true], [0, false], [-1, true], [0.5, true], ['2', true], ['0.0', false], ['-0', false],
      [null, false], ['maybe', false], [[], false], [[1], false], [{}, false], [{ on: true }, false],
    ];
    for (const [value, expected] of cases) {
      expect([JSON.stringify(value), coerceFlag(value, false)]).toEqual([JSON.stringify(value), expected]);
      const res = await t.call('put', path(s.id), { token: planner, body: { firm_orders_block_horizon: value, respect_lead_time: value } });
      expect([JSON.stringify(value), res.status, res.body.param_overrides]).toEqual([
        JSON.stringify(value), 200, { firm_orders_block_horizon: expected, respect_lead_time: expected },
      ]);
      expect(res.body.effective).toEqual({ ...DEFAULT_EFFECTIVE, firm_orders_block_horizon: expected, respect_lead_time: expected });
      const stored = (await storedRow(s.id)).param_overrides;
      expect([JSON.stringify(value), stored]).toEqual([JSON.stringify(value), { firm_orders_block_horizon: expected, respect_lead_time: expected }]);
    }
    const typed = await q(a.accountId, (tx) => tx.oneFirst(sql.unsafe`
      SELECT jsonb_typeof(param_overrides->'firm_orders_block_horizon') FROM supply_scenarios WHERE id = ${s.id}`));
    expect(typed).toBe('boolean');
  });

  test('engine options are stored as sent; the body replaces the overrides; {} restores the defaults', async () => {
    const s = await createScenario();
    const body = { respect_lead_time: 'on', late_orders: 'arrive_late', max_delay_weeks: 0, expedite: false, excess_cover_weeks: 6.5 };
    const res = await t.call('put', path(s.id), { token: planner, body });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...s, updated_at: ts,
      param_overrides: { respect_lead_time: true, late_orders: 'arrive_late', max_delay_weeks: 0, expedite: false, excess_cover_weeks: 6.5 },
      effective: { firm_orders_block_horizon: false, respect_lead_time: true, late_orders: 'arrive_late', max_delay_weeks: 0, expedite: false, excess_cover_weeks: 6.5 },
    });
    expect((await t.call('get', `${SCENARIOS}/${s.id}`, { token: plain })).body).toEqual(res.body);
    const scenario = await q(a.accountId, (tx) => getSupplyScenario(tx, s.id));
    expect(scenario).toEqual({
      id: s.id, name: s.name, description: null, is_default: false, ...DEFAULT_STREAMS, created_by: a.planner.email, created_at: ts, updated_at: ts,
      param_overrides: res.body.param_overrides,
      flags: { firm_orders_block_horizon: false, respect_lead_time: true },
      options: { lateOrders: 'arrive_late', maxDelayWeeks: 0, expedite: false, excessCoverWeeks: 6.5 },
    });

    const replaced = await t.call('put', path(s.id), { token: planner, body: { max_delay_weeks: 52 } });
    expect(replaced.body.param_overrides).toEqual({ max_delay_weeks: 52 });
    expect(replaced.body.effective).toEqual({ ...DEFAULT_EFFECTIVE, max_delay_weeks: 52 });
    const reset = await t.call('put', path(s.id), { token: planner, body: {} });
    expect([reset.body.param_overrides, reset.body.effective]).toEqual([{}, DEFAULT_EFFECTIVE]);
    expect(await q(a.accountId, (tx) => getSupplyScenario(tx, s.id))).toEqual(expect.objectContaining({
      flags: { firm_orders_block_horizon: false, respect_lead_time: false }, options: {},
    }));
  });

  test('bad values and unknown keys are 400s naming the key, and change nothing', async () => {
    const s = await createScenario({ param_overrides: { respect_lead_time: true, late_orders: 'flag' } });
    const before = await storedRow(s.id);
    const cases: Array<[unknown, string]> = [
      [{ horizon: 26 }, "body: unknown field 'horizon'"],
      [{ respect_lead_time: true, lateOrders: 'flag' }, "body: unknown field 'lateOrders'"],
      [{ check: false }, "body: unknown field 'check'"],
      [{ late_orders: 'late' }, 'body.late_orders must be one of: flag, arrive_late'],
      [{ late_orders: null }, 'body.late_orders must be string'],
      [{ max_delay_weeks: -1 }, 'body.max_delay_weeks must be >= 0'],
      [{ max_delay_weeks: 1.5 }, 'body.max_delay_weeks must be integer'],
      [{ max_delay_weeks: 53 }, 'body.max_delay_weeks must be <= 52'],
      [{ max_delay_weeks: '4' }, 'body.max_delay_weeks must be integer'],
      [{ expedite: 'yes' }, 'body.expedite must be boolean'],
      [{ expedite: 1 }, 'body.expedite must be boolean'],
      [{ excess_cover_weeks: 0 }, 'body.excess_cover_weeks must be > 0'],
      [{ excess_cover_weeks: -2 }, 'body.excess_cover_weeks must be > 0'],
      [{ excess_cover_weeks: 521 }, 'body.excess_cover_weeks must be <= 520'],
      [{ excess_cover_weeks: '13' }, 'body.excess_cover_weeks must be number'],
      [[true], 'body must be object'],
    ];
    for (const [body, message] of cases) {
      const res = await t.call('put', path(s.id), { token: planner, body });
      expect([JSON.stringify(body), res.status, res.body.detail]).toEqual([JSON.stringify(body), 400, message]);
    }
    expect(await storedRow(s.id)).toEqual(before);
  });

  test('the update is audited with the old and new overrides', async () => {
    const s = await createScenario({ param_overrides: { respect_lead_time: true } });
    await t.call('put', path(s.id), { token: planner, body: { firm_orders_block_horizon: 'yes' } });
    const res = await t.call('get', '/api/audit-log', { token: admin, query: { entity_type: 'supply_scenario.param_overrides', entity_id: String(s.id) } });
    expect(res.body.items).toEqual([expect.objectContaining({
      action: 'update',
      old_value: { param_overrides: { respect_lead_time: true } },
      new_value: { param_overrides: { firm_orders_block_horizon: true } },
    })]);
  });
});

describe('segments', () => {
  const path = (id: number) => `${SCENARIOS}/${id}/segments`;

  test('a new scenario plans every series; PUT replaces the segments; [] restores every series', async () => {
    const s = await createScenario();
    const empty = await t.call('get', path(s.id), { token: plain });
    expect([empty.status, empty.body]).toEqual([200, { scenario_id: s.id, segment_ids: [], segments: [], applies_to_all: true }]);
    const put = await t.call('put', path(s.id), { token: planner, body: { segment_ids: [seg.Slow, seg.Critical] } });
    const two = {
      scenario_id: s.id, segment_ids: [seg.Critical, seg.Slow],
      segments: [{ id: seg.Critical, name: 'Critical' }, { id: seg.Slow, name: 'Slow' }], applies_to_all: false,
    };
    expect([put.status, put.body]).toEqual([200, two]);
    expect((await t.call('get', path(s.id), { token: plain })).body).toEqual(two);
    expect(await q(a.accountId, (tx) => supplyScenarioSegments(tx, s.id))).toEqual([seg.Critical, seg.Slow]);
    const one = await t.call('put', path(s.id), { token: planner, body: { segment_ids: [seg.Standard] } });
    expect(one.body.segment_ids).toEqual([seg.Standard]);
    const cleared = await t.call('put', path(s.id), { token: planner, body: { segment_ids: [] } });
    expect(cleared.body).toEqual({ scenario_id: s.id, segment_ids: [], segments: [], applies_to_all: true });
    expect(await q(a.accountId, (tx) => supplyScenarioSegments(tx, s.id))).toEqual([]);
  });

  test('unknown or repeated segments are 400s naming them, and change nothing', async () => {
    const s = await createScenario();
    await t.call('put', path(s.id), { token: planner, body: { segment_ids: [seg.Critical] } });
    const cases: Array<[unknown, string]> = [
      [{ segment_ids: [seg.Standard, 999999] }, 'body.segment_ids: segment 999999 does not exist'],
      [{ segment_ids: [999998, seg.Slow, 999999] }, 'body.segment_ids: segments 999998, 999999 do not exist'],
      [{ segment_ids: [seg.Slow, seg.Slow] }, 'body.segment_ids must NOT have duplicate items (items ## 1 and 0 are identical)'],
      [{ segment_ids: [0] }, 'body.segment_ids[0] must be >= 1'],
      [{ segment_ids: ['x'] }, 'body.segment_ids[0] must be integer'],
      [{}, 'body.segment_ids is required'],
      [{ segment_ids: [], all: true }, "body: unknown field 'all'"],
    ];
    for (const [body, message] of cases) {
      const res = await t.call('put', path(s.id), { token: planner, body });
      expect([JSON.stringify(body), res.status, res.body.detail]).toEqual([JSON.stringify(body), 400, message]);
    }
    expect(await q(a.accountId, (tx) => supplyScenarioSegments(tx, s.id))).toEqual([seg.Critical]);
  });

  test('a deleted segment leaves the scenarios that named it', async () => {
    const s = await createScenario();
    const tmp = await q(a.accountId, (tx) => tx.oneFirst(sql.unsafe`INSERT INTO segments (name) VALUES ('Temporary') RETURNING id`)) as number;
    await t.call('put', path(s.id), { token: planner, body: { segment_ids: [tmp, seg.Critical] } });
    await q(a.accountId, (tx) => tx.query(sql.unsafe`DELETE FROM segments WHERE id = ${tmp}`));
    expect((await t.call('get', path(s.id), { token: planner })).body.segment_ids).toEqual([seg.Critical]);
  });
});

describe('db reads the supply step uses', () => {
  test('getSupplyScenario reads the flags as the engine does, even from rows written around the API', async () => {
    const s = await createScenario();
    await q(a.accountId, (tx) => tx.query(sql.unsafe`
      UPDATE supply_scenarios SET param_overrides = '{"firm_orders_block_horizon": "off", "respect_lead_time": 1, "expedite": "0"}' WHERE id = ${s.id}`));
    const row = await q(a.accountId, (tx) => getSupplyScenario(tx, s.id));
    expect([row!.flags, row!.options]).toEqual([{ firm_orders_block_horizon: false, respect_lead_time: true }, { expedite: false }]);
    expect(await q(a.accountId, (tx) => getSupplyScenario(tx, 2147483000))).toBeNull();
  });

  test('defaultSupplyScenarioId is null only for a tenant left without a default', async () => {
    const tenant = await t.newTenant('supply-nodefault');
    const id = await q(tenant.accountId, (tx) => defaultSupplyScenarioId(tx));
    expect(id).toEqual(expect.any(Number));
    await q(tenant.accountId, (tx) => tx.query(sql.unsafe`UPDATE supply_scenarios SET is_default = false`));
    expect(await q(tenant.accountId, (tx) => defaultSupplyScenarioId(tx))).toBeNull();
    expect(await q(tenant.accountId, (tx) => supplyScenarioSegments(tx, id!))).toEqual([]);
  });
});
