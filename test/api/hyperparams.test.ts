import { sql, withTenant } from '../../db/pool';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';

let t: TestApp;
let a: TestTenant;
let planner: string;
let admin: string;
let plain: string;
let uid: string;
let other: string;

const ts = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

beforeAll(async () => {
  t = await startTestApp();
  a = await t.newTenant('hyper');
  planner = await t.login(a.planner);
  admin = await t.login(a.admin);
  plain = await t.login(await t.addUser(a.accountId, { role: 'user', can_run_process: true }));
  await withTenant(t.db, a.accountId, async (tx) => {
    await tx.query(sql.unsafe`INSERT INTO items (xuid, name) VALUES ('H1', 'One'), ('H2', 'Two')`);
    await tx.query(sql.unsafe`INSERT INTO sites (xuid, name) VALUES ('S1', 'Site')`);
    await tx.query(sql.unsafe`INSERT INTO series (item_id, site_id) SELECT i.id, s.id FROM items i, sites s`);
    const rows = (await tx.any(sql.unsafe`SELECT i.id || '_' || s.id AS uid FROM items i, sites s ORDER BY i.xuid`)) as Array<{ uid: string }>;
    [uid, other] = rows.map((r) => r.uid);
  });
});
afterAll(() => t.close());

const put = (body: unknown, token = planner, id = uid) => t.call('put', `/api/hyperparams/${id}`, { token, body });

test('a series without overrides has an empty list; unknown series are 404s', async () => {
  const res = await t.call('get', `/api/hyperparams/${uid}`, { token: plain });
  const [item_id, site_id] = uid.split('_').map(Number);
  expect(res.body).toEqual({ unique_id: uid, item_id, site_id, overrides: [] });
  expect((await t.call('get', '/api/hyperparams/999999_1', { token: plain })).status).toBe(404);
  expect((await put({ method: 'ses', overrides: { alpha: 0.3 } }, planner, '999999_1')).status).toBe(404);
  expect((await t.call('get', '/api/hyperparams/1-1', { token: plain })).status).toBe(400);
});

test('PUT sets the overrides of one target (a method or a parameter type) and replaces only that target', async () => {
  const first = await put({ method: 'ses', overrides: { alpha: 0.3 } });
  expect(first.status).toBe(200);
  expect(first.body.overrides).toEqual([{ method: 'ses', parameter_type: 'forecast', overrides: { alpha: 0.3 }, updated_by: a.planner.email, updated_at: ts }]);
  await put({ method: 'outlier', overrides: { threshold: 4, method: 'iqr' } }, admin);
  const replaced = await put({ method: 'ses', overrides: { alpha: 0.5 } });
  expect(replaced.body.overrides.map((o: any) => [o.method, o.parameter_type, o.overrides])).toEqual([
    ['outlier', 'outlier', { threshold: 4, method: 'iqr' }],
    ['ses', 'forecast', { alpha: 0.5 }],
  ]);
  const eff = await t.call('get', `/api/series/${uid}/parameters`, { token: plain });
  expect(eff.body.parameters.forecast.values['ses.alpha']).toBe(0.5);
  expect(eff.body.parameters.forecast.sources['ses.alpha']).toEqual({ level: 'override', method: 'ses' });
  expect(eff.body.parameters.outlier.values).toMatchObject({ threshold: 4, method: 'iqr' });
  // another series is untouched
  expect((await t.call('get', `/api/series/${other}/parameters`, { token: plain })).body.parameters.forecast.values['ses.alpha']).toBeNull();
  // audited with old and new values
  const audit = await withTenant(t.db, a.accountId, (tx) =>
    tx.any(sql.unsafe`SELECT entity_type, entity_id, old_value, new_value FROM audit_log WHERE entity_type = 'hyperparams' ORDER BY id`),
  );
  expect(audit[audit.length - 1]).toEqual({ entity_type: 'hyperparams', entity_id: uid, old_value: { method: 'ses', overrides: { alpha: 0.3 } }, new_value: { method: 'ses', overrides: { alpha: 0.5 } } });
});

