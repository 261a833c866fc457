import { WORKFLOW_STEPS } from '../../api/routes/processWorkflows/schemas';
import { withTenant } from '../../db/pool';
import { getProcessWorkflow, touchLastRun } from '../../db/processWorkflows';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';

let t: TestApp;
let a: TestTenant;
let admin: string;
let planner: string;
let plain: string;
let pipelineId: number;
beforeAll(async () => {
  t = await startTestApp();
  a = await t.newTenant('wf-a');
  admin = await t.login(a.admin);
  planner = await t.login(a.planner);
  plain = await t.login(await t.addUser(a.accountId, { role: 'user' }));
  pipelineId = (await t.call('post', '/api/scenario-pipeline', { token: planner, body: { name: 'Main' } })).body.id;
});
afterAll(() => t.close());

const ts = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
let seq = 0;
const uniqueName = (label: string) => `${label} ${Date.now()}-${(seq += 1)}`;

async function workflow(body: Record<string, unknown>, token = planner) {
  const res = await t.call('post', '/api/process-workflows', { token, body });
  expect([res.status, res.body]).toEqual([201, expect.anything()]);
  return res.body;
}

const ids = (list: Array<{ workflow_id: number }>) => list.map((w) => w.workflow_id);

describe('create and list', () => {
  test('a planner with can_run_process creates one; defaults are empty; new ones go last', async () => {
    const tenant = await t.newTenant('wf-create');
    const token = await t.login(tenant.planner);
    const p = (await t.call('post', '/api/scenario-pipeline', { token, body: { name: 'P' } })).body;
    const body = { name: 'Weekly forecast', steps: ['etl', 'outlier', 'forecast', 'best-method'], segment_ids: [3, 1], scenario_pipeline_id: p.id, step_workers: { forecast: 8, etl: 2 } };
    const res = await t.call('post', '/api/process-workflows', { token, body });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      ...body, workflow_id: expect.any(Number), sort_order: 1, last_run_at: null, created_by: tenant.planner.email, created_at: ts, updated_at: ts,
    });
    const second = await t.call('post', '/api/process-workflows', { token: await t.login(tenant.admin), body: { name: 'Supply only', steps: ['supply'] } });
    expect(second.body).toEqual({
      workflow_id: expect.any(Number), name: 'Supply only', steps: ['supply'], segment_ids: [], scenario_pipeline_id: null, step_workers: {},
      sort_order: 2, last_run_at: null, created_by: tenant.admin.email, created_at: ts, updated_at: ts,
    });
    const list = await t.call('get', '/api/process-workflows', { token: await t.login(await t.addUser(tenant.accountId, { role: 'user' })) });
    expect(list.status).toBe(200);
    expect(list.body).toEqual([res.body, second.body]);
    expect(list.headers['x-total-count']).toBe('2');
    const page = await t.call('get', '/api/process-workflows', { token, query: { skip: 1, limit: 1 } });
    expect(ids(page.body)).toEqual([second.body.workflow_id]);
  });

  test('every documented step is accepted', async () => {
    const w = await workflow({ name: uniqueName('Everything'), steps: [...WORKFLOW_STEPS], step_workers: Object.fromEntries(WORKFLOW_STEPS.map((s, i) => [s, i + 1])) });
    expect(w.steps).toEqual([...WORKFLOW_STEPS]);
    expect(WORKFLOW_STEPS).toEqual(['etl', 'outlier', 'characterization', 'forecast', 'backtest', 'backtest-forecast', 'best-method', 'distribution', 'meio', 'supply', 'eoq', 'allocation', 'service-backtest']);
  });

  test('bad bodies are 400s naming the field (and the index), and create nothing', async () => {
    const before = (await t.call('get', '/api/process-workflows', { token: planner })).headers['x-total-count'];
    const cases: Array<[Record<string, unknown>, string | RegExp]> = [
      [{ steps: ['etl'] }, 'body.name is required'],
      [{ name: 'x' }, 'body.steps is required'],
      [{ name: 'x', steps: [] }, 'body.steps must NOT have fewer than 1 items'],
      [{ name: 'x', steps: ['etl', 'forecast', 'train'] }, `body.steps[2] must be one of: ${WORKFLOW_STEPS.join(', ')}`],
      [{ name: 'x', steps: ['etl', 'etl'] }, /^body\.steps must NOT have duplicate items/],
      [{ name: 'x', steps: 'etl' }, 'body.steps must be array'],
      [{ name: 'x', steps: ['etl'], step_workers: { meio: 2 } }, "body.step_workers.meio: 'meio' is not one of the workflow's steps (etl)"],
      [{ name: 'x', steps: ['etl'], step_workers: { etl: 65 } }, 'body.step_workers.etl must be <= 64'],
      [{ name: 'x', steps: ['etl'], step_workers: { etl: 0 } }, 'body.step_workers.etl must be >= 1'],
      [{ name: 'x', steps: ['etl'], step_workers: { etl: 'four' } }, 'body.step_workers.etl must be integer'],
      [{ name: 'x', steps: ['etl'], segment_ids: [1, 'a'] }, 'body.segment_ids[1] must be integer'],
      [{ name: 'x', steps: ['etl'], scenario_pipeline_id: 987654 }, 'body.scenario_pipeline_id: scenario pipeline 987654 does not exist'],
      [{ name: 'x', steps: ['etl'], scenario_pipeline_id: 'main' }, 'body.scenario_pipeline_id must be integer'],
      [{ name: 'x', steps: ['etl'], sort_order: 1 }, "body: unknown field 'sort_order'"],
    ];
    for (const [body, message] of cases) {
      const res = await t.call('post', '/api/process-workflows', { token: planner, body });
      expect([JSON.stringify(body), res.status]).toEqual([JSON.stringify(body), 400]);
      expect(res.body.detail).toEqual(typeof message === 'string' ? message : expect.stringMatching(message));
    }
    expect((await t.call('get', '/api/process-workflows', { token: planner })).headers['x-total-count']).toBe(before);
  });

  test('names are unique ignoring case (409)', async () => {
    const name = uniqueName('Nightly');
    const w = await workflow({ name, steps: ['etl'] });
    const dup = await t.call('post', '/api/process-workflows', { token: planner, body: { name: name.toUpperCase(), steps: ['forecast'] } });
    expect([dup.status, dup.body.detail]).toEqual([409, `body.name: process workflow ${w.workflow_id} is already named '${name}'`]);
  });
});

