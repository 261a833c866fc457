/**
 * The data assistant over HTTP (spec §4.7, §7, §8): real PostgreSQL, the tenant's model played by a local fake speaking
 * chat completions (test/support/fakeModel.ts), and the template path without a model.
 *
 * Seed of tenant A (pipeline P, completed supply run R of P, 8 weekly buckets):
 *   item  site '12'  shortage by week           site 'S1'
 *   I1    [0, 0, 5, 5, 0, 0, 0, 0]  short wk 3  —
 *   I2    [0, 0, 0, 0, 0, 7, 0, 0]  wk 6 only   —
 *   I3    —                                     [4, 0, …] (another site)
 *   demand: I1@12 100, I2@12 40, I3@S1 70; classes in P: I1 lumpy, I2 smooth, I3 lumpy; forecast of I1@12: 3 weeks
 *   exception_log of P: I1@12 ['supply'], I2@12 ['forecast']
 */
import { setTenantParameter } from '../../db/parameters';
import { sql, withTenant } from '../../db/pool';
import { startFakeModel, type FakeModel } from '../support/fakeModel';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';

let t: TestApp;
let a: TestTenant;
let admin: string;
let planner: string;
let model: FakeModel;
let P: number;
let uidI1: string;

const jtiOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()).jti as string;
const setLlm = (tenant: TestTenant, url: string) => withTenant(t.db, tenant.accountId, async (tx) => {
  await setTenantParameter(tx, 'llm', 'base_url', url);
  await setTenantParameter(tx, 'llm', 'model', 'tiny-test-model');
  await setTenantParameter(tx, 'llm', 'api_key', 'sk-test');
});
const chat = (question: string, extra: Record<string, unknown> = {}, token = planner) =>
  t.call('post', '/api/assistant/chat', { token, body: { question, pipeline_id: P, scenario_id: null, session_id: '', ...extra } });

async function seed(tenant: TestTenant): Promise<void> {
  await withTenant(t.db, tenant.accountId, async (tx) => {
    P = (await tx.oneFirst(sql.unsafe`INSERT INTO scenario_pipelines (name) VALUES ('Assistant pipeline') RETURNING id`)) as number;
    const s12 = (await tx.oneFirst(sql.unsafe`INSERT INTO sites (xuid, name) VALUES ('12', 'Site 12') RETURNING id`)) as number;
    const s1 = (await tx.oneFirst(sql.unsafe`INSERT INTO sites (xuid, name) VALUES ('S1', 'Site S1') RETURNING id`)) as number;
    const item = async (x: string) => (await tx.oneFirst(sql.unsafe`INSERT INTO items (xuid, name) VALUES (${x}, ${`Item ${x}`}) RETURNING id`)) as number;
    const [i1, i2, i3] = [await item('I1'), await item('I2'), await item('I3')];
    uidI1 = `${i1}_${s12}`;
    const scenario = (await tx.oneFirst(sql.unsafe`INSERT INTO supply_scenarios (name) VALUES ('assistant test') RETURNING id`)) as number;
    await tx.query(sql.unsafe`INSERT INTO supply_runs (run_id, pipeline_id, scenario_id, status, planning_date, finished_at) VALUES ('R', ${P}, ${scenario}, 'completed', '2026-01-05', now())`);
    const zero = Array(8).fill(0);
    for (const [it, st, shortage, demand, cls] of [[i1, s12, [0, 0, 5, 5, 0, 0, 0, 0], 100, 'lumpy'], [i2, s12, [0, 0, 0, 0, 0, 7, 0, 0], 40, 'smooth'], [i3, s1, [4, 0, 0, 0, 0, 0, 0, 0], 70, 'lumpy']] as Array<[number, number, number[], number, string]>) {
      await tx.query(sql.unsafe`INSERT INTO series (item_id, site_id) VALUES (${it}, ${st})`);
      await tx.query(sql.unsafe`
        INSERT INTO supply_plans (run_id, item_id, site_id, opening, demand, indirect, returns, gross, receipts_firm, receipts_planned, projected, safety_stock, shortage, latest_firm_week, min_lead_time, shortage_qty)
        VALUES ('R', ${it}, ${st}, 0, ${sql.array(zero, 'float8')}, ${sql.array(zero, 'float8')}, ${sql.array(zero, 'float8')}, ${sql.array(zero, 'float8')}, ${sql.array(zero, 'float8')},
                ${sql.array(zero, 'float8')}, ${sql.array(zero, 'float8')}, ${sql.array(zero, 'float8')}, ${sql.array(shortage, 'float8')}, ${sql.array(zero, 'int4')}, ${sql.array(zero, 'float8')}, ${shortage.reduce((x, y) => x + y, 0)})`);
      await tx.query(sql.unsafe`INSERT INTO demand_history (item_id, site_id, ds, qty) VALUES (${it}, ${st}, '2025-12-29', ${demand})`);
      await tx.query(sql.unsafe`
        INSERT INTO series_characteristics (pipeline_id, item_id, site_id, n_observations, demand_class, is_intermittent, has_seasonality, seasonal_period, has_trend, complexity_level)
        VALUES (${P}, ${it}, ${st}, 20, ${cls}, false, false, 52, false, 'low')`);
    }
    await tx.query(sql.unsafe`
      INSERT INTO forecast_results (pipeline_id, item_id, site_id, method, start_week, yhat, yhat_lower, yhat_upper, level)
      VALUES (${P}, ${i1}, ${s12}, 'ets', '2026-01-05', '{10,11,12}', '{8,9,10}', '{12,13,14}', 0.9)`);
    await tx.query(sql.unsafe`INSERT INTO exception_log (pipeline_id, item_id, site_id, exception_types) VALUES (${P}, ${i1}, ${s12}, '{supply}'), (${P}, ${i2}, ${s12}, '{forecast}')`);
  });
}

