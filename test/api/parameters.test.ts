import { sql, withTenant, type Tx } from '../../db/pool';
import { PARAMETER_TYPES } from '../../domain/parameters/defaults';
import { isFinished, waitForJob } from '../support/jobs';
import { startTestWorker, type TestWorker } from '../support/temporal';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';

let tw: TestWorker;
let t: TestApp;
let a: TestTenant;
let planner: string;
let plain: string;
/** series ids: I1 in segment 1, I2 in segments 1 and 2, I3 in segment 2, I4 in none */
const uid: Record<string, string> = {};
const seg: Record<string, number> = {};

const ts = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

async function hasTable(tx: Tx, name: string): Promise<boolean> {
  return (await tx.oneFirst(sql.unsafe`SELECT to_regclass(${name}) IS NOT NULL`)) as boolean;
}

beforeAll(async () => {
  tw = await startTestWorker();
  t = await startTestApp({ temporal: { client: tw.client, taskQueue: tw.taskQueue } });
  a = await t.newTenant('params');
  planner = await t.login(a.planner);
  plain = await t.login(await t.addUser(a.accountId, { role: 'user' }));
  await withTenant(t.db, a.accountId, async (tx) => {
    await tx.query(sql.unsafe`INSERT INTO items (xuid, name) VALUES ('I1', 'One'), ('I2', 'Two'), ('I3', 'Three'), ('I4', 'Four')`);
    await tx.query(sql.unsafe`INSERT INTO sites (xuid, name) VALUES ('S1', 'Site')`);
    await tx.query(sql.unsafe`INSERT INTO series (item_id, site_id) SELECT i.id, s.id FROM items i, sites s`);
    for (const r of (await tx.any(sql.unsafe`SELECT i.xuid, i.id AS item_id, s.id AS site_id FROM items i, sites s`)) as any[]) uid[r.xuid] = `${r.item_id}_${r.site_id}`;
    // segments belong to another area (migration 005): rows are written here only when its tables exist
    if ((await hasTable(tx, 'segments')) && (await hasTable(tx, 'segment_members'))) {
      for (const [name, members] of [['Fast', ['I1', 'I2']], ['Slow', ['I2', 'I3']]] as const) {
        const id = (await tx.oneFirst(sql.unsafe`INSERT INTO segments (name) VALUES (${name}) RETURNING id`)) as number;
        seg[name] = id;
        await tx.query(sql.unsafe`
          INSERT INTO segment_members (segment_id, item_id, site_id)
          SELECT ${id}, i.id, s.id FROM items i, sites s WHERE i.xuid = ANY(${sql.array([...members], 'text')})`);
      }
    }
  });
}, 120_000);
afterAll(async () => {
  await t.close();
  await tw.close();
});

async function createSet(body: Record<string, unknown>, token = planner) {
  const res = await t.call('post', '/api/parameters', { token, body });
  expect([res.status, res.body]).toEqual([201, expect.anything()]);
  return res.body;
}

const list = async (type: string) => (await t.call('get', '/api/parameters', { token: planner, query: { parameter_type: type } })).body as Array<{ id: number; priority: number }>;

test('the catalogue lists every parameter type with defaults, schemas and descriptions', async () => {
  const res = await t.call('get', '/api/parameters/catalogue', { token: plain });
  expect(res.status).toBe(200);
  expect(Object.keys(res.body.parameter_types)).toEqual(PARAMETER_TYPES);
  expect(res.body.parameter_types.npi.min_history_weeks).toEqual({ default: 13, schema: { type: 'integer', minimum: 1, maximum: 520 }, description: expect.any(String) });
  expect(res.body.parameter_types.forecast['ses.alpha']).toMatchObject({ default: null });
  expect(res.body.forecast_methods).toContain('croston');
});