describe('update and delete', () => {
  test('update is partial; step_workers is replaced whole', async () => {
    const w = await workflow({ name: uniqueName('Upd'), steps: ['etl', 'forecast'], segment_ids: [2], scenario_pipeline_id: pipelineId, step_workers: { forecast: 4 } });
    const res = await t.call('put', `/api/process-workflows/${w.workflow_id}`, { token: planner, body: { steps: ['etl', 'forecast', 'backtest'], step_workers: { backtest: 16 } } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...w, steps: ['etl', 'forecast', 'backtest'], step_workers: { backtest: 16 }, updated_at: ts });
    const detach = await t.call('put', `/api/process-workflows/${w.workflow_id}`, { token: planner, body: { scenario_pipeline_id: null, segment_ids: [] } });
    expect(detach.body).toMatchObject({ scenario_pipeline_id: null, segment_ids: [], name: w.name, sort_order: w.sort_order });
  });

  test('step_workers keys must stay within the steps, whichever of the two changes', async () => {
    const w = await workflow({ name: uniqueName('Workers'), steps: ['etl', 'meio'], step_workers: { meio: 4 } });
    const dropStep = await t.call('put', `/api/process-workflows/${w.workflow_id}`, { token: planner, body: { steps: ['etl'] } });
    expect([dropStep.status, dropStep.body.detail]).toEqual([400, "body.steps: step_workers has 'meio', which is no longer one of the steps; send step_workers too"]);
    const badKey = await t.call('put', `/api/process-workflows/${w.workflow_id}`, { token: planner, body: { step_workers: { supply: 2 } } });
    expect([badKey.status, badKey.body.detail]).toEqual([400, "body.step_workers.supply: 'supply' is not one of the workflow's steps (etl, meio)"]);
    const both = await t.call('put', `/api/process-workflows/${w.workflow_id}`, { token: planner, body: { steps: ['etl'], step_workers: {} } });
    expect([both.status, both.body.steps, both.body.step_workers]).toEqual([200, ['etl'], {}]);
  });

  test('409 on a name clash, 400 on an unknown pipeline or an empty body, 404 on an unknown id', async () => {
    const first = await workflow({ name: uniqueName('First'), steps: ['etl'] });
    const second = await workflow({ name: uniqueName('Second'), steps: ['etl'] });
    const clash = await t.call('put', `/api/process-workflows/${second.workflow_id}`, { token: planner, body: { name: first.name } });
    expect([clash.status, clash.body.detail]).toEqual([409, `body.name: process workflow ${first.workflow_id} is already named '${first.name}'`]);
    const pipe = await t.call('put', `/api/process-workflows/${second.workflow_id}`, { token: planner, body: { scenario_pipeline_id: 987654 } });
    expect([pipe.status, pipe.body.detail]).toEqual([400, 'body.scenario_pipeline_id: scenario pipeline 987654 does not exist']);
    const empty = await t.call('put', `/api/process-workflows/${second.workflow_id}`, { token: planner, body: {} });
    expect([empty.status, empty.body.detail]).toEqual([400, 'body must NOT have fewer than 1 properties']);
    for (const method of ['put', 'delete'] as const) {
      const res = await t.call(method, '/api/process-workflows/987654', { token: planner, body: method === 'put' ? { name: 'x' } : undefined });
      expect([method, res.status, res.body.detail]).toEqual([method, 404, 'Process workflow 987654 not found']);
    }
    const badId = await t.call('delete', '/api/process-workflows/first', { token: planner });
    expect([badId.status, badId.body.detail]).toEqual([400, 'path.workflow_id must be integer']);
  });

  test('delete removes it; the others keep their order', async () => {
    const tenant = await t.newTenant('wf-delete');
    const token = await t.login(tenant.planner);
    const made = [];
    for (const name of ['w1', 'w2', 'w3']) made.push((await workflow({ name, steps: ['etl'] }, token)).workflow_id);
    const res = await t.call('delete', `/api/process-workflows/${made[1]}`, { token });
    expect([res.status, res.body]).toEqual([200, { status: 'deleted', workflow_id: made[1] }]);
    expect(ids((await t.call('get', '/api/process-workflows', { token })).body)).toEqual([made[0], made[2]]);
    const next = await workflow({ name: 'w4', steps: ['etl'] }, token);
    expect(next.sort_order).toBe(4);
  });
});

