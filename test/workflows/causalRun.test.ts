/**
 * POST /api/causal/scenarios/run through a real worker on the Temporal dev server (docs/CAUSAL.md): the stored
 * weekly demand against the hand-computed numbers of test/support/causalSeed.ts, the breakdown adding up to the
 * chart value (rule 4), summary, compare, uncertainty, and the refusals of the run route.
 */
import { sql, withTenant } from '../../db/pool';
import { seedCausal, type CausalSeed } from '../support/causalSeed';
import { isFinished, waitForJob } from '../support/jobs';
import { startTestWorker, type TestWorker } from '../support/temporal';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';

let tw: TestWorker;
let t: TestApp;
let a: TestTenant;
let admin: string;
let planner: string;
let seed: CausalSeed;

beforeAll(async () => {
  tw = await startTestWorker();
  t = await startTestApp({ temporal: { client: tw.client, taskQueue: tw.taskQueue } });
  a = await t.newTenant('causal-run');
  admin = await t.login(a.admin);
  planner = await t.login(a.planner);
  seed = await seedCausal(t, a.accountId, admin);
}, 120_000);

afterAll(async () => {
  await t?.close();
  await tw?.close();
});

const get = (path: string, query: Record<string, unknown>) => t.call('get', `/api/causal/${path}`, { token: planner, query });

async function run(body: Record<string, unknown>) {
  const res = await t.call('post', '/api/causal/scenarios/run', { token: planner, body });
  expect(res.status).toBe(200);
  const job = await waitForJob(t, planner, res.body.job_id, isFinished, 120_000);
  expect(job.status).toBe('completed');
  return { start: res.body, job };
}

test('a fleet_total run stores the hand-computed demand per site and week, and the item aggregate', async () => {
  const { start, job } = await run({ scenario_id: seed.scenarios.base });
  expect(start).toMatchObject({ scenario_id: seed.scenarios.base, pipeline_id: 0, start_week: '2026-01-05', horizon_weeks: 2, status: 'queued' });
  expect(job.result).toMatchObject({ weeks: 2, series: 2 });
  expect(job.log.map((l) => l.message).join('\n')).toMatch(/causal: scenario \d+ \(Base, fleet_total\), 2 weeks from 2026-01-05/);
  const { P } = seed.items;
  const { S100, S200 } = seed.sites;
  const res = await get('results', { scenario_id: seed.scenarios.base });
  expect(res.status).toBe(200);
  expect(res.body.pipeline_id).toBe(0);
  // C2's period ended 2026-01-10: its run rate carries into the week of 01-12
  const rows = res.body.items.map((r: any) => [r.series_id, r.week, Math.round(r.demand * 1e9) / 1e9]);
  expect(rows).toEqual([
    [`${P}_${S100}`, '2026-01-05', 1.05], [`${P}_${S100}`, '2026-01-12', 1.05],
    [`${P}_${S200}`, '2026-01-05', 2.45], [`${P}_${S200}`, '2026-01-12', 2.45],
  ]);
  const agg = await get('results', { scenario_id: seed.scenarios.base, aggregate: true });
  expect(agg.body.items.map((r: any) => [r.series_id, Math.round(r.demand * 1e9) / 1e9])).toEqual([[`${P}`, 3.5], [`${P}`, 3.5]]);

  const summary = await get('results/summary', { scenario_id: seed.scenarios.base });
  expect(summary.body).toMatchObject({ scenario_name: 'Base', items: 1, series: 2, weeks: 2, first_week: '2026-01-05', last_week: '2026-01-12', job_id: start.job_id });
  expect(summary.body.total_demand).toBeCloseTo(7, 9);
  expect(summary.body.weekly.map((p: any) => Math.round(p.value * 1e9) / 1e9)).toEqual([3.5, 3.5]);
  expect(summary.body.by_site.map((s: any) => s.site_code)).toEqual(['S200', 'S100']);
});

test('rule 4: the breakdown of every stored value adds up to it within 0.01, and actual_demand is the chart value', async () => {
  const { P } = seed.items;
  for (const site of [seed.sites.S100, seed.sites.S200]) {
    for (const week of ['2026-01-05', '2026-01-12']) {
      const chart = (await get('results', { scenario_id: seed.scenarios.base, item_id: P, site_id: site, date_from: week, date_to: week })).body.items[0].demand;
      const bd = await get('results/breakdown', { scenario_id: seed.scenarios.base, item_id: `${P}_${site}`, period: week });
      expect(bd.status).toBe(200);
      expect(bd.body.actual_source).toBe('series');
      expect(bd.body.actual_demand).toBe(chart);
      const total = bd.body.breakdown.reduce((s: number, r: any) => s + r.computed_demand, 0);
      expect(Math.abs(total - bd.body.actual_demand)).toBeLessThan(0.01);
    }
  }
});

