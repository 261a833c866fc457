import Router from '@koa/router';
import { buildOpenApi } from '../../api/openapi';
import { defineRoute, type LinkSpec, type RouteTable } from '../../api/routes/define';
import { startTestApp, type TestApp } from '../support/testApp';

/**
 * The OpenAPI links of /openapi.json: each one names an operation of the document and parameters it takes, and
 * following one from a real answer (the runtime expressions evaluated as a client would) reaches the row it names.
 */
let t: TestApp;
let token: string;
let doc: any;
beforeAll(async () => {
  t = await startTestApp();
  const tenant = await t.newTenant('links');
  token = await t.login(tenant.admin);
  doc = (await t.call('get', '/openapi.json')).body;
});
afterAll(() => t.close());

const operations = () => {
  const byId = new Map<string, { method: string; path: string; op: any }>();
  for (const [p, methods] of Object.entries<any>(doc.paths)) for (const [m, op] of Object.entries<any>(methods)) byId.set(op.operationId, { method: m, path: p, op });
  return byId;
};

const linksOf = (method: string, path: string, status: number) => doc.paths[path][method].responses[status].links as Record<string, any>;

/** `$response.body#/0/id` and `$request.query.pipeline_id`, the two kinds of expression the document uses. */
function evaluate(expression: string, request: { query: Record<string, unknown> }, body: unknown): unknown {
  if (expression.startsWith('$request.query.')) return request.query[expression.slice('$request.query.'.length)];
  const pointer = expression.replace(/^\$response\.body#/, '');
  return pointer.split('/').slice(1).reduce((v: any, k) => v?.[k], body);
}

function follow(link: any, request: { query: Record<string, unknown> }, body: unknown): { method: string; url: string; query: Record<string, unknown> } {
  const target = operations().get(link.operationId)!;
  let url = target.path;
  const query: Record<string, unknown> = {};
  for (const [key, expression] of Object.entries<string>(link.parameters)) {
    const [where, name] = key.split('.');
    const value = evaluate(expression, request, body);
    if (where === 'path') url = url.replace(`{${name}}`, encodeURIComponent(String(value)));
    else query[name] = value;
  }
  return { method: target.method, url, query };
}

test('every link names an operation of the document and parameters that operation takes', () => {
  const byId = operations();
  let links = 0;
  for (const { method, path, op } of byId.values()) {
    for (const [status, response] of Object.entries<any>(op.responses)) {
      for (const [name, link] of Object.entries<any>(response.links ?? {})) {
        links += 1;
        const target = byId.get(link.operationId);
        expect([method, path, status, name, Boolean(target)]).toEqual([method, path, status, name, true]);
        const taken = new Set((target!.op.parameters as any[]).map((p) => `${p.in}.${p.name}`));
        for (const key of Object.keys(link.parameters ?? {})) expect([link.operationId, key, taken.has(key)]).toEqual([link.operationId, key, true]);
      }
    }
  }
  // the resources, pipelines, series, supply runs and versions declare theirs: well over a hundred in all
  expect(links).toBeGreaterThan(100);
});

test('the created pipeline\'s link leads to it, to its versions and to its exception log', async () => {
  const scenario = await t.call('post', '/api/forecast/scenarios', { token, body: { name: 'Links baseline', is_baseline: true } });
  const created = await t.call('post', '/api/scenario-pipeline', { token, body: { name: 'Linked', forecast_scenario_id: scenario.body.id } });
  expect(created.status).toBe(201);
  const links = linksOf('post', '/api/scenario-pipeline', 201);
  const byTarget = (method: string, path: string) => Object.values<any>(links).find((l) => {
    const o = operations().get(l.operationId)!;
    return o.method === method && o.path === path;
  });
  for (const [method, path] of [['get', '/api/scenario-pipeline/{id}'], ['get', '/api/history/versions'], ['get', '/api/exception-log']] as const) {
    const link = byTarget(method, path);
    expect([path, Boolean(link)]).toEqual([path, true]);
    const next = follow(link, { query: {} }, created.body);
    const res = await t.call(next.method, next.url, { token, query: next.query });
    expect([path, res.status]).toEqual([path, 200]);
  }
  const one = follow(byTarget('get', '/api/scenario-pipeline/{id}'), { query: {} }, created.body);
  expect(one.url).toBe(`/api/scenario-pipeline/${created.body.id}`);
});

test('a resource\'s created row links to its item operations and the operations below it', async () => {
  const links = Object.values<any>(linksOf('post', '/api/meio/scenarios', 201)).map((l) => {
    const o = operations().get(l.operationId)!;
    return `${o.method.toUpperCase()} ${o.path}`;
  });
  expect(links).toEqual(expect.arrayContaining([
    'GET /api/meio/scenarios/{id}', 'PUT /api/meio/scenarios/{id}', 'DELETE /api/meio/scenarios/{id}',
    'GET /api/meio/scenarios/{id}/segment-params', 'GET /api/meio/scenarios/{id}/parameter-sets', 'GET /api/meio/scenarios/{id}/results',
  ]));
  // {seg} is not in the answer: that operation is not linked
  expect(links).not.toContain('DELETE /api/meio/scenarios/{id}/segment-params/{seg}');
  const created = await t.call('post', '/api/meio/scenarios', { token, body: { name: 'Linked scenario' } });
  expect(created.status).toBe(201);
  const link = Object.values<any>(linksOf('post', '/api/meio/scenarios', 201)).find((l) => operations().get(l.operationId)!.path === '/api/meio/scenarios/{id}/parameter-sets' && operations().get(l.operationId)!.method === 'get');
  const next = follow(link, { query: {} }, created.body);
  const res = await t.call(next.method, next.url, { token, query: next.query });
  expect(res.status).toBe(200);
  expect(res.body).toEqual([]);
});

test('the supply runs list links the newest run to the run and its reads, in the request\'s pipeline and scenario', () => {
  const links = Object.values<any>(linksOf('get', '/api/supply/runs', 200));
  const toRun = links.find((l) => operations().get(l.operationId)!.path === '/api/supply/runs/{run_id}' && operations().get(l.operationId)!.method === 'get');
  expect(toRun.parameters).toEqual({ 'path.run_id': '$response.body#/0/run_id', 'query.pipeline_id': '$request.query.pipeline_id', 'query.scenario_id': '$request.query.scenario_id' });
  const toPegging = links.find((l) => operations().get(l.operationId)!.path === '/api/supply/pegging');
  expect(toPegging.parameters).toEqual({ 'query.run_id': '$response.body#/0/run_id', 'query.pipeline_id': '$request.query.pipeline_id', 'query.scenario_id': '$request.query.scenario_id' });
  const fromVersions = Object.values<any>(linksOf('get', '/api/history/versions', 200)).map((l) => operations().get(l.operationId)!.path);
  expect(fromVersions).toEqual(expect.arrayContaining(['/api/history/versions/{archive_date}', '/api/history/replay/{archive_date}', '/api/compare/versions', '/api/compare/plan-vs-actual']));
});

test('a link to an operation or a parameter that does not exist stops the document instead of being published', () => {
  const table = { router: new Router(), routes: [] } as RouteTable;
  const answer = (links: Record<string, LinkSpec>) => ({ 200: { description: 'x', schema: { type: 'object' }, links } });
  defineRoute(table, { method: 'get', path: '/x/{id}', tag: 'x', summary: 'x', params: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] }, responses: answer({}), handler: () => ({}) });
  defineRoute(table, { method: 'post', path: '/x', tag: 'x', summary: 'x', responses: answer({ one: { operation: 'GET /x/{id}', parameters: { 'path.id': '$response.body#/id' } } }), handler: () => ({}) });
  expect((buildOpenApi(table) as any).paths['/x'].post.responses[200].links).toEqual({ one: { operationId: 'get_x_id', parameters: { 'path.id': '$response.body#/id' } } });
  defineRoute(table, { method: 'put', path: '/y', tag: 'x', summary: 'x', responses: answer({ gone: { operation: 'GET /nowhere' } }), handler: () => ({}) });
  expect(() => buildOpenApi(table)).toThrow('PUT /y: link gone targets GET /nowhere, which is not a route');
  table.routes.pop();
  defineRoute(table, { method: 'put', path: '/z', tag: 'x', summary: 'x', responses: answer({ wrong: { operation: 'GET /x/{id}', parameters: { 'query.id': '$response.body#/id' } } }), handler: () => ({}) });
  expect(() => buildOpenApi(table)).toThrow('PUT /z: link wrong sets parameter query.id, which GET /x/{id} does not take');
});
