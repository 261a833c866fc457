import { registerPipelineResultCopier } from '../../db/pipelines';
import { sql, withTenant } from '../../db/pool';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';

let t: TestApp;
let a: TestTenant;
let admin: string;
let planner: string;
beforeAll(async () => {
  t = await startTestApp();
  a = await t.newTenant('pipe-a');
  admin = await t.login(a.admin);
  planner = await t.login(a.planner);
});
afterAll(() => t.close());

const ts = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
let seq = 0;
const uniqueName = (label: string) => `${label} ${Date.now()}-${(seq += 1)}`;

async function pipeline(body: Record<string, unknown>, token = planner) {
  const res = await t.call('post', '/api/scenario-pipeline', { token, body });
  expect([res.status, res.body]).toEqual([201, expect.anything()]);
  return res.body;
}

async function scenario(body: Record<string, unknown>, token = planner) {
  const res = await t.call('post', '/api/forecast/scenarios', { token, body });
  expect(res.status).toBe(201);
  return res.body;
}

describe('create and read', () => {
  test('defaults: no scenario, active, empty settings and segments', async () => {
    const name = uniqueName('Plain');
    const res = await t.call('post', '/api/scenario-pipeline', { token: planner, body: { name } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(Number), name, description: null, forecast_scenario_id: null, is_active: true, settings: {}, segment_ids: [],
      created_by: a.planner.email, created_at: ts, updated_at: ts, last_run_at: null,
    });
    const one = await t.call('get', `/api/scenario-pipeline/${res.body.id}`, { token: planner });
    expect([one.status, one.body]).toEqual([200, res.body]);
  });

  test('every documented field is stored; segment ids come back ascending', async () => {
    const s = await scenario({ name: uniqueName('For pipeline') });
    const body = { name: uniqueName('Full'), description: 'EU plants', forecast_scenario_id: s.id, is_active: false, settings: { n_workers: 4 }, segment_ids: [9, 2, 5] };
    const p = await pipeline(body);
    expect(p).toEqual({ ...body, segment_ids: [2, 5, 9], id: expect.any(Number), created_by: a.planner.email, created_at: ts, updated_at: ts, last_run_at: null });
  });

  test('list is ordered by id and paginated; total in X-Total-Count', async () => {
    const tenant = await t.newTenant('pipe-list');
    const token = await t.login(tenant.planner);
    const ids = [];
    for (const name of ['p1', 'p2', 'p3']) ids.push((await pipeline({ name }, token)).id);
    const all = await t.call('get', '/api/scenario-pipeline', { token });
    expect(all.body.map((p: { id: number }) => p.id)).toEqual(ids);
    expect(all.headers['x-total-count']).toBe('3');
    const page = await t.call('get', '/api/scenario-pipeline', { token, query: { skip: 2, limit: 5 } });
    expect(page.body.map((p: { id: number }) => p.id)).toEqual([ids[2]]);
    const bad = await t.call('get', '/api/scenario-pipeline', { token, query: { limit: 5000 } });
    expect([bad.status, bad.body.detail]).toEqual([400, 'query.limit must be <= 1000']);
  });

  test('bad bodies are 400s naming the field', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{}, 'body.name is required'],
      [{ name: 'x', forecast_scenario_id: 987654 }, 'body.forecast_scenario_id: forecast scenario 987654 does not exist'],
      [{ name: 'x', forecast_scenario_id: 0 }, 'body.forecast_scenario_id must be >= 1'],
      [{ name: 'x', segment_ids: [1, 0] }, 'body.segment_ids[1] must be >= 1'],
      [{ name: 'x', segment_ids: ['a'] }, 'body.segment_ids[0] must be integer'],
      [{ name: 'x', is_active: 1 }, 'body.is_active must be boolean'],
      [{ name: 'x', settings: 'fast' }, 'body.settings must be object'],
      [{ name: 'x', last_run_at: null }, "body: unknown field 'last_run_at'"],
    ];
    for (const [body, message] of cases) {
      const res = await t.call('post', '/api/scenario-pipeline', { token: planner, body });
      expect([JSON.stringify(body), res.status, res.body.detail]).toEqual([JSON.stringify(body), 400, message]);
    }
  });

  test('names are unique ignoring case (409)', async () => {
    const name = uniqueName('Unique');
    const p = await pipeline({ name });
    const dup = await t.call('post', '/api/scenario-pipeline', { token: planner, body: { name: name.toLowerCase() } });
    expect([dup.status, dup.body.detail]).toEqual([409, `body.name: pipeline ${p.id} is already named '${name}'`]);
    const other = await pipeline({ name: uniqueName('Other') });
    const rename = await t.call('put', `/api/scenario-pipeline/${other.id}`, { token: planner, body: { name } });
    expect(rename.status).toBe(409);
  });
});