test('targets, keys and values are checked against the catalogue', async () => {
  const cases: Array<[unknown, string | RegExp]> = [
    [{ method: 'magic', overrides: { a: 1 } }, /^body\.method: 'magic' is neither a forecasting method nor a parameter type \(methods: naive, /],
    [{ method: 'ses', overrides: { beta: 0.1 } }, "body.overrides: unknown key 'beta' for forecasting method 'ses' (known: alpha)"],
    [{ method: 'ses', overrides: { alpha: 1.5 } }, 'body.overrides.alpha must be < 1'],
    [{ method: 'naive', overrides: { x: 1 } }, "body.method: forecasting method 'naive' has no hyperparameters to override"],
    [{ method: 'npi', overrides: { min_history_weeks: 'many' } }, 'body.overrides.min_history_weeks must be integer'],
    [{ method: 'outlier', overrides: {} }, 'body.overrides must NOT have fewer than 1 properties'],
    [{ overrides: { a: 1 } }, 'body.method is required'],
  ];
  for (const [body, detail] of cases) {
    const res = await put(body);
    expect(res.status).toBe(400);
    expect(res.body.detail).toEqual(typeof detail === 'string' ? detail : expect.stringMatching(detail));
  }
  expect((await put({ method: 'npi', overrides: { min_history_weeks: 26 } })).status).toBe(200);
});

test('PUT and DELETE need can_create_override (or an admin); GET does not', async () => {
  const denied = await put({ method: 'ses', overrides: { alpha: 0.1 } }, plain);
  expect([denied.status, denied.body.detail]).toEqual([403, 'Permission can_create_override required for overrides and locked methods']);
  expect((await t.call('delete', `/api/hyperparams/${uid}`, { token: plain })).status).toBe(403);
  expect((await t.call('get', `/api/hyperparams/${uid}`, { token: plain })).status).toBe(200);
  expect((await put({ method: 'ses', overrides: { alpha: 0.1 } }, admin)).status).toBe(200);
});

test('DELETE removes one target or all of them', async () => {
  const one = await t.call('delete', `/api/hyperparams/${uid}`, { token: planner, query: { method: 'outlier' } });
  expect(one.body).toEqual({ status: 'deleted', unique_id: uid, removed: ['outlier'] });
  expect((await t.call('delete', `/api/hyperparams/${uid}`, { token: planner, query: { method: 'outlier' } })).status).toBe(404);
  const all = await t.call('delete', `/api/hyperparams/${uid}`, { token: planner });
  expect(all.body).toEqual({ status: 'deleted', unique_id: uid, removed: ['npi', 'ses'] });
  expect((await t.call('get', `/api/hyperparams/${uid}`, { token: plain })).body.overrides).toEqual([]);
  const eff = await t.call('get', `/api/series/${uid}/parameters`, { token: plain, query: { parameter_type: 'npi' } });
  expect(eff.body.parameters.npi.sources.min_history_weeks).toEqual({ level: 'default' });
  expect((await t.call('delete', `/api/hyperparams/${uid}`, { token: planner })).body.removed).toEqual([]);
});

test("a series outside the caller's segments is a 403 for its overrides and its parameters", async () => {
  const segmentId = await withTenant(t.db, a.accountId, async (tx) => {
    if (!(await tx.oneFirst(sql.unsafe`SELECT to_regclass('segments') IS NOT NULL AND to_regclass('segment_members') IS NOT NULL`))) return null;
    const id = (await tx.oneFirst(sql.unsafe`INSERT INTO segments (name) VALUES ('Only H2') RETURNING id`)) as number;
    const [item, site] = other.split('_').map(Number);
    await tx.query(sql.unsafe`INSERT INTO segment_members (segment_id, item_id, site_id) VALUES (${id}, ${item}, ${site})`);
    return id;
  });
  if (segmentId === null) return; // the segments area (migration 005) is not there yet
  const restricted = await t.login(await t.addUser(a.accountId, { role: 'user', can_create_override: true, allowed_segments: [segmentId] }));
  expect((await t.call('get', `/api/hyperparams/${uid}`, { token: restricted })).status).toBe(403);
  expect((await t.call('get', `/api/series/${uid}/parameters`, { token: restricted })).status).toBe(403);
  expect((await put({ method: 'ses', overrides: { alpha: 0.2 } }, restricted)).status).toBe(403);
  expect((await t.call('get', `/api/series/${other}/parameters`, { token: restricted })).body.segment_ids).toEqual([segmentId]);
  expect((await put({ method: 'ses', overrides: { alpha: 0.2 } }, restricted, other)).status).toBe(200);
});