beforeAll(async () => {
  t = await startTestApp();
  a = await t.newTenant('assistant');
  admin = await t.login(a.admin);
  planner = await t.login(a.planner);
  await seed(a);
  model = await startFakeModel(() => JSON.stringify({ sql: 'SELECT 1 AS one' }));
}, 120_000);

afterAll(async () => {
  await model?.close();
  await t?.close();
});

describe('without a model: the template questions', () => {
  test("the issue's question: which items at site 12 will run short in the next 4 weeks", async () => {
    const res = await chat('which items at site 12 will run short in the next 4 weeks?');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      mode: 'template', attempts: 1, row_count: 1, columns: ['item', 'site', 'first_short_week', 'first_short_date', 'shortage_qty'],
      data: [{ item: 'I1', site: '12', first_short_week: 3, first_short_date: '2026-01-19', shortage_qty: 10 }],
      chart: { type: 'kpi' }, cached: false, session_id: `u:${jtiOf(planner)}`,
    });
    expect(res.body.error).toBeUndefined();
    expect(res.body.answer).toContain('because no language model is configured');
    expect(res.body.answer).toContain('template');
    expect(res.body.sql).toMatch(/^WITH run AS/);
    expect(res.body.tables_used).toEqual(expect.arrayContaining(['supply_runs', 'supply_plans', 'items', 'sites']));
    expect(res.body.concepts_used).toContain('shortage');
    expect(typeof res.body.duration_ms).toBe('number');
    // 6 weeks reach I2's shortage too
    const six = await chat('which items at site 12 will run short in the next 6 weeks?');
    expect(six.body.data.map((r: any) => [r.item, r.first_short_week])).toEqual([['I1', 3], ['I2', 6]]);
    expect(six.body.chart).toEqual({ type: 'line', x_col: 'first_short_date', y_cols: ['first_short_week', 'shortage_qty'], title: 'shortages in the next 6 weeks at site 12' });
  });

  test('a user limited to segments gets a 403: the statements would read the other segments\' series', async () => {
    const segment = (await withTenant(t.db, a.accountId, (tx) => tx.oneFirst(sql.unsafe`INSERT INTO segments (name) VALUES ('north only') RETURNING id`))) as number;
    const limited = await t.login(await t.addUser(a.accountId, { allowed_segments: [segment] }));
    const res = await chat('which items at site 12 will run short in the next 4 weeks', {}, limited);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: `the assistant reads every series of the tenant; users limited to segments (yours: ${segment}) cannot use it` });
    expect((await t.call('get', '/api/assistant/history', { token: limited })).body.history).toEqual([]);
    // the same question from a user who sees every segment answers
    expect((await chat('which items at site 12 will run short in the next 4 weeks')).status).toBe(200);
  });

  test('counts by class, top N, series with an exception type, the forecast of one series', async () => {
    const classes = await chat('how many series per demand class?');
    expect(classes.body).toMatchObject({ mode: 'template', data: [{ demand_class: 'lumpy', series: 2 }, { demand_class: 'smooth', series: 1 }], chart: { type: 'bar', x_col: 'demand_class', y_cols: ['series'] } });
    const top = await chat('top 2 series by demand');
    expect(top.body.data).toEqual([{ item: 'I1', site: '12', total_demand: 100 }, { item: 'I3', site: 'S1', total_demand: 70 }]);
    expect(top.body.chart).toMatchObject({ type: 'bar', x_col: 'item', y_cols: ['total_demand'] });
    const exc = await chat('which series have supply exceptions?');
    expect(exc.body.data.map((r: any) => [r.item, r.exception_types])).toEqual([['I1', ['supply']]]);
    const fc = await chat(`forecast of ${uidI1}`);
    expect(fc.body.data).toEqual([
      { week: '2026-01-05', forecast: 10, method: 'ets' }, { week: '2026-01-12', forecast: 11, method: 'ets' }, { week: '2026-01-19', forecast: 12, method: 'ets' },
    ]);
    expect(fc.body.chart).toMatchObject({ type: 'line', x_col: 'week', y_cols: ['forecast'] });
    const fc2 = await chat('show the forecast for item I1 at site 12');
    expect(fc2.body.data).toEqual(fc.body.data);
  });

  test('a question no template knows: 200 with error, empty data, chart none, and it says why', async () => {
    const res = await chat('what is the meaning of life?');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ mode: 'none', attempts: 0, data: [], columns: [], row_count: 0, chart: { type: 'none' }, sql: '' });
    expect(res.body.error).toMatch(/no language model is configured.*matches none of the template questions/);
  });

  test('a model host that is down: the templates answer and the answer says so; status reports it unavailable', async () => {
    const b = await t.newTenant('assistant-down');
    await setLlm(b, 'http://127.0.0.1:9/v1');
    const token = await t.login(b.planner);
    const res = await t.call('post', '/api/assistant/chat', { token, body: { question: 'how many series per ABC class', session_id: '' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ mode: 'template', data: [], chart: { type: 'none' } });
    expect(res.body.answer).toContain('is unavailable');
    const st = await t.call('get', '/api/assistant/status', { token });
    expect(st.body).toMatchObject({ ollama_url: 'http://127.0.0.1:9/v1', model: 'tiny-test-model', available: false, available_models: [] });
  });
});