describe('update and delete', () => {
  test('update is partial; settings and segment_ids are replaced whole', async () => {
    const s = await scenario({ name: uniqueName('S') });
    const p = await pipeline({ name: uniqueName('Upd'), description: 'keep', forecast_scenario_id: s.id, settings: { a: 1 }, segment_ids: [1, 2] });
    const res = await t.call('put', `/api/scenario-pipeline/${p.id}`, { token: planner, body: { settings: { b: 2 }, segment_ids: [7] } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...p, settings: { b: 2 }, segment_ids: [7], updated_at: ts });
    const detach = await t.call('put', `/api/scenario-pipeline/${p.id}`, { token: planner, body: { forecast_scenario_id: null, is_active: false } });
    expect(detach.body).toMatchObject({ forecast_scenario_id: null, is_active: false, description: 'keep', segment_ids: [7] });
    const bad = await t.call('put', `/api/scenario-pipeline/${p.id}`, { token: planner, body: { forecast_scenario_id: 987654 } });
    expect([bad.status, bad.body.detail]).toEqual([400, 'body.forecast_scenario_id: forecast scenario 987654 does not exist']);
    const empty = await t.call('put', `/api/scenario-pipeline/${p.id}`, { token: planner, body: {} });
    expect([empty.status, empty.body.detail]).toEqual([400, 'body must NOT have fewer than 1 properties']);
  });

  test('unknown ids are 404s naming the id', async () => {
    for (const [method, path, body] of [
      ['get', '/api/scenario-pipeline/987654', undefined],
      ['put', '/api/scenario-pipeline/987654', { name: 'x' }],
      ['delete', '/api/scenario-pipeline/987654', undefined],
      ['post', '/api/scenario-pipeline/987654/segments', { segment_id: 1 }],
      ['delete', '/api/scenario-pipeline/987654/segments/1', undefined],
      ['get', '/api/scenario-pipeline/987654/baseline/1_1', undefined],
    ] as const) {
      const res = await t.call(method, path, { token: planner, body });
      expect([method, path, res.status, res.body.detail]).toEqual([method, path, 404, 'Pipeline 987654 not found']);
    }
  });

  test('delete removes the pipeline and its segment links', async () => {
    const p = await pipeline({ name: uniqueName('Doomed'), segment_ids: [3] });
    const res = await t.call('delete', `/api/scenario-pipeline/${p.id}`, { token: planner });
    expect([res.status, res.body]).toEqual([200, { status: 'deleted', id: p.id, detached_workflow_ids: [] }]);
    expect((await t.call('get', `/api/scenario-pipeline/${p.id}`, { token: planner })).status).toBe(404);
    const links = await withTenant(t.db, a.accountId, (tx) => tx.anyFirst(sql.unsafe`SELECT segment_id FROM pipeline_segments WHERE pipeline_id = ${p.id}`));
    expect(links).toEqual([]);
  });

  test('a pipeline that process workflows run on is a 409 naming them, unless force=true detaches them', async () => {
    const p = await pipeline({ name: uniqueName('Used') });
    const w = (await t.call('post', '/api/process-workflows', { token: planner, body: { name: uniqueName('Nightly'), steps: ['etl'], scenario_pipeline_id: p.id } })).body;
    const refused = await t.call('delete', `/api/scenario-pipeline/${p.id}`, { token: planner });
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toBe(
      `Pipeline ${p.id} is used by process workflow ${w.workflow_id} '${w.name}'; point it at another pipeline first, or delete with force=true to detach it`,
    );
    const forced = await t.call('delete', `/api/scenario-pipeline/${p.id}`, { token: planner, query: { force: 'true' } });
    expect([forced.status, forced.body]).toEqual([200, { status: 'deleted', id: p.id, detached_workflow_ids: [w.workflow_id] }]);
    const list = (await t.call('get', '/api/process-workflows', { token: planner })).body;
    expect(list.find((x: { workflow_id: number }) => x.workflow_id === w.workflow_id).scenario_pipeline_id).toBeNull();
  });

  test('a pipeline with a job in progress is not deleted, even with force', async () => {
    const p = await pipeline({ name: uniqueName('Busy') });
    const jobId = `job-${Date.now()}`;
    await withTenant(t.db, a.accountId, (tx) => tx.query(sql.unsafe`INSERT INTO jobs (job_id, kind, pipeline_id, status) VALUES (${jobId}, 'step', ${p.id}, 'running')`));
    const res = await t.call('delete', `/api/scenario-pipeline/${p.id}`, { token: planner, query: { force: true } });
    expect([res.status, res.body.detail]).toEqual([409, `Pipeline ${p.id} has a job in progress (${jobId}); wait for it to finish or kill it first`]);
    await withTenant(t.db, a.accountId, (tx) => tx.query(sql.unsafe`UPDATE jobs SET status = 'completed' WHERE job_id = ${jobId}`));
    expect((await t.call('delete', `/api/scenario-pipeline/${p.id}`, { token: planner })).status).toBe(200);
  });
});

