/**
 * POST /api/alerts/query and the demand_class filter of GET /api/alerts over HTTP against real PostgreSQL, with alerts
 * and series_characteristics seeded by SQL (no generation). The language-model path talks to a local fake speaking
 * chat completions.
 *
 * Seed of each tenant (pipeline P, site S; segments North = I1, I2, I3 and South = I4):
 *   series  class of P      alerts of P
 *   I1      lumpy           fill_rate_low 0.80, forecast_bias 0.40
 *   I2      intermittent    fill_rate_low 0.85
 *   I3      smooth          fill_rate_low 0.70     (lumpy in pipeline 0: another pipeline's class does not count)
 *   I4      lumpy           fill_rate_low 0.60
 *   I5      —               fill_rate_low 0.50     (not characterized: no demand_class filter matches it)
 */
import { setTenantParameter } from '../../db/parameters';
import { RULES_BY_METRIC } from '../../domain/alerts/ontology';
import { sql, withTenant } from '../../db/pool';
import { startFakeModel, type FakeModel } from '../support/fakeModel';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';

let t: TestApp;

interface Seed { pipelineId: number; north: number; south: number; ids: Record<'I1' | 'I2' | 'I3' | 'I4' | 'I5', string>; alert: Record<string, number> }

async function seedTenant(tenant: TestTenant, admin: string): Promise<Seed> {
  expect((await t.call('post', '/api/alerts/ontology/seed', { token: admin })).status).toBe(200);
  return withTenant(t.db, tenant.accountId, async (tx) => {
    const pipelineId = (await tx.oneFirst(sql.unsafe`INSERT INTO scenario_pipelines (name) VALUES ('Alerts query pipeline') RETURNING id`)) as number;
    const site = (await tx.oneFirst(sql.unsafe`INSERT INTO sites (xuid, name) VALUES ('S', 'Site S') RETURNING id`)) as number;
    const north = (await tx.oneFirst(sql.unsafe`INSERT INTO segments (name) VALUES ('North') RETURNING id`)) as number;
    const south = (await tx.oneFirst(sql.unsafe`INSERT INTO segments (name) VALUES ('South') RETURNING id`)) as number;
    const spec: Array<[string, string | null, number | null, Array<[string, number]>]> = [
      ['I1', 'lumpy', north, [['fill_rate_low', 0.8], ['forecast_bias', 0.4]]],
      ['I2', 'intermittent', north, [['fill_rate_low', 0.85]]],
      ['I3', 'smooth', north, [['fill_rate_low', 0.7]]],
      ['I4', 'lumpy', south, [['fill_rate_low', 0.6]]],
      ['I5', null, null, [['fill_rate_low', 0.5]]],
    ];
    const ids = {} as Seed['ids'];
    const alert: Record<string, number> = {};
    const characteristics = (pipeline: number, item: number, cls: string) => tx.query(sql.unsafe`
      INSERT INTO series_characteristics (pipeline_id, item_id, site_id, n_observations, demand_class, is_intermittent, has_seasonality, seasonal_period, has_trend, complexity_level)
      VALUES (${pipeline}, ${item}, ${site}, 20, ${cls}, ${cls === 'lumpy' || cls === 'intermittent'}, false, 52, false, 'low')`);
    for (const [xuid, cls, segment, alerts] of spec) {
      const item = (await tx.oneFirst(sql.unsafe`INSERT INTO items (xuid, name) VALUES (${xuid}, ${`Item ${xuid}`}) RETURNING id`)) as number;
      ids[xuid as keyof Seed['ids']] = `${item}_${site}`;
      await tx.query(sql.unsafe`INSERT INTO series (item_id, site_id) VALUES (${item}, ${site})`);
      if (cls) await characteristics(pipelineId, item, cls);
      if (xuid === 'I3') await characteristics(0, item, 'lumpy');
      if (segment) await tx.query(sql.unsafe`INSERT INTO segment_members (segment_id, item_id, site_id) VALUES (${segment}, ${item}, ${site})`);
      for (const [metric, value] of alerts) {
        const [domain, comparison, threshold] = metric === 'fill_rate_low' ? ['inventory', 'lt', 0.9] : ['forecast', 'abs_gt', 0.2];
        alert[`${xuid}.${metric}`] = (await tx.oneFirst(sql.unsafe`
          INSERT INTO alerts (pipeline_id, item_id, site_id, metric_name, domain, value, threshold, comparison, severity, message)
          VALUES (${pipelineId}, ${item}, ${site}, ${metric}, ${domain}, ${value}, ${threshold}, ${comparison}, 'high', ${`${metric} ${value}`}) RETURNING id`)) as number;
      }
    }
    return { pipelineId, north, south, ids, alert };
  });
}