describe('reorder', () => {
  let tenant: TestTenant;
  let token: string;
  let made: number[];
  beforeAll(async () => {
    tenant = await t.newTenant('wf-reorder');
    token = await t.login(tenant.planner);
    made = [];
    for (const name of ['alpha', 'beta', 'gamma', 'delta']) made.push((await workflow({ name, steps: ['etl'] }, token)).workflow_id);
  });
  const order = async () => ids((await t.call('get', '/api/process-workflows', { token })).body);

  test('sets the order of the whole list and returns it', async () => {
    const wanted = [made[2], made[0], made[3], made[1]];
    const res = await t.call('put', '/api/process-workflows/reorder', { token, body: { ordered_ids: wanted } });
    expect(res.status).toBe(200);
    expect(ids(res.body)).toEqual(wanted);
    expect(res.body.map((w: { sort_order: number }) => w.sort_order)).toEqual([1, 2, 3, 4]);
    expect(res.body.map((w: { name: string }) => w.name)).toEqual(['gamma', 'alpha', 'delta', 'beta']);
    expect(await order()).toEqual(wanted);
    // new workflows still go last
    const epsilon = await workflow({ name: 'epsilon', steps: ['etl'] }, token);
    expect(await order()).toEqual([...wanted, epsilon.workflow_id]);
    made.push(epsilon.workflow_id);
  });

  test('an unknown, repeated or missing id is a 400 and nothing moves', async () => {
    const before = await order();
    const reversed = [...before].reverse();
    const cases: Array<[unknown, string | RegExp]> = [
      [[...reversed.slice(0, 2), 987654, ...reversed.slice(2)], 'body.ordered_ids[2]: process workflow 987654 does not exist'],
      [[...reversed, reversed[0]], /^body\.ordered_ids must NOT have duplicate items/],
      [reversed.slice(1), `body.ordered_ids: missing process workflow ${reversed[0]}; list every workflow exactly once`],
      [reversed.slice(2), `body.ordered_ids: missing process workflows ${before.filter((id) => !reversed.slice(2).includes(id)).join(', ')}; list every workflow exactly once`],
      [[], /^body\.ordered_ids: missing process workflows /],
      [[...reversed.slice(0, -1), 'x'], `body.ordered_ids[${reversed.length - 1}] must be integer`],
      ['1,2,3', 'body.ordered_ids must be array'],
    ];
    for (const [ordered, message] of cases) {
      const res = await t.call('put', '/api/process-workflows/reorder', { token, body: { ordered_ids: ordered } });
      expect([JSON.stringify(ordered), res.status]).toEqual([JSON.stringify(ordered), 400]);
      expect(res.body.detail).toEqual(typeof message === 'string' ? message : expect.stringMatching(message));
      expect(await order()).toEqual(before);
    }
    const missing = await t.call('put', '/api/process-workflows/reorder', { token, body: {} });
    expect([missing.status, missing.body.detail]).toEqual([400, 'body.ordered_ids is required']);
  });

  test('an empty list reorders an empty tenant', async () => {
    const empty = await t.newTenant('wf-empty');
    const res = await t.call('put', '/api/process-workflows/reorder', { token: await t.login(empty.planner), body: { ordered_ids: [] } });
    expect([res.status, res.body]).toEqual([200, []]);
  });

  test("ids of another tenant's workflows are unknown here", async () => {
    const other = await t.newTenant('wf-reorder-other');
    const otherToken = await t.login(other.planner);
    const before = await order();
    const theirs = [];
    for (let i = 0; i < before.length + 2; i += 1) theirs.push((await workflow({ name: `o${i}`, steps: ['etl'] }, otherToken)).workflow_id);
    const foreign = theirs[theirs.length - 1];
    const res = await t.call('put', '/api/process-workflows/reorder', { token, body: { ordered_ids: [...before, foreign] } });
    expect([res.status, res.body.detail]).toEqual([400, `body.ordered_ids[${before.length}]: process workflow ${foreign} does not exist`]);
    expect(await order()).toEqual(before);
    expect(ids((await t.call('get', '/api/process-workflows', { token: otherToken })).body)).toEqual(theirs);
  });
});

