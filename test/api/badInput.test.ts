import request from 'supertest';
import { INT4_MAX } from '../../api/routes/schemas';
import type { JsonSchema } from '../../api/routes/validation';
import { sql, withTenant } from '../../db/pool';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';

/**
 * Inputs a fuzzer sends and a form never does: unknown methods, NUL characters, lone surrogates, integers beyond
 * int4, prototype keys, deep nesting. Each must be a 4xx naming the field, change nothing and leave its audit row.
 */
let t: TestApp;
let a: TestTenant;
let admin: string;
let scenarioId: number;
let calendarId: number;
let configId: number;
beforeAll(async () => {
  t = await startTestApp();
  a = await t.newTenant('badinput');
  admin = await t.login(a.admin);
  scenarioId = (await t.call('post', '/api/forecast/scenarios', { token: admin, body: { name: 'Source' } })).body.id;
  calendarId = (await t.call('post', '/api/calendars', { token: admin, body: { name: 'Plant' } })).body.id;
  configId = (await t.call('post', '/api/abc/configurations', { token: admin, body: { name: 'Value' } })).body.id;
  expect([scenarioId, calendarId, configId].every((id) => Number.isInteger(id))).toBe(true);
});
afterAll(() => t.close());

const scenarioCount = () => withTenant(t.db, a.accountId, (tx) => tx.oneFirst(sql.unsafe`SELECT count(*) FROM forecast_scenarios`));
const raw = (method: string, path: string, body: string) =>
  t.call(method, path, { token: admin, headers: { 'Content-Type': 'application/json' }, body });

describe('methods', () => {
  test('an unknown method on a known path is a 405 listing the path\'s methods', async () => {
    for (const [method, path, allowed] of [
      ['trace', '/api/npi/list', ['GET']],
      ['trace', '/api/forecast/scenarios/1', ['GET', 'PUT', 'DELETE']],
      ['propfind', '/api/calendars', ['GET', 'POST']],
      ['patch', '/api/npi/list', ['GET']],
      ['post', '/api/auth/me', ['GET']],
    ] as const) {
      const res = await t.call(method, path, { token: admin });
      expect([method, path, res.status]).toEqual([method, path, 405]);
      expect(res.body.detail).toMatch(/not allowed/);
      const allow = String(res.headers.allow).split(/,\s*/);
      expect(allow).toEqual(expect.arrayContaining([...allowed]));
      expect(allow).not.toContain(method.toUpperCase());
    }
  });

  test('public paths answer the same without a token; unknown paths stay 404', async () => {
    const open = await request(t.server).trace('/openapi.json');
    expect(open.status).toBe(405);
    expect(open.headers.allow).toMatch(/GET/);
    for (const method of ['trace', 'propfind', 'patch']) {
      const res = await t.call(method, '/api/no-such-thing', { token: admin });
      expect([method, res.status]).toEqual([method, 404]);
      expect(res.headers.allow).toBeUndefined();
      expect(res.body.detail).toMatch(/Not found/);
    }
  });
});