const items = (body: any) => body.items.map((x: any) => [x.unique_id, x.metric_name, x.value]);

beforeAll(async () => {
  t = await startTestApp();
}, 120_000);

afterAll(async () => {
  await t?.close();
});

describe('offline parser', () => {
  let a: TestTenant;
  let planner: string;
  let seed: Seed;
  beforeAll(async () => {
    a = await t.newTenant('alerts-query');
    seed = await seedTenant(a, await t.login(a.admin));
    planner = await t.login(a.planner);
  });
  const q = (query: string, extra: Record<string, unknown> = {}) =>
    t.call('post', '/api/alerts/query', { token: planner, body: { query, pipeline_id: seed.pipelineId, ...extra } });

  test("the issue's sentence: lumpy series in segment North with fill rate under 90 %", async () => {
    const res = await q('lumpy series in segment North with fill rate under 90 %');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      query: 'lumpy series in segment North with fill rate under 90 %', parser: 'offline', warnings: [], total: 1, page: 1, page_size: 50,
      filter: {
        pipeline_id: seed.pipelineId, segment_id: seed.north, segment_name: 'North', metric: 'fill_rate_low', metric_term: 'fill rate',
        value: { op: 'lt', value: 0.9 }, status: null, severity: null, demand_class: ['lumpy'],
      },
    });
    // I4 is lumpy but in South; I3 is lumpy only in pipeline 0
    expect(items(res.body)).toEqual([[seed.ids.I1, 'fill_rate_low', 0.8]]);
    expect(res.body.items[0].id).toBe(seed.alert['I1.fill_rate_low']);
  });

  test('lists of classes; an uncharacterized series never matches; without a class every series does', async () => {
    const two = await q('lumpy or intermittent series with fill rate under 90 %');
    expect(two.body.filter.demand_class).toEqual(['lumpy', 'intermittent']);
    expect(items(two.body)).toEqual([[seed.ids.I1, 'fill_rate_low', 0.8], [seed.ids.I2, 'fill_rate_low', 0.85], [seed.ids.I4, 'fill_rate_low', 0.6]]);
    expect(items((await q('smooth fill rate')).body)).toEqual([[seed.ids.I3, 'fill_rate_low', 0.7]]);
    expect(items((await q('erratic series')).body)).toEqual([]);
    const all = await q('fill rate below 75 %');
    expect(all.body.filter.demand_class).toBeNull();
    expect(items(all.body)).toEqual([[seed.ids.I3, 'fill_rate_low', 0.7], [seed.ids.I4, 'fill_rate_low', 0.6], [seed.ids.I5, 'fill_rate_low', 0.5]]);
  });

  test('GET /api/alerts filters by demand_class: one class or a comma list; a bad class is a 400 naming the field', async () => {
    const list = (query: Record<string, unknown>) => t.call('get', '/api/alerts', { token: planner, query: { pipeline_id: seed.pipelineId, ...query } });
    expect((await list({})).body.total).toBe(6);
    const lumpy = await list({ demand_class: 'lumpy' });
    expect(lumpy.status).toBe(200);
    expect(items(lumpy.body)).toEqual([[seed.ids.I1, 'fill_rate_low', 0.8], [seed.ids.I1, 'forecast_bias', 0.4], [seed.ids.I4, 'fill_rate_low', 0.6]]);
    expect((await list({ demand_class: 'lumpy,intermittent' })).body.total).toBe(4);
    expect(items((await list({ demand_class: 'smooth', segment_id: seed.north })).body)).toEqual([[seed.ids.I3, 'fill_rate_low', 0.7]]);
    expect((await list({ demand_class: 'smooth', segment_id: seed.south })).body.total).toBe(0);
    for (const bad of ['spiky', 'lumpy,', 'Lumpy']) {
      const res = await list({ demand_class: bad });
      expect([bad, res.status]).toEqual([bad, 400]);
      expect(res.body.detail).toContain('demand_class');
    }
  });
});

