/**
 * Alerts over HTTP against real PostgreSQL and Temporal: the ontology (seed twice → 32 rules, edits, synonyms),
 * generation on the supply seed's pipeline, list filters and paging, decisions with their audit rows, the offline
 * query, and the 400s that name the field.
 *
 * Facts the test adds to the seed (P@S1 10 a week, P@S2 5, Q@S1 4, 20 weeks of history, best method naive):
 *   P@S1  backtest of naive: bias 3, mae 3, 8 points, mase 1.5 → forecast_bias 0.3, tracking_signal 8, mase_above_one 1.5;
 *         a late_order exception in the supply run → late_firm_order 1
 *   P@S2  MEIO of the default scenario: fill rate 0.85 against 0.95 → fill_rate_low 0.85, fill_rate_below_target 0.1
 *   Q@S1  a no_source exception → no_source 1
 *   Q@S2  20 weeks of history, no forecast → missing_forecast 1
 * Nothing else trips: 8 alerts.
 */
import { sql, withTenant } from '../../db/pool';
import { isFinished, waitForJob } from '../support/jobs';
import { seedSupply, type SupplySeed } from '../support/supplySeed';
import { startTestWorker, type TestWorker } from '../support/temporal';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';

let tw: TestWorker;
let t: TestApp;
let a: TestTenant;
let admin: string;
let planner: string;
let seed: SupplySeed;
let north: number;

beforeAll(async () => {
  tw = await startTestWorker();
  t = await startTestApp({ temporal: { client: tw.client, taskQueue: tw.taskQueue } });
  a = await t.newTenant('alerts');
  admin = await t.login(a.admin);
  planner = await t.login(a.planner);
  seed = await seedSupply(t.db, a.accountId);
  const { items: i, sites: s, pipelineId: P } = seed;
  await withTenant(t.db, a.accountId, async (tx) => {
    await tx.query(sql.unsafe`
      INSERT INTO backtest_metrics (pipeline_id, item_id, site_id, method, mae, mase, bias, origins_evaluated, points)
      VALUES (${P}, ${i.P}, ${s.S1}, 'naive', 3, 1.5, 3, 4, 8)`);
    await tx.query(sql.unsafe`INSERT INTO series (item_id, site_id) VALUES (${i.Q}, ${s.S2})`);
    await tx.query(sql.unsafe`
      INSERT INTO series_weekly (item_id, site_id, week, y, factor) SELECT ${i.Q}, ${s.S2}, (date '2026-01-12' + 7 * w)::date, 2, 1 FROM generate_series(0, 19) w`);
    const meio = ((await tx.maybeOneFirst(sql.unsafe`SELECT id FROM meio_scenarios WHERE is_default`))
      ?? (await tx.oneFirst(sql.unsafe`INSERT INTO meio_scenarios (name, is_default) VALUES ('Base', true) RETURNING id`))) as number;
    await tx.query(sql.unsafe`
      INSERT INTO meio_results (pipeline_id, scenario_id, item_id, site_id, policy, service_type, target_service, target_source, echelon_model, expected_fill_rate)
      VALUES (${P}, ${meio}, ${i.P}, ${s.S2}, 'rQ', 'fill_rate', 0.95, 'scenario', 'single', 0.85)`);
    const supply = (await tx.oneFirst(sql.unsafe`SELECT id FROM supply_scenarios WHERE is_default`)) as number;
    await tx.query(sql.unsafe`
      INSERT INTO supply_runs (run_id, pipeline_id, scenario_id, status, planning_date) VALUES ('alerts-run', ${P}, ${supply}, 'completed', '2026-06-01')`);
    await tx.query(sql.unsafe`
      INSERT INTO supply_exceptions (run_id, item_id, site_id, type, week, end_week, qty, severity, description) VALUES
        ('alerts-run', ${i.P}, ${s.S1}, 'late_order', 2, 2, 10, 'high', 'late'),
        ('alerts-run', ${i.Q}, ${s.S1}, 'no_source', 0, 51, 4, 'critical', 'no route')`);
    north = (await tx.oneFirst(sql.unsafe`INSERT INTO segments (name) VALUES ('North') RETURNING id`)) as number;
    await tx.query(sql.unsafe`INSERT INTO segment_members (segment_id, item_id, site_id) VALUES (${north}, ${i.P}, ${s.S1})`);
  });
}, 120_000);