describe('parameter sets', () => {
  test('create, read, list, update and delete', async () => {
    const first = await createSet({ parameter_type: 'meio', name: 'High service', values: { service_level: 0.99 } });
    expect(first).toEqual({
      id: expect.any(Number), parameter_type: 'meio', name: 'High service', description: null, priority: 1, values: { service_level: 0.99 },
      segment_ids: [], is_active: true, created_by: a.planner.email, created_at: ts, updated_at: ts,
    });
    const second = await createSet({ parameter_type: 'meio', name: '  Low service ', values: { service_level: 0.8, review_period_weeks: 2 }, description: 'C items' });
    expect(second).toMatchObject({ name: 'Low service', priority: 2, description: 'C items' });
    // the same name in another type is fine; in the same type (any case) it is a conflict
    await createSet({ parameter_type: 'eoq', name: 'high service' });
    const clash = await t.call('post', '/api/parameters', { token: planner, body: { parameter_type: 'meio', name: 'HIGH SERVICE' } });
    expect([clash.status, clash.body.detail]).toEqual([409, `body.name: parameter set ${first.id} of type 'meio' is already named 'High service'`]);

    const got = await t.call('get', `/api/parameters/${first.id}`, { token: plain });
    expect(got.body).toEqual(first);
    const meio = await t.call('get', '/api/parameters', { token: plain, query: { parameter_type: 'meio' } });
    expect(meio.body.map((s: { id: number }) => s.id)).toEqual([first.id, second.id]);
    expect(meio.headers['x-total-count']).toBe('2');

    const upd = await t.call('put', `/api/parameters/${second.id}`, { token: planner, body: { values: { holding_cost_rate: 0.3 }, is_active: false, priority: 7 } });
    expect(upd.status).toBe(200);
    expect(upd.body).toMatchObject({ values: { holding_cost_rate: 0.3 }, is_active: false, priority: 7, name: 'Low service' });
    const typeChange = await t.call('put', `/api/parameters/${second.id}`, { token: planner, body: { parameter_type: 'eoq' } });
    expect([typeChange.status, typeChange.body.detail]).toEqual([400, "body: unknown field 'parameter_type'"]);

    const del = await t.call('delete', `/api/parameters/${second.id}`, { token: planner });
    expect(del.body).toEqual({ status: 'deleted', id: second.id });
    expect((await t.call('get', `/api/parameters/${second.id}`, { token: planner })).status).toBe(404);
    expect((await t.call('delete', `/api/parameters/${second.id}`, { token: planner })).status).toBe(404);
    expect((await t.call('put', '/api/parameters/999999', { token: planner, body: { is_active: true } })).status).toBe(404);
  });

  test('values are checked against the catalogue: unknown keys and wrong types are 400s naming them', async () => {
    const bad = async (body: Record<string, unknown>) => {
      const res = await t.call('post', '/api/parameters', { token: planner, body: { name: `bad ${Math.random()}`, ...body } });
      expect(res.status).toBe(400);
      return res.body.detail as string;
    };
    expect(await bad({ parameter_type: 'outlier', values: { windw: 3 } })).toBe(
      "body.values: unknown key 'windw' for parameter type 'outlier' (known: method, window, threshold, correction, seasonal_protection)",
    );
    expect(await bad({ parameter_type: 'outlier', values: { window: 2.5 } })).toBe('body.values.window must be integer');
    expect(await bad({ parameter_type: 'outlier', values: { method: 'magic' } })).toBe('body.values.method must be one of: hampel, iqr, none');
    expect(await bad({ parameter_type: 'meio', values: { service_level: 2 } })).toBe('body.values.service_level must be <= 0.9999');
    expect(await bad({ parameter_type: 'forecast', values: { 'ses.alpha': 'high' } })).toMatch(/^body\.values\.ses\.alpha must be number/);
    expect(await bad({ parameter_type: 'weather', values: {} })).toMatch(/^body\.parameter_type must be one of: outlier, characterization, forecast/);
    expect(await bad({ parameter_type: 'outlier', segment_ids: [999999] })).toEqual(seg.Fast ? 'body.segment_ids: segment 999999 does not exist' : expect.any(String));
    const s = await createSet({ parameter_type: 'outlier', name: 'Valid' });
    const upd = await t.call('put', `/api/parameters/${s.id}`, { token: planner, body: { values: { threshold: -1 } } });
    expect([upd.status, upd.body.detail]).toEqual([400, 'body.values.threshold must be > 0']);
    // accepted: nullable keys, method hyperparameters
    const ok = await t.call('put', `/api/parameters/${s.id}`, { token: planner, body: { values: { threshold: null, correction: 'clip' } } });
    expect(ok.body.values).toEqual({ threshold: null, correction: 'clip' });
    await t.call('delete', `/api/parameters/${s.id}`, { token: planner });
  });

  test('users without can_run_process read but cannot change sets', async () => {
    const s = await createSet({ parameter_type: 'eoq', name: 'Cheap orders', values: { ordering_cost: 5 } });
    expect((await t.call('get', '/api/parameters', { token: plain })).status).toBe(200);
    for (const [method, path, body] of [
      ['post', '/api/parameters', { parameter_type: 'eoq', name: 'x' }],
      ['put', `/api/parameters/${s.id}`, { is_active: false }],
      ['delete', `/api/parameters/${s.id}`, undefined],
      ['put', `/api/parameters/${s.id}/segments`, { segment_ids: [] }],
      ['put', '/api/parameters/reorder', { parameter_type: 'eoq', ordered_ids: [s.id] }],
      ['post', '/api/parameters/resolve', {}],
    ] as const) {
      const res = await t.call(method, path, { token: plain, body });
      expect([method, path, res.status]).toEqual([method, path, 403]);
    }
  });
});