describe('through a language model (a local fake speaking chat completions)', () => {
  let model: FakeModel;
  let answer: unknown;
  let a: TestTenant;
  let planner: string;
  let seed: Seed;
  beforeAll(async () => {
    model = await startFakeModel(() => (typeof answer === 'string' ? answer : JSON.stringify(answer)));
    a = await t.newTenant('alerts-llm');
    seed = await seedTenant(a, await t.login(a.admin));
    planner = await t.login(a.planner);
    const url = model.url;
    await withTenant(t.db, a.accountId, async (tx) => {
      await setTenantParameter(tx, 'llm', 'base_url', url);
      await setTenantParameter(tx, 'llm', 'model', 'tiny-test-model');
      await setTenantParameter(tx, 'llm', 'api_key', 'sk-test');
    });
  });
  afterAll(() => model.close());

  const q = (query: string, token = planner) => t.call('post', '/api/alerts/query', { token, body: { query, pipeline_id: seed.pipelineId } });

  test("the model's filter is used after validation; the prompt lists rules, synonyms, statuses, severities, classes and segments", async () => {
    answer = '```json\n{"metric": "fill_rate_low", "value": {"op": "lte", "value": 0.8}, "segment_name": "north", "status": null, "severity": null, "demand_class": ["lumpy", "smooth"]}\n```';
    const res = await q('poorly served bumpy or steady stuff up north, 80 % or worse');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      parser: 'llm', warnings: [], total: 2,
      filter: {
        pipeline_id: seed.pipelineId, segment_id: seed.north, segment_name: 'North', metric: 'fill_rate_low', metric_term: null,
        value: { op: 'lte', value: 0.8 }, status: null, severity: null, demand_class: ['lumpy', 'smooth'],
      },
    });
    expect(items(res.body)).toEqual([[seed.ids.I1, 'fill_rate_low', 0.8], [seed.ids.I3, 'fill_rate_low', 0.7]]);
    expect(model.calls.at(-1)!.url).toBe('/v1/chat/completions');
    expect(model.calls.at(-1)!.auth).toBe('Bearer sk-test');
    expect(model.calls.at(-1)!.model).toBe('tiny-test-model');
    expect(model.calls.at(-1)!.responseFormat).toEqual({ type: 'json_object' });
    const prompt: string = model.calls.at(-1)!.messages[0].content;
    expect(prompt).toContain(`- fill_rate_low: ${RULES_BY_METRIC.get('fill_rate_low')!.description} (fires when value lt 0.9); synonyms: "fill rate", "fillrate", "service level"`);
    expect(prompt.split('\n').filter((l) => l.startsWith('- ')).length).toBe(32);
    expect(prompt).toContain('status: open, approved, rejected');
    expect(prompt).toContain('severity: low, medium, high, critical.');
    expect(prompt).toContain('demand_class: a list of smooth, erratic, intermittent, lumpy');
    expect(prompt).toContain('segment_name: one of "North", "South".');
    expect(model.calls.at(-1)!.messages[1]).toEqual({ role: 'user', content: 'poorly served bumpy or steady stuff up north, 80 % or worse' });
  });

  test('the prompt names only the segments the caller can see', async () => {
    const restricted = await t.login(await t.addUser(a.accountId, { allowed_segments: [seed.south] }));
    answer = { demand_class: ['lumpy'] };
    const res = await q('lumpy things', restricted);
    expect(model.calls.at(-1)!.messages[0].content).toContain('segment_name: one of "South".');
    // the caller sees South only: of the lumpy series, I4
    expect(res.body).toMatchObject({ parser: 'llm', total: 1, filter: { demand_class: ['lumpy'], segment_id: null } });
    expect(items(res.body)).toEqual([[seed.ids.I4, 'fill_rate_low', 0.6]]);
  });

  test('a bad field of the answer is dropped with a warning and the rest is used', async () => {
    answer = { metric: 'fill_rate_low', value: { op: 'approximately', value: 0.9 }, demand_class: ['lumpy', 'spiky'], segment_name: 'Atlantis' };
    const res = await q('fill rate of lumpy series roughly 90 %');
    expect(res.body).toMatchObject({
      parser: 'llm', total: 2,
      filter: { metric: 'fill_rate_low', value: null, segment_name: null, segment_id: null, demand_class: ['lumpy'] },
      warnings: [
        "language model: value dropped (bad op 'approximately'; one of gt, gte, lt, lte)",
        "language model: segment_name dropped (unknown segment 'Atlantis')",
        "language model: demand_class entry dropped (unknown class 'spiky'; one of smooth, erratic, intermittent, lumpy)",
      ],
    });
    expect(items(res.body)).toEqual([[seed.ids.I1, 'fill_rate_low', 0.8], [seed.ids.I4, 'fill_rate_low', 0.6]]);
  });

  test('a garbage answer falls back to the offline parser with a warning', async () => {
    answer = 'sorry, I cannot help with alerts';
    const res = await q('lumpy series in segment North with fill rate under 90 %');
    expect(res.body).toMatchObject({
      parser: 'offline', total: 1,
      warnings: ['language model answer unusable (the answer is not a JSON object); used the offline parser'],
      filter: { metric: 'fill_rate_low', value: { op: 'lt', value: 0.9 }, segment_name: 'North', segment_id: seed.north, demand_class: ['lumpy'] },
    });
    expect(items(res.body)).toEqual([[seed.ids.I1, 'fill_rate_low', 0.8]]);
    answer = { metric: 'weather', severity: 'apocalyptic' };
    const none = await q('smooth fill rate');
    expect(none.body).toMatchObject({ parser: 'offline', total: 1, filter: { metric: 'fill_rate_low', demand_class: ['smooth'] } });
    expect(none.body.warnings).toEqual([
      "language model: metric dropped (unknown metric 'weather')",
      "language model: severity dropped (unknown severity 'apocalyptic'; one of low, medium, high, critical)",
      'language model answer unusable (no field of the answer checked out); used the offline parser',
    ]);
    expect(items(none.body)).toEqual([[seed.ids.I3, 'fill_rate_low', 0.7]]);
  });

  test('an unreachable model falls back to the offline parser with a warning', async () => {
    await withTenant(t.db, a.accountId, (tx) => setTenantParameter(tx, 'llm', 'base_url', 'http://127.0.0.1:9/v1'));
    const res = await q('lumpy or intermittent series with fill rate under 90 %');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ parser: 'offline', total: 3, filter: { metric: 'fill_rate_low', demand_class: ['lumpy', 'intermittent'] } });
    expect(res.body.warnings).toHaveLength(1);
    expect(res.body.warnings[0]).toMatch(/^language model unavailable \(.+\); used the offline parser$/);
    expect(items(res.body)).toEqual([[seed.ids.I1, 'fill_rate_low', 0.8], [seed.ids.I2, 'fill_rate_low', 0.85], [seed.ids.I4, 'fill_rate_low', 0.6]]);
  });
});