describe('segments', () => {
  test('add (201), duplicate (409), remove (200), remove again (404)', async () => {
    const p = await pipeline({ name: uniqueName('Segs'), segment_ids: [4] });
    const add = await t.call('post', `/api/scenario-pipeline/${p.id}/segments`, { token: planner, body: { segment_id: 2 } });
    expect(add.status).toBe(201);
    expect(add.body).toEqual({ ...p, segment_ids: [2, 4] });
    const dup = await t.call('post', `/api/scenario-pipeline/${p.id}/segments`, { token: planner, body: { segment_id: 4 } });
    expect([dup.status, dup.body.detail]).toEqual([409, `Segment 4 is already linked to pipeline ${p.id}`]);
    const rm = await t.call('delete', `/api/scenario-pipeline/${p.id}/segments/4`, { token: planner });
    expect([rm.status, rm.body.segment_ids]).toEqual([200, [2]]);
    const again = await t.call('delete', `/api/scenario-pipeline/${p.id}/segments/4`, { token: planner });
    expect([again.status, again.body.detail]).toEqual([404, `Segment 4 is not linked to pipeline ${p.id}`]);
  });

  test('segment ids are positive integers', async () => {
    const p = await pipeline({ name: uniqueName('Seg validation') });
    for (const [body, message] of [
      [{}, 'body.segment_id is required'],
      [{ segment_id: 0 }, 'body.segment_id must be >= 1'],
      [{ segment_id: -3 }, 'body.segment_id must be >= 1'],
      [{ segment_id: 'one' }, 'body.segment_id must be integer'],
      [{ segment_id: 1.5 }, 'body.segment_id must be integer'],
      [{ segment_id: 1, extra: true }, "body: unknown field 'extra'"],
    ] as const) {
      const res = await t.call('post', `/api/scenario-pipeline/${p.id}/segments`, { token: planner, body });
      expect([JSON.stringify(body), res.status, res.body.detail]).toEqual([JSON.stringify(body), 400, message]);
    }
    const path = await t.call('delete', `/api/scenario-pipeline/${p.id}/segments/zero`, { token: planner });
    expect([path.status, path.body.detail]).toEqual([400, 'path.seg_id must be integer']);
  });
});