test('a per_asset run for a pipeline keeps its own results; compare sets them against the base', async () => {
  await run({ scenario_id: seed.scenarios.perAsset, pipeline_id: 3, horizon_weeks: 1 });
  const res = await get('results', { scenario_id: seed.scenarios.perAsset, pipeline_id: 3 });
  // C1: 1.4 × 3 split 0.75 / 0.25; C2: 2.1 × 4 at S200
  expect(res.body.items.map((r: any) => Math.round(r.demand * 1e9) / 1e9)).toEqual([3.15, 9.45]);
  expect((await get('results', { scenario_id: seed.scenarios.perAsset, pipeline_id: 4 })).status).toBe(404);
  const cmp = await get('results/compare', { scenario_ids: `${seed.scenarios.base},${seed.scenarios.perAsset}` });
  expect(cmp.status).toBe(200);
  expect(cmp.body.weeks).toEqual(['2026-01-05', '2026-01-12']);
  const [base, per] = cmp.body.scenarios;
  expect(base.total).toBeCloseTo(7, 9);
  expect(per.total).toBeCloseTo(12.6, 9);
  expect(per.series.map((p: any) => Math.round(p.value * 1e9) / 1e9)).toEqual([12.6, 0]);
  expect(per.diff).toBeCloseTo(5.6, 9);
  expect(per.diff_pct).toBeCloseTo(80, 9);
});

test('uncertainty: Poisson intervals stored with the results; negative binomial is wider', async () => {
  const res = await t.call('post', '/api/causal/uncertainty', { token: planner, body: { scenario_id: seed.scenarios.base, confidence: 0.9 } });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ pipeline_id: 0, distribution: 'poisson', dispersion: null, rows: 6, stored: true });
  const s200 = res.body.items.find((r: any) => r.site_id === seed.sites.S200);
  // Poisson(2.45): P(0) = 0.086 ≥ 0.05 → 0; CDF(4) = 0.898, CDF(5) = 0.961 → 5
  expect([s200.lower, s200.upper]).toEqual([0, 5]);
  const stored = await get('results', { scenario_id: seed.scenarios.base, site_id: seed.sites.S200 });
  expect(stored.body.items.map((r: any) => [r.lower, r.upper])).toEqual([[0, 5], [0, 5]]);
  const nb = await t.call('post', '/api/causal/uncertainty', { token: planner, body: { scenario_id: seed.scenarios.base, distribution: 'negative_binomial', dispersion: 0.5, store: false, site_id: seed.sites.S200 } });
  expect(nb.body.rows).toBe(2);
  expect(nb.body.items[0].upper).toBeGreaterThan(5);
  // store false left the Poisson bounds in place
  expect((await get('results', { scenario_id: seed.scenarios.base, site_id: seed.sites.S200 })).body.items[0].upper).toBe(5);
  const bad = await t.call('post', '/api/causal/uncertainty', { token: planner, body: { scenario_id: seed.scenarios.base, confidence: 1 } });
  expect(bad.status).toBe(400);
  expect(bad.body.detail).toMatch(/^body\.confidence/);
});

test('the run route: unknown scenario 404, bad body 400 naming the field, no permission 403, no job written', async () => {
  const jobs = () => withTenant(t.db, a.accountId, (tx) => tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM jobs WHERE kind = 'causal'`));
  const before = await jobs();
  const call = (body: unknown, token = planner) => t.call('post', '/api/causal/scenarios/run', { token, body });
  expect((await call({ scenario_id: 999999 })).status).toBe(404);
  expect((await call({ scenario_id: seed.scenarios.base, horizon_weeks: 0 })).body.detail).toMatch(/^body\.horizon_weeks/);
  expect((await call({ scenario_id: seed.scenarios.base, start_date: '2026-02-30' })).body.detail).toMatch(/^body\.start_date/);
  expect((await call({})).body.detail).toMatch(/scenario_id/);
  const plain = await t.login(await t.addUser(a.accountId, { role: 'user' }));
  expect((await call({ scenario_id: seed.scenarios.base }, plain)).status).toBe(403);
  expect(await jobs()).toBe(before);
});

test('aggregate-demand sums the stored causal demand over the series in scope; type-counts counts the series with a causal model', async () => {
  const { P } = seed.items;
  await withTenant(t.db, a.accountId, (tx) => tx.query(sql.unsafe`
    INSERT INTO series (item_id, site_id) VALUES (${P}, ${seed.sites.S100}), (${P}, ${seed.sites.S200}) ON CONFLICT DO NOTHING`));
  const agg = await t.call('get', '/api/analytics/aggregate-demand', { token: planner, query: { causal_scenario_id: seed.scenarios.base } });
  expect(agg.status).toBe(200);
  expect(agg.body.forecast_causal.map((p: any) => [p.date, Math.round(p.value * 1e9) / 1e9])).toEqual([['2026-01-05', 3.5], ['2026-01-12', 3.5]]);
  expect((await t.call('get', '/api/analytics/aggregate-demand', { token: planner })).body.forecast_causal).toEqual([]);
  const unknown = await t.call('get', '/api/analytics/aggregate-demand', { token: planner, query: { causal_scenario_id: 999999 } });
  expect([unknown.status, unknown.body.detail]).toEqual([404, 'causal_scenario_id: causal scenario 999999 not found']);
  // TRK holds P and covers S100 and S200 (C1's own rows and the global S200 row)
  expect((await t.call('get', '/api/series/type-counts', { token: planner })).body.causal).toBe(2);
});

test('deleting a scenario deletes its results', async () => {
  const sc = await t.call('post', '/api/causal/scenarios', { token: planner, body: { name: 'Short', start_date: '2026-01-05', horizon_weeks: 1 } });
  await run({ scenario_id: sc.body.id });
  const n = () => withTenant(t.db, a.accountId, (tx) => tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM causal_results WHERE scenario_id = ${sc.body.id}`));
  expect(await n()).toBe(3);
  expect((await t.call('delete', `/api/causal/scenarios/${sc.body.id}`, { token: planner })).status).toBe(200);
  expect(await n()).toBe(0);
});