afterAll(async () => {
  await t?.close();
  await tw?.close();
});

const uid = (item: 'P' | 'Q', site: 'S1' | 'S2') => `${seed.items[item]}_${seed.sites[site]}`;

async function audit(entity: string) {
  return withTenant(t.db, a.accountId, async (tx) => [...(await tx.any(sql.unsafe`
    SELECT entity_id, action, old_value, new_value, outcome FROM audit_log WHERE entity_type = ${entity} AND outcome = 'success' ORDER BY id`))] as any[]);
}

async function generate() {
  const res = await t.call('post', '/api/alerts/generate', { token: planner, body: { pipeline_id: seed.pipelineId } });
  expect(res.status).toBe(200);
  const job = await waitForJob(t, planner, res.body.job_id, isFinished, 120_000);
  expect(job.status).toBe('completed');
  return job;
}

const list = async (query: Record<string, unknown> = {}) => {
  const res = await t.call('get', '/api/alerts', { token: planner, query: { pipeline_id: seed.pipelineId, ...query } });
  expect(res.status).toBe(200);
  return res.body as { total: number; page: number; page_size: number; items: any[] };
};

test('a new tenant starts with the 32 rules; seeding again gives 32, not 64; GET lists them with their synonyms', async () => {
  const first = await t.call('post', '/api/alerts/ontology/seed', { token: admin });
  expect(first.status).toBe(200);
  // the tenant was seeded when it was created: nothing to add
  expect(first.body).toMatchObject({ rules: 32, rules_added: 0 });
  const second = await t.call('post', '/api/alerts/ontology/seed', { token: admin });
  expect(second.body).toEqual({ rules: 32, rules_added: 0, synonyms_added: 0 });
  const o = await t.call('get', '/api/alerts/ontology', { token: planner });
  expect(o.body.total).toBe(32);
  expect(o.body.rules.filter((r: any) => r.domain === 'supply')).toHaveLength(8);
  expect(o.body.synonyms).toContainEqual({ term: 'fill rate', canonical_metric: 'fill_rate_low' });
  expect((await t.call('post', '/api/alerts/ontology/seed', { token: planner })).status).toBe(403);
});

test('a rule is edited, removed and seeded back; bad fields are 400 naming them; unknown rules 404', async () => {
  const put = await t.call('put', '/api/alerts/ontology/long_lead_time', { token: admin, body: { threshold: 20, severity: 'high', enabled: false, description: 'Long lead' } });
  expect(put.status).toBe(200);
  expect(put.body).toMatchObject({ metric_name: 'long_lead_time', threshold: 20, severity: 'high', enabled: false, description: 'Long lead', comparison: 'gt' });
  expect((await audit('alerts.ontology')).at(-1)).toMatchObject({ entity_id: 'long_lead_time', action: 'update', old_value: { threshold: 12, severity: 'low', enabled: true } });
  expect((await t.call('put', '/api/alerts/ontology/nope', { token: admin, body: { threshold: 1 } })).status).toBe(404);
  for (const [body, field] of [[{ severity: 'extreme' }, 'severity'], [{ threshold: 'x' }, 'threshold'], [{ formula: 'x' }, 'formula'], [{ enabled: 3 }, 'enabled']] as const) {
    const res = await t.call('put', '/api/alerts/ontology/long_lead_time', { token: admin, body });
    expect(res.status).toBe(400);
    expect(res.body.detail).toContain(field);
  }
  expect((await t.call('put', '/api/alerts/ontology/Bad-Name', { token: admin, body: { threshold: 1 } })).body.detail).toContain('metric_name');
  const del = await t.call('delete', '/api/alerts/ontology/long_lead_time', { token: admin });
  expect(del.status).toBe(200);
  expect((await t.call('delete', '/api/alerts/ontology/long_lead_time', { token: admin })).status).toBe(404);
  expect((await t.call('get', '/api/alerts/ontology', { token: admin })).body.total).toBe(31);
  expect((await t.call('post', '/api/alerts/ontology/seed', { token: admin })).body).toMatchObject({ rules: 32, rules_added: 1 });
});