describe('with the tenant model', () => {
  let m: TestTenant;
  let token: string;
  beforeAll(async () => {
    m = await t.newTenant('assistant-llm');
    await seed(m);
    await setLlm(m, model.url);
    token = await t.login(m.planner);
  });
  const ask = (question: string, extra: Record<string, unknown> = {}) =>
    t.call('post', '/api/assistant/chat', { token, body: { question, pipeline_id: P, session_id: '', ...extra } });

  test('the model writes the SQL from the schema; the answer, rows, chart hint and shape of §4.7', async () => {
    model.respond = () => JSON.stringify({
      sql: 'SELECT i.xuid AS item, p.shortage_qty FROM supply_plans p JOIN items i ON i.id = p.item_id ORDER BY p.shortage_qty DESC',
      explanation: 'Shortage per item in the latest run.',
      chart: { type: 'bar', x_col: 'item', y_cols: ['shortage_qty'], title: 'Shortage by item' },
    });
    const before = model.calls.length;
    const res = await ask('shortage quantity per item');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['answer', 'attempts', 'cached', 'chart', 'columns', 'concepts_used', 'data', 'duration_ms', 'mode', 'row_count', 'session_id', 'sql', 'tables_used']);
    expect(res.body).toMatchObject({
      mode: 'llm', attempts: 1, row_count: 3, columns: ['item', 'shortage_qty'],
      data: [{ item: 'I1', shortage_qty: 10 }, { item: 'I2', shortage_qty: 7 }, { item: 'I3', shortage_qty: 4 }],
      chart: { type: 'bar', x_col: 'item', y_cols: ['shortage_qty'], title: 'Shortage by item' },
      tables_used: ['items', 'supply_plans'],
    });
    expect(res.body.answer).toMatch(/^Shortage per item in the latest run\. The query returned 3 rows/);
    expect(model.calls.length).toBe(before + 1);
    const call = model.calls[model.calls.length - 1];
    expect(call.model).toBe('tiny-test-model');
    expect(call.responseFormat).toEqual({ type: 'json_object' });
    expect(call.messages[0].content).toContain('TABLE supply_plans (');
    expect(call.messages[0].content).toContain(`pipeline_id = ${P}`);
    expect(call.messages[0].content).not.toContain('TABLE users');
    expect(call.messages[0].content).not.toContain('TABLE parameters');
    // the context budget: about 2000 tokens of 4 characters, plus the fixed instructions
    expect(call.messages[0].content.length).toBeLessThan(2000 * 4 + 1500);
    expect(call.messages[1].content).toBe('shortage quantity per item');
  });

  test('the same question again comes from the cache without calling the model', async () => {
    const before = model.calls.length;
    const res = await ask('Shortage  quantity per ITEM');
    expect(res.body).toMatchObject({ cached: true, row_count: 3, mode: 'llm' });
    expect(model.calls.length).toBe(before);
    // another pipeline is another key
    const other = await ask('shortage quantity per item', { pipeline_id: P + 1000 });
    expect(other.body.cached).toBe(false);
  });

  test('rule 2: a rejected or failing statement is retried with the error; attempts reports the number used', async () => {
    let n = 0;
    model.respond = () => (++n === 1 ? JSON.stringify({ sql: 'DELETE FROM items' }) : '```sql\nSELECT count(*)::int AS items FROM items\n```');
    const res = await ask('how many items are there (retry)');
    expect(res.body).toMatchObject({ attempts: 2, data: [{ items: 3 }], chart: { type: 'kpi', y_cols: ['items'] } });
    expect(res.body.error).toBeUndefined();
    const retry = model.calls[model.calls.length - 1].messages[1].content;
    expect(retry).toContain('DELETE FROM items');
    expect(retry).toContain('statement rejected: the statement must start with SELECT or WITH');
  });

  test('rule 2 and §7: after the last failure a 200 with error, empty data, chart none, attempts = the budget', async () => {
    model.respond = () => JSON.stringify({ sql: 'SELECT no_such_column FROM items' });
    const before = model.calls.length;
    const res = await ask('a question that never works');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ attempts: 2, data: [], columns: [], row_count: 0, chart: { type: 'none', x_col: null, y_cols: [] }, sql: 'SELECT no_such_column FROM items', mode: 'llm' });
    expect(res.body.error).toMatch(/^statement failed: column "no_such_column" does not exist/);
    expect(model.calls.length).toBe(before + 2);
    // failures are not cached
    expect((await ask('a question that never works')).body.cached).toBe(false);
    process.env.MAX_SQL_RETRIES = '3';
    try {
      expect((await ask('a question that never works, three times')).body.attempts).toBe(3);
      expect((await t.call('get', '/api/assistant/status', { token })).body.max_sql_retries).toBe(3);
    } finally {
      delete process.env.MAX_SQL_RETRIES;
    }
  });

  test('status: the model host, its models, the index and the memory', async () => {
    const st = await t.call('get', '/api/assistant/status', { token });
    expect(st.status).toBe(200);
    expect(st.body).toMatchObject({
      ollama_url: model.url, model: 'tiny-test-model', available: true, available_models: ['tiny-test-model'],
      embedding_model: null, embedding_fallback: true, index_ready: false, index_stats: {},
      memory: { max_turns_per_session: 6, ttl_seconds: 3600 }, cache: { max_entries: 64, ttl_seconds: 300 }, row_limit: 500, statement_timeout_ms: 8000, max_sql_retries: 2,
    });
    expect(st.body.memory.sessions).toBeGreaterThanOrEqual(1);
    expect(st.body.index_path).toMatch(/^t_[0-9a-f]{32}\.assistant_index$/);
  });

  test('POST /api/assistant/index: admin only; builds the index that status then reports', async () => {
    const denied = await t.call('post', '/api/assistant/index', { token });
    expect(denied.status).toBe(403);
    expect(denied.body).toEqual({ detail: 'admin only' });
    const res = await t.call('post', '/api/assistant/index', { token: await t.login(m.admin) });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('ok');
    expect(res.body.counts.concepts).toBe(9);
    expect(res.body.counts.tables).toBeGreaterThan(40);
    expect(res.body.counts.columns).toBeGreaterThan(res.body.counts.tables);
    const st = await t.call('get', '/api/assistant/status', { token });
    expect(st.body.index_ready).toBe(true);
    expect(st.body.index_stats.supply_plans).toBe(22);
    expect(st.body.index_stats.users).toBeUndefined();
    expect(st.body.index_stats.parameters).toBeUndefined();
    expect(Object.keys(st.body.index_stats)).toHaveLength(res.body.counts.tables);
  });

  test('sessions: 6 turns kept, history with sql and result_summary, explicit ids apart, clear', async () => {
    model.respond = (call) => JSON.stringify({ sql: `SELECT ${call.messages[1].content.length} AS n` });
    const s = `sess-${Date.now()}`;
    for (const q of ['first q', 'second q', 'third q', 'fourth q']) expect((await ask(q, { session_id: s })).body.session_id).toBe(s);
    const h = await t.call('get', '/api/assistant/history', { token, query: { session_id: s } });
    expect(h.status).toBe(200);
    expect(h.body.session_id).toBe(s);
    expect(h.body.history).toHaveLength(6);
    expect(h.body.history.map((x: any) => x.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user', 'assistant']);
    expect(h.body.history[0]).toEqual({ role: 'user', content: 'second q', ts: expect.any(String) });
    expect(h.body.history[5]).toMatchObject({ role: 'assistant', sql: 'SELECT 8 AS n', result_summary: '1 row (n); first: n=8' });
    // the model saw the earlier turns of the session
    expect(model.calls[model.calls.length - 1].messages[0].content).toContain('User: third q');
    const mine = await t.call('get', '/api/assistant/history', { token });
    expect(mine.body.session_id).toBe(`u:${jtiOf(token)}`);
    expect(mine.body.history.some((x: any) => x.content === 'second q')).toBe(false);
    const cleared = await t.call('post', '/api/assistant/clear', { token, body: { session_id: s } });
    expect(cleared.body).toEqual({ cleared: true, session_id: s });
    expect((await t.call('get', '/api/assistant/history', { token, query: { session_id: s } })).body.history).toEqual([]);
    expect((await t.call('post', '/api/assistant/clear', { token, body: { session_id: s } })).body.cleared).toBe(false);
  });

  test('rule 5: logging out clears the sessions written with that token', async () => {
    const other = await t.login(m.planner);
    const s = `logout-${Date.now()}`;
    model.respond = () => JSON.stringify({ sql: 'SELECT 1 AS one' });
    await t.call('post', '/api/assistant/chat', { token: other, body: { question: 'before logout', session_id: s } });
    expect((await t.call('get', '/api/assistant/history', { token, query: { session_id: s } })).body.history).toHaveLength(2);
    expect((await t.call('post', '/api/auth/logout', { token: other })).status).toBe(200);
    expect((await t.call('get', '/api/assistant/history', { token, query: { session_id: s } })).body.history).toEqual([]);
  });

  test('bad input is a 400 naming the field; no token is a 401', async () => {
    for (const body of [{}, { question: '' }, { question: 'x', pipeline_id: -1 }, { question: 'x', extra: 1 }, { question: 'x'.repeat(2001) }, { question: 'x', session_id: 'a\u0001' }]) {
      const res = await t.call('post', '/api/assistant/chat', { token, body });
      expect([JSON.stringify(body).slice(0, 40), res.status]).toEqual([JSON.stringify(body).slice(0, 40), 400]);
      expect(typeof res.body.detail).toBe('string');
    }
    expect((await t.call('get', '/api/assistant/status')).status).toBe(401);
  });
});