describe('text PostgreSQL cannot store', () => {
  test('a NUL character in a query string is a 400 naming the parameter', async () => {
    for (const [path, name] of [['/api/npi/list', 'search'], ['/api/items', 'search'], ['/api/audit-log', 'changed_by'], ['/api/process-log', 'run_id']]) {
      const res = await t.call('get', path, { token: admin, query: { [name]: 'ab\u0000c' } });
      expect([path, res.status, res.body.detail]).toEqual([path, 400, `query.${name}: must not contain the NUL character (\\u0000)`]);
    }
  });

  test('a NUL character in a body is a 400 naming the field, and nothing is written', async () => {
    const before = await scenarioCount();
    const clone = await t.call('post', `/api/forecast/scenarios/${scenarioId}/clone`, { token: admin, body: { name: 'copy\u0000' } });
    expect(clone.status).toBe(400);
    expect(clone.body.detail).toBe('body.name: must not contain the NUL character (\\u0000)');
    const calendar = await t.call('post', '/api/calendars', { token: admin, body: { name: 'ok', entries: [{ ds: '2026-01-05', factor: 1, description: 'x\u0000' }] } });
    expect(calendar.body.detail).toBe('body.entries[0].description: must not contain the NUL character (\\u0000)');
    const rename = await t.call('put', `/api/calendars/${calendarId}`, { token: admin, body: { name: '\u0000' } });
    expect(rename.status).toBe(400);
    expect(rename.body.detail).toMatch(/^body\.name: must not contain the NUL/);
    expect(await scenarioCount()).toBe(before);
    expect((await t.call('get', `/api/calendars/${calendarId}`, { token: admin })).body.name).toBe('Plant');
  });

  test('a NUL character in a path parameter is a 400 naming it', async () => {
    for (const [method, path, name] of [
      ['get', '/api/series/a%00b/data', 'unique_id'],
      ['delete', '/api/npi/a%00b', 'unique_id'],
      ['get', '/api/abc/results/by-series/%00', 'unique_id'],
    ]) {
      const res = await t.call(method, path, { token: admin });
      expect([path, res.status]).toEqual([path, 400]);
      expect(res.body.detail).toBe(`path.${name}: must not contain the NUL character (\\u0000)`);
    }
  });

  test('a lone UTF-16 surrogate is a 400, not silently stored as U+FFFD', async () => {
    for (const name of ['\ud800', 'a\udc00b', 'x\ud83d']) {
      const res = await t.call('post', '/api/calendars', { token: admin, body: { name } });
      expect([name, res.status, res.body.detail]).toEqual([name, 400, 'body.name: must not contain a lone UTF-16 surrogate (not valid Unicode)']);
    }
    // a surrogate pair is a real character and is kept
    const emoji = await t.call('post', '/api/calendars', { token: admin, body: { name: 'Holidays \ud83c\udf84' } });
    expect(emoji.status).toBe(201);
    expect(emoji.body.name).toBe('Holidays 🎄');
    const key = await raw('put', `/api/abc/configurations/${configId}`, '{"thresholds": {"\\ud800": 0.5}}');
    expect(key.status).toBe(400);
    expect(key.body.detail).toBe('body.thresholds: a key must not contain a lone UTF-16 surrogate (not valid Unicode)');
  });
});

describe('integers', () => {
  test('integers beyond int4 in query, path and body are a 400 naming the field', async () => {
    const huge = '1213924251362717106962432';
    for (const [path, name] of [['/api/pipeline/jobs', 'offset'], ['/api/process-log/runs', 'offset'], ['/api/process-log', 'offset'], ['/api/calendars', 'skip'], ['/api/npi/list', 'skip'], ['/api/audit-log', 'offset']]) {
      const res = await t.call('get', `${path}?${name}=${huge}`, { token: admin });
      expect([path, res.status, res.body.detail]).toEqual([path, 400, `query.${name} must be <= ${INT4_MAX}`]);
    }
    const edge = await t.call('get', `/api/process-log/runs?offset=${INT4_MAX}`, { token: admin });
    expect(edge.status).toBe(200);
    const path = await t.call('get', `/api/calendars/${huge}`, { token: admin });
    expect([path.status, path.body.detail]).toEqual([400, `path.id must be <= ${INT4_MAX}`]);
    const user = await t.call('put', `/api/auth/users/${a.planner.id}`, { token: admin, body: { allowed_segments: [1, 1e30] } });
    expect([user.status, user.body.detail]).toEqual([400, `body.allowed_segments[1] must be <= ${INT4_MAX}`]);
    const big = await t.call('put', `/api/auth/users/${a.planner.id}`, { token: admin, body: { allowed_segments_edit: [INT4_MAX + 1] } });
    expect([big.status, big.body.detail]).toEqual([400, `body.allowed_segments_edit[0] must be <= ${INT4_MAX}`]);
    const run = await t.call('post', '/api/pipeline/run/outlier', { token: admin, body: { pipeline_id: 1e300 } });
    expect([run.status, run.body.detail]).toEqual([400, `body.pipeline_id must be <= ${INT4_MAX}`]);
  });

  test('every integer a route accepts has a minimum and a maximum within int4', () => {
    const missing: string[] = [];
    const walk = (s: unknown, at: string) => {
      if (!s || typeof s !== 'object') return;
      if (Array.isArray(s)) return s.forEach((x, i) => walk(x, `${at}/${i}`));
      const schema = s as JsonSchema;
      const types = Array.isArray(schema.type) ? schema.type : [schema.type];
      if (types.includes('integer') && schema.const === undefined && schema.enum === undefined) {
        const max = (schema.maximum ?? schema.exclusiveMaximum) as number | undefined;
        const min = (schema.minimum ?? schema.exclusiveMinimum) as number | undefined;
        if (max === undefined || min === undefined || max > INT4_MAX || min < -INT4_MAX - 1) missing.push(at);
      }
      for (const [k, v] of Object.entries(schema)) if (k !== 'default' && k !== 'examples') walk(v, `${at}/${k}`);
    };
    for (const r of t.table.routes) for (const where of ['params', 'query', 'body'] as const) walk(r[where], `${r.method.toUpperCase()} ${r.path} ${where}`);
    // A new bigint column would need its own, larger limit here and a look at how slonik binds it.
    expect(missing).toEqual([]);
    expect(t.table.routes.length).toBeGreaterThan(100);
  });
});

