import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { startTestApp, type TestApp } from '../support/testApp';

/**
 * Rules a handler used to check by hand, now in the schemas /openapi.json publishes (docs/API.md "The published
 * schema is the validation"). Each case is judged twice: by a client's own validator compiled from the published
 * document (a plain ajv, as a generated client or a fuzzer would use), and by the API. Both must refuse what one
 * refuses, and the API's 400 still names the field in the handler's words; what the schema admits is not a 400.
 */
let t: TestApp;
let token: string;
let doc: any;
const client = new Ajv2020({ strict: false, allErrors: true });
addFormats(client);

beforeAll(async () => {
  t = await startTestApp();
  const tenant = await t.newTenant('rules');
  token = await t.login(tenant.admin);
  doc = (await t.call('get', '/openapi.json')).body;
});
afterAll(() => t?.close());

const bodySchema = (method: string, path: string) => doc.paths[path][method].requestBody.content['application/json'].schema;
const admits = (method: string, path: string, body: unknown) => client.validate(bodySchema(method, path), body);

type Case = [method: 'post' | 'put', path: string, body: Record<string, unknown>, detail: string];
const order = { item_id: 1, site_id: 1, qty: 5, release_dt: '2026-06-01', arrival_dt: '2026-06-08' };
const fleet = { asset_type_id: 1, start_date: '2026-03-02', quantity: 2 };
const ORDER_TYPES = 'BUY, BUILD, REPAIR, TRANSFER, BALANCING, REPLENISH, RETURN';
const FIXES_K = 'give at most one of k, target_orders_per_year and target_inventory_value (each fixes k)';

const refused: Case[] = [
  ['post', '/api/supply/firm-orders', { ...order, order_type: 'buyx' }, `body.order_type: 'buyx' is not an order type (one of ${ORDER_TYPES}, any case)`],
  ['post', '/api/supply/firm-orders', { ...order, order_type: 'buy', erp_status: 'open' }, "body.erp_status: 'open' is not an erp_status (one of firm, released, in_transit, received, any case)"],
  ['post', '/api/kcurve/solve', { k: 2, target_orders_per_year: 10 }, `body.target_orders_per_year: ${FIXES_K}`],
  ['post', '/api/kcurve/solve', { k: 2, target_inventory_value: 10 }, `body.target_inventory_value: ${FIXES_K}`],
  ['post', '/api/kcurve/solve', { target_orders_per_year: 10, target_inventory_value: 10 }, `body.target_inventory_value: ${FIXES_K}`],
  ['post', '/api/kcurve/solve', { persist: true }, 'body.persist: persisting needs scenario_id (the scenario whose results receive the rows)'],
  ['post', '/api/kcurve/scenarios', { name: 'k', pipeline_id: 0, target_orders_per_year: 4, target_inventory_value: 9 }, 'body.target_inventory_value: set at most one of target_orders_per_year and target_inventory_value (each fixes k)'],
  ['post', '/api/causal/bom', { item_id: 1, qty_per_asset: 1 }, 'body.asset_type_id: give asset_type_id (a level-1 part) or parent_item_id (a sub-part)'],
  ['post', '/api/causal/bom', { item_id: 1, qty_per_asset: 1, asset_type_id: null, parent_item_id: null }, 'body.asset_type_id: give asset_type_id (a level-1 part) or parent_item_id (a sub-part)'],
  ['post', '/api/causal/bom', { item_id: 1, qty_per_asset: 1, asset_type_id: 1, parent_item_id: 2 }, 'body.parent_item_id: give asset_type_id or parent_item_id, not both'],
  ['put', '/api/causal/bom/{id}', { asset_type_id: 1, parent_item_id: 2 }, 'body.parent_item_id: give asset_type_id or parent_item_id, not both'],
  ['post', '/api/causal/fleet-plan', { ...fleet, customer_id: 1, customer_code: 'C1' }, 'body.customer_code: give customer_id or customer_code, not both'],
  ['post', '/api/causal/fleet-plan', fleet, 'body.customer_id: required (or customer_code)'],
  ['post', '/api/causal/asset-usage', { asset_type_id: 1, usage_type_id: 1, period_start: '2026-03-02', period_end: '2026-03-08', total_usage: 5, customer_id: 1, customer_code: 'C1' }, 'body.customer_code: give customer_id or customer_code, not both'],
  ['post', '/api/causal/asset-deployments', { asset_id: 1, site_id: 1, start_date: '2026-03-02' }, 'body.customer_id: required (or customer_code)'],
  ['post', '/api/causal/coverage', { asset_type_id: 1, site_id: 1, coverage_pct: 1, customer_id: 3, customer_code: 'C1' }, 'body.customer_code: give customer_id or customer_code, not both'],
  ['post', '/api/maintenance/events', { name: 'C-check', interval_weeks: 4 }, 'body.start_date: a recurring event (interval_weeks set) needs a start_date'],
  ['post', '/api/maintenance/events', { name: 'C-check', interval_weeks: null, dates: [] }, 'body.dates: an event without interval_weeks needs at least one date'],
  ['put', '/api/history/settings', { pipeline_id: 1, schedule_timezone: 'US/Eastern' }, "body.schedule_timezone: unknown time zone 'US/Eastern'"],
  ['post', '/api/config/update', { path: 'pipeline.n_wrkers', value: 3 }, "body.path: 'pipeline.n_wrkers' is not a setting"],
  ['post', '/api/process-workflows', { name: 'W', steps: ['etl'], step_workers: { etl: 2, fast: 3 } }, "body.step_workers: 'fast' is not a step (one of etl, "],
  ['post', '/api/segments', { name: 'S', rules: [{ field: 'colour', operator: '=', value: 'red' }] }, "body.rules[0]: unknown field 'colour' (GET /api/segments/fields lists the fields)"],
  ['post', '/api/segments', { name: 'S', rules: [{ field: 'demand_class', operator: 'in', value: [] }] }, "body.rules[0]: value of 'in' must be a non-empty list of string values for field 'demand_class'"],
  ['post', '/api/segments', { name: 'S', rules: [{ field: 'is_intermittent', operator: '=', value: 'yes' }] }, "body.rules[0]: value must be true or false for field 'is_intermittent' (type boolean)"],
  ['post', '/api/segments', { name: 'S', rules: [{ field: 'unit_price', operator: 'between', value: [1] }] }, "body.rules[0]: value of 'between' must be [low, high], each a number, for field 'unit_price'"],
  ['post', '/api/segments', { name: 'S', rules: [{ field: 'item_name', operator: 'is null', value: 'x' }] }, "body.rules[0]: value of 'is null' must be true, false or absent"],
];