test('synonyms: 201, 409 for a duplicate term, 400 for an unknown metric', async () => {
  const res = await t.call('post', '/api/alerts/synonyms', { token: admin, body: { term: '  Service  Level Now ', canonical_metric: 'fill_rate_low' } });
  expect(res.status).toBe(201);
  expect(res.body).toEqual({ term: 'service level now', canonical_metric: 'fill_rate_low' });
  expect((await t.call('post', '/api/alerts/synonyms', { token: admin, body: { term: 'service level now', canonical_metric: 'mase_above_one' } })).status).toBe(409);
  const unknown = await t.call('post', '/api/alerts/synonyms', { token: admin, body: { term: 'x', canonical_metric: 'no_such_metric' } });
  expect(unknown.status).toBe(400);
  expect(unknown.body.detail).toContain('canonical_metric');
  const missing = await t.call('post', '/api/alerts/synonyms', { token: admin, body: { canonical_metric: 'fill_rate_low' } });
  expect(missing.status).toBe(400);
  expect(missing.body.detail).toContain('term');
});

test('generation raises exactly the alerts the facts trip, and a second run does not duplicate them', async () => {
  const job = await generate();
  expect(job.log.map((l) => l.message).join('\n')).toContain('4 series');
  const all = await list({ page_size: 100 });
  const got = all.items.map((x) => `${x.unique_id} ${x.metric_name}`).sort();
  expect(got).toEqual([
    `${uid('P', 'S1')} forecast_bias`, `${uid('P', 'S1')} late_firm_order`, `${uid('P', 'S1')} mase_above_one`, `${uid('P', 'S1')} tracking_signal`,
    `${uid('P', 'S2')} fill_rate_below_target`, `${uid('P', 'S2')} fill_rate_low`,
    `${uid('Q', 'S1')} no_source`, `${uid('Q', 'S2')} missing_forecast`,
  ].sort());
  const bias = all.items.find((x) => x.metric_name === 'forecast_bias');
  expect(bias).toMatchObject({ value: 0.3, threshold: 0.2, severity: 'high', status: 'open', domain: 'forecast', pipeline_id: seed.pipelineId });
  expect(all.items.find((x) => x.metric_name === 'tracking_signal').value).toBe(8);
  await generate();
  expect((await list()).total).toBe(8);
});

test('list filters and paging totals', async () => {
  const p1 = await list({ page: 1, page_size: 3 });
  const p3 = await list({ page: 3, page_size: 3 });
  expect(p1).toMatchObject({ total: 8, page: 1, page_size: 3 });
  expect(p1.items).toHaveLength(3);
  expect(p3.items).toHaveLength(2);
  expect(p1.items[0].severity).toBe('critical');
  expect((await list({ metric: 'fill_rate_low' })).total).toBe(1);
  expect((await list({ segment_id: north })).total).toBe(4);
  expect((await list({ segment_id: north, metric: 'mase_above_one' })).total).toBe(1);
  expect((await list({ severity: 'critical' })).items.map((x) => x.metric_name)).toEqual(['no_source']);
  expect((await list({ status: 'approved' })).total).toBe(0);
  expect((await list({ pipeline_id: 0 })).total).toBe(0);
  expect((await t.call('get', '/api/alerts', { token: planner, query: { pipeline_id: 999999 } })).status).toBe(404);
});

test('approve, reject and batch record who decided and an audit row each; a regeneration keeps decisions unless the value got worse', async () => {
  const byMetric = async (m: string) => (await list({ metric: m })).items[0];
  const bias = await byMetric('forecast_bias');
  const approve = await t.call('post', `/api/alerts/${bias.id}/approve`, { token: planner });
  expect(approve.status).toBe(200);
  expect(approve.body).toMatchObject({ id: bias.id, status: 'approved', decided_by: a.planner.email });
  const fill = await byMetric('fill_rate_low');
  expect((await t.call('post', `/api/alerts/${fill.id}/reject`, { token: planner })).body.status).toBe('rejected');
  const ids = [(await byMetric('no_source')).id, (await byMetric('missing_forecast')).id];
  const batch = await t.call('post', '/api/alerts/batch', { token: planner, body: { alert_ids: ids, action: 'approve' } });
  expect(batch.status).toBe(200);
  expect(batch.body.updated).toBe(2);
  expect(batch.body.items.map((x: any) => x.status)).toEqual(['approved', 'approved']);
  expect((await t.call('post', '/api/alerts/batch', { token: planner, body: { alert_ids: [ids[0], 987654321], action: 'reject' } })).status).toBe(404);
  expect((await byMetric('no_source')).status).toBe('approved');
  expect((await t.call('post', '/api/alerts/987654321/approve', { token: planner })).status).toBe(404);

  const rows = await audit('alerts');
  const decisions = rows.filter((r) => ['approve', 'reject'].includes(r.action));
  expect(decisions.map((r) => [r.action, r.entity_id])).toEqual([
    ['approve', String(bias.id)], ['reject', String(fill.id)], ['approve', ids.join(',')],
  ]);
  expect(decisions[0]).toMatchObject({ old_value: { status: 'open' }, new_value: { status: 'approved' } });
  expect(decisions[2].new_value).toEqual({ [ids[0]]: 'approved', [ids[1]]: 'approved' });
  expect((await list({ status: 'approved' })).total).toBe(3);

  // same values: decisions stay; a worse bias reopens its alert
  await generate();
  expect((await byMetric('fill_rate_low')).status).toBe('rejected');
  expect((await byMetric('forecast_bias')).status).toBe('approved');
  await withTenant(t.db, a.accountId, (tx) => tx.query(sql.unsafe`
    UPDATE backtest_metrics SET bias = 5 WHERE pipeline_id = ${seed.pipelineId} AND item_id = ${seed.items.P} AND site_id = ${seed.sites.S1}`));
  await generate();
  expect(await byMetric('forecast_bias')).toMatchObject({ status: 'open', value: 0.5, decided_by: null, decided_at: null });
  expect((await byMetric('fill_rate_low')).status).toBe('rejected');
});