describe('reorder', () => {
  let ids: number[];
  let otherType: number;
  beforeAll(async () => {
    ids = [];
    for (const name of ['R1', 'R2', 'R3']) ids.push((await createSet({ parameter_type: 'backtest', name })).id);
    otherType = (await createSet({ parameter_type: 'supply', name: 'Elsewhere' })).id;
  });

  test('gives priorities 1..n in the new order', async () => {
    const res = await t.call('put', '/api/parameters/reorder', { token: planner, body: { parameter_type: 'backtest', ordered_ids: [ids[2], ids[0], ids[1]] } });
    expect(res.status).toBe(200);
    expect(res.body.map((s: { id: number; priority: number }) => [s.id, s.priority])).toEqual([[ids[2], 1], [ids[0], 2], [ids[1], 3]]);
    expect((await list('backtest')).map((s) => s.id)).toEqual([ids[2], ids[0], ids[1]]);
  });

  test('ids of another type, unknown, missing or repeated ids are 400s and nothing moves', async () => {
    const before = await list('backtest');
    const cases: Array<[number[], string | RegExp]> = [
      [[ids[0], ids[1], ids[2], otherType], `body.ordered_ids[3]: parameter set ${otherType} is of type 'supply', not 'backtest'`],
      [[ids[0], 999999, ids[1], ids[2]], 'body.ordered_ids[1]: parameter set 999999 does not exist'],
      [[ids[0], ids[1]], `body.ordered_ids: missing parameter set ${ids[2]}; list every set of type 'backtest' exactly once`],
      [[ids[0], ids[0], ids[1], ids[2]], /^body\.ordered_ids must NOT have duplicate items/],
    ];
    for (const [ordered, detail] of cases) {
      const res = await t.call('put', '/api/parameters/reorder', { token: planner, body: { parameter_type: 'backtest', ordered_ids: ordered } });
      expect(res.status).toBe(400);
      expect(res.body.detail).toEqual(typeof detail === 'string' ? detail : expect.stringMatching(detail));
      expect(await list('backtest')).toEqual(before);
    }
    expect((await list('supply')).map((s) => [s.id, s.priority])).toEqual([[otherType, 1]]);
  });
});

