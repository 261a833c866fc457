/**
 * Document 2 §4.6 rules 4 and 5 for a site that gets no causal demand in one week of a run while the part has demand
 * elsewhere: the run (through a real worker on Temporal) stores 0 for it that week, and the breakdown reads that 0 from
 * the series, equal to the chart value and to the sum of its rows, instead of the part's total over every site.
 * The fixture of test/support/causalSeed.ts plus customer C3 whose trucks (coverage S300 only) start running on
 * 2026-01-12: 1 400 h over 14 days → weekly 700 → 2 × 0.001 × 700 = 1.4 at S300 that week, nothing the week before.
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
let seed: CausalSeed;
let S300: number;

beforeAll(async () => {
  tw = await startTestWorker();
  t = await startTestApp({ temporal: { client: tw.client, taskQueue: tw.taskQueue } });
  a = await t.newTenant('causal-quiet-site');
  admin = await t.login(a.admin);
  seed = await seedCausal(t, a.accountId, admin);
  S300 = await withTenant(t.db, a.accountId, async (tx) => (await tx.oneFirst(sql.unsafe`INSERT INTO sites (xuid, name) VALUES ('S300', 'Site S300') RETURNING id`)) as number);
  const post = async (path: string, body: Record<string, unknown>) => {
    const res = await t.call('post', `/api/causal/${path}`, { token: admin, body });
    if (res.status !== 201 && res.status !== 200) throw new Error(`POST ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const u3 = await post('asset-usage', { asset_type_id: seed.assetTypes.TRK, customer_code: 'C3', customer_name: 'Initech', usage_type_id: seed.hours, period_start: '2026-01-12', period_end: '2026-01-25', total_usage: 1400 });
  await post('coverage', { asset_type_id: seed.assetTypes.TRK, customer_id: u3.customer_id, site_id: S300, coverage_pct: 100 });
  const run = await t.call('post', '/api/causal/scenarios/run', { token: admin, body: { scenario_id: seed.scenarios.base } });
  expect(run.status).toBe(200);
  expect((await waitForJob(t, admin, run.body.job_id, isFinished, 120_000)).status).toBe('completed');
}, 240_000);

afterAll(async () => {
  await t?.close();
  await tw?.close();
});

const get = (path: string, query: Record<string, unknown>) => t.call('get', `/api/causal/${path}`, { token: admin, query });
const round = (v: number) => Math.round(v * 1e9) / 1e9;

test('the run stores 0 for a reached site in a week without demand, and the item total every week', async () => {
  const chart = await get('results', { scenario_id: seed.scenarios.base, item_id: seed.items.P, site_id: S300 });
  expect(chart.body.items.map((r: any) => [r.week, round(r.demand)])).toEqual([['2026-01-05', 0], ['2026-01-12', 1.4]]);
  const agg = await get('results', { scenario_id: seed.scenarios.base, aggregate: true });
  expect(agg.body.items.map((r: any) => [r.week, round(r.demand)])).toEqual([['2026-01-05', 3.5], ['2026-01-12', 4.9]]);
});

test('rules 4 and 5: in the quiet week the breakdown reads 0 from the series, the chart value and the sum of its rows', async () => {
  const series = `${seed.items.P}_${S300}`;
  for (const [week, expected] of [['2026-01-05', 0], ['2026-01-12', 1.4]] as const) {
    const bd = await get('results/breakdown', { scenario_id: seed.scenarios.base, item_id: series, period: week });
    expect(bd.status).toBe(200);
    expect([bd.body.actual_source, round(bd.body.actual_demand)]).toEqual(['series', expected]);
    const rows = bd.body.breakdown.reduce((s: number, r: any) => s + r.computed_demand, 0);
    expect(Math.abs(rows - bd.body.actual_demand)).toBeLessThan(0.01);
    const chart = await get('results', { scenario_id: seed.scenarios.base, item_id: seed.items.P, site_id: S300, date_from: week, date_to: week });
    expect(chart.body.items.map((r: any) => r.demand)).toEqual([bd.body.actual_demand]);
  }
});

test('rule 5 on a run stored without the quiet week\'s row: 0 from the series, never the item total', async () => {
  await withTenant(t.db, a.accountId, (tx) => tx.query(sql.unsafe`
    DELETE FROM causal_results WHERE scenario_id = ${seed.scenarios.base} AND site_id = ${S300} AND week = '2026-01-05'`));
  const bd = await get('results/breakdown', { scenario_id: seed.scenarios.base, item_id: `${seed.items.P}_${S300}`, period: '2026-01-05' });
  expect([bd.body.actual_source, bd.body.actual_demand]).toEqual(['series', 0]);
  expect(bd.body.breakdown.reduce((s: number, r: any) => s + r.computed_demand, 0)).toBe(0);
});