/** What the API answers past validation: this tenant has no items, asset types or pipelines, so lookups may refuse. */
const admitted: Array<[method: 'post' | 'put', path: string, body: Record<string, unknown>, status: number, detail: string | null]> = [
  ['post', '/api/supply/firm-orders', { ...order, order_type: ' rEpAiR ', erp_status: 'In_Transit' }, 400, 'body.item_id: item 1 does not exist'],
  ['post', '/api/kcurve/solve', { target_inventory_value: 1000 }, 409, 'The portfolio has no demand'],
  ['post', '/api/causal/bom', { item_id: 1, qty_per_asset: 1, parent_item_id: 2 }, 400, 'body.parent_item_id: item 2 does not exist'],
  ['put', '/api/causal/bom/{id}', { asset_type_id: null, parent_item_id: 2 }, 404, 'BOM line 1 not found'],
  ['post', '/api/causal/fleet-plan', { ...fleet, customer_code: 'C1' }, 400, 'body.asset_type_id: asset type 1 does not exist'],
  ['post', '/api/causal/coverage', { asset_type_id: 1, site_id: 1, coverage_pct: 1, customer_id: null, customer_code: 'C1' }, 400, 'body.asset_type_id: asset type 1 does not exist'],
  ['post', '/api/maintenance/events', { name: 'A-check', interval_weeks: 4, start_date: '2026-03-02' }, 201, null],
  ['post', '/api/maintenance/events', { name: 'B-check', dates: ['2026-03-02'] }, 201, null],
  ['put', '/api/history/settings', { pipeline_id: 1, schedule_timezone: 'America/New_York' }, 404, 'pipeline_id: pipeline 1 not found'],
  ['post', '/api/config/update', { updates: [{ path: 'pipeline.chunk_size', value: 300 }, { path: 'llm.model', value: 'm' }] }, 200, null],
  ['post', '/api/segments', { name: 'Lumpy', rules: [{ field: 'demand_class', operator: 'in', value: ['lumpy'] }, { field: 'unit_price', operator: 'between', value: [1, 5] }, { field: 'best_method', operator: 'is null' }] }, 201, null],
];

const url = (path: string) => path.replace('{id}', '1');

test.each(refused)('%s %s %j: refused by the published schema and by the API, naming the field', async (method, path, body, detail) => {
  expect(admits(method, path, body)).toBe(false);
  const res = await t.call(method, url(path), { token, body });
  expect(res.status).toBe(400);
  expect(res.body.detail.startsWith(detail)).toBe(true);
});

test.each(admitted)('%s %s %j: admitted by the published schema, and the API gets past validation', async (method, path, body, status, detail) => {
  expect(admits(method, path, body)).toBe(true);
  const res = await t.call(method, url(path), { token, body });
  expect([res.status, detail === null ? null : res.body.detail.slice(0, detail.length)]).toEqual([status, detail]);
});

test('the order type pattern takes each type in any case and nothing else', () => {
  const schema = bodySchema('post', '/api/supply/firm-orders').properties.order_type;
  for (const ok of ['BUY', 'buy', 'Transfer', ' replenish', 'RETURN ']) expect([ok, client.validate(schema, ok)]).toEqual([ok, true]);
  for (const bad of ['', 'BUYS', 'B UY', 'MAKE', 'buy,build', 'buy\n']) expect([bad, client.validate(schema, bad)]).toEqual([bad, false]);
});