describe('prototype keys and nesting', () => {
  test('__proto__, constructor and prototype keys are a 400 naming the key, and nothing changes', async () => {
    for (const [body, detail] of [
      ['{"__proto__": {"name": "x"}}', "body: key '__proto__' is not allowed"],
      // the body parser (@hapi/bourne) refuses __proto__ anywhere in the document before validation can name the field
      ['{"name": "y", "thresholds": {"__proto__": 0.5}}', "body: key '__proto__' is not allowed"],
      ['{"thresholds": {"constructor": 0.5, "A": 1}}', "body.thresholds: key 'constructor' is not allowed"],
      ['{"thresholds": {"prototype": 1}}', "body.thresholds: key 'prototype' is not allowed"],
    ]) {
      const res = await raw('put', `/api/abc/configurations/${configId}`, body);
      expect([body, res.status, res.body.detail]).toEqual([body, 400, detail]);
    }
    const cfg = (await t.call('get', `/api/abc/configurations/${configId}`, { token: admin })).body;
    expect(cfg).toMatchObject({ name: 'Value', thresholds: [0.8, 0.95, 1] });
    expect(({} as any).name).toBeUndefined();
    const query = await t.call('get', '/api/calendars?__proto__=1', { token: admin });
    expect([query.status, query.body.detail]).toEqual([400, "query: key '__proto__' is not allowed"]);
  });

  test('a body nested deeper than the limit is a 400, not a stack overflow', async () => {
    const deep = `{"thresholds": ${'['.repeat(5000)}${']'.repeat(5000)}}`;
    const res = await raw('put', `/api/abc/configurations/${configId}`, deep);
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/^body\.thresholds(\[0\])+: nested more than 32 levels deep$/);
  });
});

describe('audit trail under bad input', () => {
  const auditRows = (path: string) =>
    withTenant(t.db, a.accountId, (tx) => tx.any(sql.unsafe`SELECT outcome, status_code, detail, new_value FROM audit_log WHERE path = ${path} ORDER BY id`));

  test('a refused request with NUL, lone surrogates or deep nesting in its body still leaves exactly one audit row', async () => {
    const path = `/api/forecast/scenarios/${scenarioId}/clone`;
    const before = (await auditRows(path)).length;
    expect((await t.call('post', path, { token: admin, body: { name: 'n\u0000ul', description: 'x\ud800', 'k\u0000ey': 1 } })).status).toBe(400);
    expect((await raw('post', path, `{"name": ${'['.repeat(3000)}${']'.repeat(3000)}}`)).status).toBe(400);
    const rows = await auditRows(path);
    expect(rows.length).toBe(before + 2);
    const [nul, deep] = rows.slice(-2) as any[];
    expect(nul).toMatchObject({ outcome: 'failure', status_code: 400, detail: 'body.name: must not contain the NUL character (\\u0000)' });
    expect(nul.new_value).toEqual({ name: 'n\\u0000ul', description: 'x\\ud800', 'k\\u0000ey': 1 });
    expect(deep).toMatchObject({ outcome: 'failure', status_code: 400 });
    expect(JSON.stringify(deep.new_value)).toContain('[nested too deeply]');
  });

  test('a refused request with a __proto__ key leaves its audit row too', async () => {
    const path = `/api/abc/configurations/${configId}`;
    const before = (await auditRows(path)).length;
    expect((await raw('put', path, '{"__proto__": {"polluted": true}, "name": "n\\u0000"}')).status).toBe(400);
    const rows = await auditRows(path);
    expect(rows.length).toBe(before + 1);
    expect(rows[rows.length - 1]).toMatchObject({ outcome: 'failure', status_code: 400, detail: "body: key '__proto__' is not allowed" });
    expect(({} as any).polluted).toBeUndefined();
  });
});