describe('copy-from', () => {
  test("copies the source's scenario link, settings and segments; keeps the target's own name, description and state", async () => {
    const s = await scenario({ name: uniqueName('Src scenario') });
    const src = await pipeline({ name: uniqueName('Source'), description: 'src', forecast_scenario_id: s.id, settings: { x: 1 }, segment_ids: [5, 6] });
    const dst = await pipeline({ name: uniqueName('Target'), description: 'dst', is_active: false, settings: { y: 2 }, segment_ids: [1] });
    const res = await t.call('post', `/api/scenario-pipeline/${dst.id}/copy-from/${src.id}`, { token: planner });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status: 'copied', source_id: src.id, results_copied: {},
      pipeline: { ...dst, forecast_scenario_id: s.id, settings: { x: 1 }, segment_ids: [5, 6], updated_at: ts },
    });
    // the source is untouched
    expect((await t.call('get', `/api/scenario-pipeline/${src.id}`, { token: planner })).body).toEqual(src);
  });

  test('self, unknown target and unknown source', async () => {
    const p = await pipeline({ name: uniqueName('Lonely') });
    const self = await t.call('post', `/api/scenario-pipeline/${p.id}/copy-from/${p.id}`, { token: planner });
    expect([self.status, self.body.detail]).toEqual([400, 'path.src_id must differ from path.id (a pipeline cannot copy from itself)']);
    const noSrc = await t.call('post', `/api/scenario-pipeline/${p.id}/copy-from/987654`, { token: planner });
    expect([noSrc.status, noSrc.body.detail]).toEqual([404, 'Source pipeline 987654 not found']);
    const noDst = await t.call('post', `/api/scenario-pipeline/987654/copy-from/${p.id}`, { token: planner });
    expect([noDst.status, noDst.body.detail]).toEqual([404, 'Pipeline 987654 not found']);
    const badBody = await t.call('post', `/api/scenario-pipeline/${p.id}/copy-from/987654`, { token: planner, body: { results: true } });
    expect([badBody.status, badBody.body.detail]).toEqual([400, "body: this endpoint takes no body (got 'results')"]);
  });

  test('registered result copiers run in the same transaction and are counted; a failing one rolls everything back', async () => {
    const src = await pipeline({ name: uniqueName('Hook source'), settings: { from: 'src' }, segment_ids: [8] });
    const dst = await pipeline({ name: uniqueName('Hook target'), settings: { from: 'dst' } });
    const seen: Array<[number, number]> = [];
    let fail = false;
    const unregister = registerPipelineResultCopier('test_results', async (tx, targetId, sourceId) => {
      seen.push([targetId, sourceId]);
      // sees the configuration already copied in this transaction
      const settings = await tx.oneFirst(sql.unsafe`SELECT settings FROM scenario_pipelines WHERE id = ${targetId}`);
      expect(settings).toEqual({ from: 'src' });
      if (fail) throw new Error('copier broke');
      return 42;
    });
    const ok = await t.call('post', `/api/scenario-pipeline/${dst.id}/copy-from/${src.id}`, { token: planner });
    expect(ok.body.results_copied).toEqual({ test_results: 42 });
    expect(seen).toEqual([[dst.id, src.id]]);

    const other = await pipeline({ name: uniqueName('Hook other'), settings: { from: 'other' } });
    fail = true;
    const broken = await t.call('post', `/api/scenario-pipeline/${other.id}/copy-from/${src.id}`, { token: planner });
    expect([broken.status, broken.body]).toEqual([500, { detail: 'Internal server error' }]);
    expect((await t.call('get', `/api/scenario-pipeline/${other.id}`, { token: planner })).body).toEqual(other);
    unregister();
    const after = await t.call('post', `/api/scenario-pipeline/${other.id}/copy-from/${src.id}`, { token: planner });
    expect([after.status, after.body.results_copied]).toEqual([200, {}]);
  });
});