describe('resolution through the API', () => {
  let A: number;
  let B: number;
  let C: number;
  beforeAll(async () => {
    // clear the outlier sets of earlier tests
    for (const s of await list('outlier')) await t.call('delete', `/api/parameters/${s.id}`, { token: planner });
    A = (await createSet({ parameter_type: 'outlier', name: 'Fast threshold', values: { threshold: 4 }, segment_ids: seg.Fast ? [seg.Fast] : [] })).id;
    B = (await createSet({ parameter_type: 'outlier', name: 'Slow window', values: { threshold: 5, window: 8 }, segment_ids: seg.Slow ? [seg.Slow] : [] })).id;
    C = (await createSet({ parameter_type: 'outlier', name: 'Everyone IQR', values: { method: 'iqr', threshold: 2 } })).id;
  });

  const effective = async (key: string, type?: string) => {
    const res = await t.call('get', `/api/series/${uid[key]}/parameters`, { token: plain, query: type ? { parameter_type: type } : undefined });
    expect(res.status).toBe(200);
    return res.body;
  };

  test('overlapping segments: priority wins, keys fall through, a set without segments applies to all', async () => {
    if (!seg.Fast) return; // segments area not there yet
    const two = await effective('I2');
    expect(two.segment_ids).toEqual([seg.Fast, seg.Slow]);
    expect(Object.keys(two.parameters)).toEqual(PARAMETER_TYPES);
    expect(two.parameters.outlier).toEqual({
      set_ids: [A, B, C], has_override: false,
      values: { method: 'iqr', window: 8, threshold: 4, correction: null, seasonal_protection: true },
      sources: {
        method: { level: 'set', set_id: C, set_name: 'Everyone IQR' },
        window: { level: 'set', set_id: B, set_name: 'Slow window' },
        threshold: { level: 'set', set_id: A, set_name: 'Fast threshold' },
        correction: { level: 'default' },
        seasonal_protection: { level: 'default' },
      },
    });
    expect((await effective('I3', 'outlier')).parameters.outlier).toMatchObject({ set_ids: [B, C], values: { threshold: 5, window: 8, method: 'iqr' } });
    expect((await effective('I4', 'outlier')).parameters.outlier).toMatchObject({ set_ids: [C], values: { threshold: 2, window: 6 } });
    // reordering changes the winner
    await t.call('put', '/api/parameters/reorder', { token: planner, body: { parameter_type: 'outlier', ordered_ids: [B, A, C] } });
    expect((await effective('I2', 'outlier')).parameters.outlier).toMatchObject({ set_ids: [B, A, C], values: { threshold: 5 } });
    await t.call('put', '/api/parameters/reorder', { token: planner, body: { parameter_type: 'outlier', ordered_ids: [A, B, C] } });
    // an inactive set is skipped
    await t.call('put', `/api/parameters/${A}`, { token: planner, body: { is_active: false } });
    expect((await effective('I2', 'outlier')).parameters.outlier).toMatchObject({ set_ids: [B, C], values: { threshold: 5 } });
    await t.call('put', `/api/parameters/${A}`, { token: planner, body: { is_active: true } });
  });

  test('a per-series override wins over the sets', async () => {
    const put = await t.call('put', `/api/hyperparams/${uid.I2}`, { token: planner, body: { method: 'outlier', overrides: { threshold: 9 } } });
    expect(put.status).toBe(200);
    const two = await effective('I2', 'outlier');
    expect(Object.keys(two.parameters)).toEqual(['outlier']);
    expect(two.parameters.outlier.values.threshold).toBe(9);
    expect(two.parameters.outlier.sources.threshold).toEqual({ level: 'override', method: 'outlier' });
    expect(two.parameters.outlier.has_override).toBe(true);
    expect(two.overrides).toEqual([{ method: 'outlier', parameter_type: 'outlier', overrides: { threshold: 9 }, updated_by: a.planner.email, updated_at: ts }]);
    expect((await t.call('get', '/api/series/999999_1/parameters', { token: plain })).status).toBe(404);
    expect((await t.call('get', '/api/series/abc/parameters', { token: plain })).status).toBe(400);
  });

  test('segments of a set: read and replace; unknown segments are 400s', async () => {
    const got = await t.call('get', `/api/parameters/${C}/segments`, { token: plain });
    expect(got.body).toEqual({ parameter_set_id: C, parameter_type: 'outlier', segment_ids: [], segments: [], applies_to_all: true });
    if (seg.Slow) {
      const put = await t.call('put', `/api/parameters/${C}/segments`, { token: planner, body: { segment_ids: [seg.Slow] } });
      expect(put.body).toEqual({ parameter_set_id: C, parameter_type: 'outlier', segment_ids: [seg.Slow], segments: [{ id: seg.Slow, name: 'Slow' }], applies_to_all: false });
      expect((await effective('I4', 'outlier')).parameters.outlier).toMatchObject({ set_ids: [], values: { method: 'hampel', threshold: null } });
      const bad = await t.call('put', `/api/parameters/${C}/segments`, { token: planner, body: { segment_ids: [seg.Slow, 999998, 999999] } });
      expect([bad.status, bad.body.detail]).toEqual([400, 'body.segment_ids: segments 999998, 999999 do not exist']);
      expect((await t.call('get', `/api/parameters/${C}`, { token: plain })).body.segment_ids).toEqual([seg.Slow]);
      await t.call('put', `/api/parameters/${C}/segments`, { token: planner, body: { segment_ids: [] } });
    }
    expect((await t.call('get', '/api/parameters/999999/segments', { token: plain })).status).toBe(404);
  });

  const assignments = () =>
    withTenant(t.db, a.accountId, (tx) =>
      tx.any(sql.unsafe`
        SELECT i.xuid, a.set_ids, a.has_override, a.job_id FROM series_parameter_assignment a JOIN items i ON i.id = a.item_id
        WHERE a.parameter_type = 'outlier' ORDER BY i.xuid`),
    );

  test('POST /api/parameters/resolve materialises the assignment synchronously for a small tenant', async () => {
    const res = await t.call('post', '/api/parameters/resolve', { token: planner, body: {} });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'completed', mode: 'sync', job_id: null, series: 4, assignments: 4 * PARAMETER_TYPES.length });
    const rows = await assignments();
    expect(rows.map((r: any) => [r.xuid, [...r.set_ids], r.has_override])).toEqual(
      seg.Fast
        ? [['I1', [A, C], false], ['I2', [A, B, C], true], ['I3', [B, C], false], ['I4', [C], false]]
        : [['I1', [A, B, C], false], ['I2', [A, B, C], true], ['I3', [A, B, C], false], ['I4', [A, B, C], false]],
    );
    const shown = await effective('I2', 'outlier');
    expect(shown.assignment).toEqual([{ parameter_type: 'outlier', set_ids: rows[1].set_ids, has_override: true, resolved_at: ts }]);
    // a deleted set leaves the materialised assignment at once
    const tmp = await createSet({ parameter_type: 'outlier', name: 'Temporary' });
    await t.call('post', '/api/parameters/resolve', { token: planner, body: { mode: 'sync' } });
    expect((await assignments()).every((r: any) => r.set_ids.includes(tmp.id))).toBe(true);
    await t.call('delete', `/api/parameters/${tmp.id}`, { token: planner });
    expect((await assignments()).some((r: any) => r.set_ids.includes(tmp.id))).toBe(false);
    const bad = await t.call('post', '/api/parameters/resolve', { token: planner, body: { mode: 'sync', run_id: 'x' } });
    expect([bad.status, bad.body.detail]).toEqual([400, 'body.run_id is only used with a job (mode job, or auto above the sync limit)']);
  });

  test('as a Temporal job (kind parameters_resolve) it writes the same assignment', async () => {
    await withTenant(t.db, a.accountId, (tx) => tx.query(sql.unsafe`DELETE FROM series_parameter_assignment`));
    const res = await t.call('post', '/api/parameters/resolve', { token: planner, body: { mode: 'job', run_id: `resolve-${Date.now()}` } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'queued', mode: 'job', job_id: expect.stringMatching(/^resolve-/), series: 4, assignments: null });
    const job = await waitForJob(t, planner, res.body.job_id, isFinished);
    expect(job.status).toBe('completed');
    expect(job.result).toEqual({ series: 4, rows: 4 * PARAMETER_TYPES.length, chunks: 1 });
    expect(job.log.map((l) => l.message)).toEqual(expect.arrayContaining(['parameters: resolving 4 series in 1 chunks', 'completed']));
    const rows = await assignments();
    expect(rows).toHaveLength(4);
    expect(rows.every((r: any) => r.job_id === res.body.job_id)).toBe(true);
    expect(rows.find((r: any) => r.xuid === 'I2')).toMatchObject({ has_override: true });
    const jobs = await t.call('get', '/api/pipeline/jobs', { token: planner });
    expect(jobs.body.find((j: { job_id: string }) => j.job_id === res.body.job_id)).toMatchObject({ kind: 'parameters_resolve', status: 'completed' });
  });
});