describe('permissions and tenancy', () => {
  test('a plain user may list but not create, update, delete or reorder (403)', async () => {
    const w = await workflow({ name: uniqueName('Guarded'), steps: ['etl'] });
    expect((await t.call('get', '/api/process-workflows', { token: plain })).status).toBe(200);
    for (const [method, path, body] of [
      ['post', '/api/process-workflows', { name: 'sneaky', steps: ['etl'] }],
      ['put', `/api/process-workflows/${w.workflow_id}`, { name: 'renamed' }],
      ['delete', `/api/process-workflows/${w.workflow_id}`, undefined],
      ['put', '/api/process-workflows/reorder', { ordered_ids: [w.workflow_id] }],
    ] as const) {
      const res = await t.call(method, path, { token: plain, body });
      expect([method, path, res.status]).toEqual([method, path, 403]);
      expect(res.body.detail).toBe('Permission can_run_process (or an admin role) required to start runs');
    }
    const after = (await t.call('get', '/api/process-workflows', { token: plain })).body.find((x: { workflow_id: number }) => x.workflow_id === w.workflow_id);
    expect(after).toEqual(w);
    // an admin without the flag may
    const byAdmin = await t.call('put', `/api/process-workflows/${w.workflow_id}`, { token: admin, body: { segment_ids: [1] } });
    expect(byAdmin.status).toBe(200);
  });

  test("a workflow of tenant B is invisible from tenant A, and B's pipeline cannot be linked", async () => {
    const ta = await t.newTenant('wf-iso-a');
    const tb = await t.newTenant('wf-iso-b');
    const tokenA = await t.login(ta.planner);
    const tokenB = await t.login(tb.planner);
    let lastB = 0;
    for (const name of ['b1', 'b2']) lastB = (await workflow({ name, steps: ['etl'] }, tokenB)).workflow_id;
    const pipeB = (await t.call('post', '/api/scenario-pipeline', { token: tokenB, body: { name: 'pb' } })).body.id;
    expect((await t.call('get', '/api/process-workflows', { token: tokenA })).body).toEqual([]);
    const put = await t.call('put', `/api/process-workflows/${lastB}`, { token: tokenA, body: { name: 'stolen' } });
    expect([put.status, put.body.detail]).toEqual([404, `Process workflow ${lastB} not found`]);
    const del = await t.call('delete', `/api/process-workflows/${lastB}`, { token: tokenA });
    expect(del.status).toBe(404);
    const link = await t.call('post', '/api/process-workflows', { token: tokenA, body: { name: 'a', steps: ['etl'], scenario_pipeline_id: pipeB } });
    expect([link.status, link.body.detail]).toEqual([400, `body.scenario_pipeline_id: scenario pipeline ${pipeB} does not exist`]);
  });

  test('mutations are audited', async () => {
    const tenant = await t.newTenant('wf-audit');
    const token = await t.login(tenant.planner);
    const adminToken = await t.login(tenant.admin);
    const w1 = await workflow({ name: 'one', steps: ['etl'] }, token);
    const w2 = await workflow({ name: 'two', steps: ['etl'] }, token);
    await t.call('put', `/api/process-workflows/${w1.workflow_id}`, { token, body: { steps: ['etl', 'forecast'] } });
    await t.call('put', '/api/process-workflows/reorder', { token, body: { ordered_ids: [w2.workflow_id, w1.workflow_id] } });
    await t.call('delete', `/api/process-workflows/${w2.workflow_id}`, { token });
    const items = (await t.call('get', '/api/audit-log', { token: adminToken, query: { entity_type: 'process_workflow', sort_dir: 'asc' } })).body.items;
    expect(items.map((i: { action: string; entity_id: string | null }) => [i.action, i.entity_id])).toEqual([
      ['create', String(w1.workflow_id)], ['create', String(w2.workflow_id)], ['update', String(w1.workflow_id)], ['reorder', null], ['delete', String(w2.workflow_id)],
    ]);
    expect(items[2]).toMatchObject({ old_value: { steps: ['etl'] }, new_value: { steps: ['etl', 'forecast'] } });
    expect(items[3]).toMatchObject({ old_value: { ordered_ids: [w1.workflow_id, w2.workflow_id] }, new_value: { ordered_ids: [w2.workflow_id, w1.workflow_id] } });
    expect(items[4]).toMatchObject({ old_value: { name: 'two' }, new_value: { deleted: true } });
  });
});

describe('functions for the run endpoint', () => {
  test('getProcessWorkflow reads one workflow; touchLastRun stamps last_run_at', async () => {
    const w = await workflow({ name: uniqueName('Runnable'), steps: ['etl', 'forecast'], scenario_pipeline_id: pipelineId });
    const read = await withTenant(t.db, a.accountId, (tx) => getProcessWorkflow(tx, w.workflow_id));
    expect(read).toMatchObject({ workflow_id: w.workflow_id, steps: ['etl', 'forecast'], scenario_pipeline_id: pipelineId, last_run_at: null });
    expect(await withTenant(t.db, a.accountId, (tx) => getProcessWorkflow(tx, 987654))).toBeNull();
    await withTenant(t.db, a.accountId, (tx) => touchLastRun(tx, w.workflow_id));
    const listed = (await t.call('get', '/api/process-workflows', { token: plain })).body.find((x: { workflow_id: number }) => x.workflow_id === w.workflow_id);
    expect(listed.last_run_at).toEqual(ts);
    expect(Date.now() - Date.parse(listed.last_run_at)).toBeLessThan(60_000);
  });
});