describe('baseline of a series', () => {
  let tenant: TestTenant;
  let token: string;
  let itemId: number;
  let siteId: number;
  beforeAll(async () => {
    tenant = await t.newTenant('pipe-baseline');
    token = await t.login(tenant.planner);
    ({ itemId, siteId } = await withTenant(t.db, tenant.accountId, async (tx) => {
      const item = (await tx.oneFirst(sql.unsafe`INSERT INTO items (xuid, name) VALUES ('I-1', 'Item 1') RETURNING id`)) as number;
      const site = (await tx.oneFirst(sql.unsafe`INSERT INTO sites (xuid, name) VALUES ('S-1', 'Site 1') RETURNING id`)) as number;
      await tx.query(sql.unsafe`INSERT INTO series (item_id, site_id) VALUES (${item}, ${site})`);
      await tx.query(sql.unsafe`INSERT INTO series_weekly (item_id, site_id, week, y) VALUES
        (${item}, ${site}, '2024-01-15', 3), (${item}, ${site}, '2024-01-01', 5.5), (${item}, ${site}, '2024-01-08', 0)`);
      return { itemId: item, siteId: site };
    }));
  });

  test("returns the pipeline's own scenario and the weekly history, oldest first, with an empty forecast", async () => {
    const s = await scenario({ name: 'Own', methods: ['ets'] }, token);
    await scenario({ name: 'Tenant baseline', is_baseline: true }, token);
    const p = await pipeline({ name: 'With scenario', forecast_scenario_id: s.id }, token);
    const res = await t.call('get', `/api/scenario-pipeline/${p.id}/baseline/${itemId}_${siteId}`, { token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      pipeline_id: p.id, unique_id: `${itemId}_${siteId}`, item_id: itemId, site_id: siteId,
      scenario_id: s.id, scenario_source: 'pipeline', scenario: s,
      history: [{ ds: '2024-01-01', y: 5.5 }, { ds: '2024-01-08', y: 0 }, { ds: '2024-01-15', y: 3 }],
      forecast: [],
    });
  });

  test("falls back to the tenant's baseline scenario, then to none", async () => {
    const p = await pipeline({ name: 'No scenario' }, token);
    const withBaseline = await t.call('get', `/api/scenario-pipeline/${p.id}/baseline/${itemId}_${siteId}`, { token });
    expect(withBaseline.body).toMatchObject({ scenario_source: 'tenant_baseline', scenario: { name: 'Tenant baseline', is_baseline: true } });
    expect(withBaseline.body.scenario_id).toBe(withBaseline.body.scenario.id);
    await t.call('put', `/api/forecast/scenarios/${withBaseline.body.scenario_id}`, { token, body: { is_baseline: false } });
    const none = await t.call('get', `/api/scenario-pipeline/${p.id}/baseline/${itemId}_${siteId}`, { token });
    expect(none.body).toMatchObject({ scenario_id: null, scenario_source: null, scenario: null, history: expect.any(Array), forecast: [] });
  });

  test('a series without weekly data has an empty history', async () => {
    const p = await pipeline({ name: 'Empty history' }, token);
    const item2 = await withTenant(t.db, tenant.accountId, async (tx) => {
      const item = (await tx.oneFirst(sql.unsafe`INSERT INTO items (xuid, name) VALUES ('I-2', 'Item 2') RETURNING id`)) as number;
      await tx.query(sql.unsafe`INSERT INTO series (item_id, site_id) VALUES (${item}, ${siteId})`);
      return item;
    });
    const res = await t.call('get', `/api/scenario-pipeline/${p.id}/baseline/${item2}_${siteId}`, { token });
    expect([res.status, res.body.history]).toEqual([200, []]);
  });

  test('a malformed uid is a 400; an unknown series a 404', async () => {
    const p = await pipeline({ name: 'Uid checks' }, token);
    for (const uid of ['abc', '1-2', '1_2_3', '1_', '_2', '0_1', '1_99999999999']) {
      const res = await t.call('get', `/api/scenario-pipeline/${p.id}/baseline/${uid}`, { token });
      expect([uid, res.status, res.body.detail]).toEqual([uid, 400, expect.stringMatching(/^path\.uid must match pattern/)]);
    }
    const missing = await t.call('get', `/api/scenario-pipeline/${p.id}/baseline/${itemId}_999999`, { token });
    expect([missing.status, missing.body.detail]).toEqual([404, `Series ${itemId}_999999 not found (item ${itemId}, site 999999)`]);
  });
});