test('the offline query reads metrics, synonyms, comparisons and segments and returns the filter it used', async () => {
  const q = (query: string, extra: Record<string, unknown> = {}) => t.call('post', '/api/alerts/query', { token: planner, body: { query, pipeline_id: seed.pipelineId, ...extra } });
  const fill = await q('fill rate under 90 %');
  expect(fill.status).toBe(200);
  expect(fill.body.filter).toMatchObject({ metric: 'fill_rate_low', value: { op: 'lt', value: 0.9 }, pipeline_id: seed.pipelineId, segment_id: null });
  expect(fill.body.total).toBe(1);
  expect((await q('fill rate under 80 %')).body.total).toBe(0);
  const bias = await q('bias above 20% in segment North');
  expect(bias.body.filter).toMatchObject({ metric: 'forecast_bias', value: { op: 'gt', value: 0.2 }, segment_id: north, segment_name: 'North' });
  expect(bias.body.items.map((x: any) => x.unique_id)).toEqual([uid('P', 'S1')]);
  expect((await q('service level now at least 0.8')).body).toMatchObject({ total: 1, filter: { metric: 'fill_rate_low', metric_term: 'service level now' } });
  expect((await q('anything in segment North')).body.total).toBe(4);
  expect((await q('alerts in segment Nowhere')).status).toBe(404);
});

test('every validation error is a 400 naming the field', async () => {
  const cases: Array<[string, string, Record<string, unknown>, string]> = [
    ['get', '/api/alerts', { query: { status: 'closed' } }, 'status'],
    ['get', '/api/alerts', { query: { page_size: 0 } }, 'page_size'],
    ['get', '/api/alerts', { query: { page: 'x' } }, 'page'],
    ['get', '/api/alerts', { query: { metric: 'Bad Metric' } }, 'metric'],
    ['get', '/api/alerts', { query: { segment_id: 0 } }, 'segment_id'],
    ['post', '/api/alerts/batch', { body: { alert_ids: [1], action: 'maybe' } }, 'action'],
    ['post', '/api/alerts/batch', { body: { alert_ids: [], action: 'approve' } }, 'alert_ids'],
    ['post', '/api/alerts/batch', { body: { action: 'approve' } }, 'alert_ids'],
    ['post', '/api/alerts/query', { body: {} }, 'query'],
    ['post', '/api/alerts/query', { body: { query: 'x', pipeline_id: -1 } }, 'pipeline_id'],
    ['post', '/api/alerts/generate', { body: {} }, 'pipeline_id'],
    ['post', '/api/alerts/abc/approve', {}, 'alert_id'],
    ['post', '/api/alerts/0/reject', {}, 'alert_id'],
    ['post', '/api/alerts/synonyms', { body: { term: 'x', canonical_metric: 'fill_rate_low', extra: 1 } }, 'extra'],
  ];
  for (const [method, path, o, field] of cases) {
    const res = await t.call(method, path, { token: admin, ...o });
    expect([path, res.status]).toEqual([path, 400]);
    expect(res.body.detail).toContain(field);
  }
});