describe('tenancy and audit', () => {
  test('a pipeline of tenant B is invisible from tenant A, even by id', async () => {
    const ta = await t.newTenant('pipe-iso-a');
    const tb = await t.newTenant('pipe-iso-b');
    const tokenA = await t.login(ta.planner);
    const tokenB = await t.login(tb.planner);
    let lastB = 0;
    for (const name of ['b1', 'b2']) lastB = (await pipeline({ name }, tokenB)).id;
    const bScenario = await scenario({ name: 'b scenario' }, tokenB);
    const own = await pipeline({ name: 'a1' }, tokenA);
    expect((await t.call('get', '/api/scenario-pipeline', { token: tokenA })).body.map((p: { id: number }) => p.id)).toEqual([own.id]);
    for (const [method, path, body] of [
      ['get', `/api/scenario-pipeline/${lastB}`, undefined],
      ['put', `/api/scenario-pipeline/${lastB}`, { name: 'stolen' }],
      ['delete', `/api/scenario-pipeline/${lastB}`, undefined],
      ['post', `/api/scenario-pipeline/${lastB}/segments`, { segment_id: 1 }],
    ] as const) {
      const res = await t.call(method, path, { token: tokenA, body });
      expect([method, res.status, res.body.detail]).toEqual([method, 404, `Pipeline ${lastB} not found`]);
    }
    const cross = await t.call('post', `/api/scenario-pipeline/${own.id}/copy-from/${lastB}`, { token: tokenA });
    expect([cross.status, cross.body.detail]).toEqual([404, `Source pipeline ${lastB} not found`]);
    // and tenant B's scenario id cannot be linked from tenant A
    const link = await t.call('put', `/api/scenario-pipeline/${own.id}`, { token: tokenA, body: { forecast_scenario_id: bScenario.id } });
    expect([link.status, link.body.detail]).toEqual([400, `body.forecast_scenario_id: forecast scenario ${bScenario.id} does not exist`]);
  });

  test('mutations are audited with the entity id and values', async () => {
    const p = await pipeline({ name: uniqueName('Audited') });
    await t.call('post', `/api/scenario-pipeline/${p.id}/segments`, { token: planner, body: { segment_id: 11 } });
    await t.call('delete', `/api/scenario-pipeline/${p.id}/segments/11`, { token: planner });
    await t.call('put', `/api/scenario-pipeline/${p.id}`, { token: planner, body: { is_active: false } });
    const rows = async (entityType: string, action: string) =>
      (await t.call('get', '/api/audit-log', { token: admin, query: { entity_type: entityType, entity_id: String(p.id), action } })).body.items;
    expect((await rows('scenario_pipeline', 'create'))[0]).toMatchObject({ outcome: 'success', new_value: { id: p.id, name: p.name } });
    expect((await rows('scenario_pipeline.segment', 'add'))[0]).toMatchObject({ new_value: { segment_id: 11, segment_ids: [11] } });
    expect((await rows('scenario_pipeline.segment', 'remove'))[0]).toMatchObject({ old_value: { segment_id: 11 }, new_value: { segment_ids: [] } });
    expect((await rows('scenario_pipeline', 'update'))[0]).toMatchObject({ old_value: { is_active: true }, new_value: { is_active: false } });
  });
});
