/**
 * The eoq step through the real Temporal server: POST /api/pipeline/run/eoq writes eoq_results for the pipeline under
 * its default K-curve scenario (created by the first run with the catalogue's A = 50, r = 0.25), honours IO
 * overrides, and a rerun after a solve uses the scenario's solved k. Series (pipeline P, no segments):
 *   A = EA@S1  c 20 (item_site)   best forecast 12 12 12 12  → D = 624
 *   B = EB@S1  c 5 (item)         no forecast, history 2 4 → D = 156; IO override eoq 40 (pipeline P, every scenario)
 *   C = EC@S1  no cost            skipped
 */
import type { SeriesKey } from '../../db/etl';
import { sql, withTenant } from '../../db/pool';
import { PIPELINE_ORDER } from '../../lib/steps';
import { insertBest, insertForecast, writeWeeklyHistory } from '../support/forecastFixtures';
import { createPipeline, isFinished, waitForJob } from '../support/jobs';
import { startTestWorker, type TestWorker } from '../support/temporal';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';

let tw: TestWorker;
let t: TestApp;
let a: TestTenant;
let planner: string;
let P: number;
const key: Record<'A' | 'B' | 'C', SeriesKey> = {} as any;
const WEEKS = ['2026-03-02', '2026-03-09'];

beforeAll(async () => {
  tw = await startTestWorker();
  t = await startTestApp({ temporal: { client: tw.client, taskQueue: tw.taskQueue } });
  a = await t.newTenant('eoq-step');
  planner = await t.login(a.planner);
  P = await createPipeline(t, planner, 'EOQ pipeline');
  await withTenant(t.db, a.accountId, async (tx) => {
    await tx.query(sql.unsafe`INSERT INTO sites (xuid, name) VALUES ('S1', 'Store')`);
    await tx.query(sql.unsafe`INSERT INTO items (xuid, name, avg_unit_cost) VALUES ('EA', 'Alpha', 0), ('EB', 'Beta', 5), ('EC', 'Gamma', 0)`);
    for (const [name, item, y] of [['A', 'EA', [11, 13]], ['B', 'EB', [2, 4]], ['C', 'EC', [1, 1]]] as const) {
      const k = (await tx.one(sql.unsafe`SELECT i.id AS item_id, s.id AS site_id FROM items i, sites s WHERE i.xuid = ${item} AND s.xuid = 'S1'`)) as SeriesKey;
      key[name] = k;
      await tx.query(sql.unsafe`INSERT INTO series (item_id, site_id, n_observations, date_range_start, date_range_end) VALUES (${k.item_id}, ${k.site_id}, 2, ${WEEKS[0]}, ${WEEKS[1]})`);
      await writeWeeklyHistory(tx, k, WEEKS, [...y]);
    }
    await tx.query(sql.unsafe`INSERT INTO item_site (item_id, site_id, unit_cost) VALUES (${key.A.item_id}, ${key.A.site_id}, 20)`);
    await insertForecast(tx, P, key.A, 'ses', '2026-03-16', [12, 12, 12, 12], [10, 10, 10, 10], [14, 14, 14, 14]);
    await insertBest(tx, P, key.A, 'ses', null, 1, 'mae');
    await tx.query(sql.unsafe`INSERT INTO io_overrides (pipeline_id, scenario_id, item_id, site_id, eoq_override) VALUES (${P}, NULL, ${key.B.item_id}, ${key.B.site_id}, 40)`);
  });
});
afterAll(async () => {
  await t?.close();
  await tw?.close();
});

async function runEoq(): Promise<string> {
  const res = await t.call('post', '/api/pipeline/run/eoq', { token: planner, body: { pipeline_id: P } });
  expect(res.status).toBe(200);
  const job = await waitForJob(t, planner, res.body.job_id, isFinished);
  expect([job.status, job.error]).toEqual(['completed', null]);
  return res.body.job_id;
}

const results = () => withTenant(t.db, a.accountId, (tx) => tx.any(sql.unsafe`
  SELECT r.scenario_id, r.item_id, r.annual_demand, r.unit_cost, r.k, r.eoq, r.eoq_override, r.orders_per_year, r.cycle_stock_value,
    r.total_annual_cost, r.freq_constrained, r.freq_param_name, r.job_id
  FROM eoq_results r WHERE r.pipeline_id = ${P} ORDER BY r.item_id`)) as Promise<any[]>;

test('the eoq step is available and runs in run-all after meio, before supply (its lot sizes feed the plan)', async () => {
  const steps = (await t.call('get', '/api/pipeline/steps', { token: planner })).body;
  expect(steps.find((s: { id: string }) => s.id === 'eoq').available).toBe(true);
  expect(PIPELINE_ORDER.slice(PIPELINE_ORDER.indexOf('meio'))).toEqual(['meio', 'eoq', 'supply']);
});

test('a run writes every series with a cost under a default scenario it creates, overrides honoured; a rerun rewrites', async () => {
  const jobId = await runEoq();
  const scenarios = (await t.call('get', '/api/kcurve/scenarios', { token: planner, query: { pipeline_id: P } })).body;
  expect(scenarios).toEqual([expect.objectContaining({ name: `Default (pipeline ${P})`, pipeline_id: P, ordering_cost: 50, holding_rate: 0.25, k: null, created_by: 'system' })]);
  const sc = scenarios[0].id;
  const qa = Math.sqrt((2 * 50 * 624) / (0.25 * 20));
  const close = (x: number) => expect.closeTo(x, 9);
  expect(await results()).toEqual([
    {
      scenario_id: sc, item_id: key.A.item_id, annual_demand: 624, unit_cost: 20, k: close(Math.sqrt(400)), eoq: close(qa), eoq_override: null,
      orders_per_year: close(624 / qa), cycle_stock_value: close(10 * qa), total_annual_cost: close(Math.sqrt(2 * 50 * 624 * 0.25 * 20)),
      freq_constrained: false, freq_param_name: null, job_id: jobId,
    },
    {
      scenario_id: sc, item_id: key.B.item_id, annual_demand: 156, unit_cost: 5, k: close(20), eoq: 40, eoq_override: 40,
      orders_per_year: close(156 / 40), cycle_stock_value: 100, total_annual_cost: close((50 * 156) / 40 + (0.25 * 5 * 40) / 2),
      freq_constrained: false, freq_param_name: null, job_id: jobId,
    },
  ]);
  const log = (await t.call('get', `/api/pipeline/jobs/${jobId}`, { token: planner, query: { log_limit: 1000 } })).body.log.map((l: { message: string }) => l.message);
  expect(log).toEqual(expect.arrayContaining([expect.stringMatching(new RegExp(`^eoq: chunk 1/1: 3 series, 2 rows; scenario ${sc}, k 20.0000 \\(ordering_cost\\); 1 series without a unit cost skipped$`))]));

  // a solve stores k on the scenario; the next run uses it and replaces every row (no duplicates, the new job id)
  const solved = await t.call('post', '/api/kcurve/solve', { token: planner, body: { pipeline_id: P, scenario_id: sc, k: 10, include_items: false } });
  expect([solved.status, solved.body.rows_written]).toEqual([200, 2]);
  await withTenant(t.db, a.accountId, (tx) => tx.query(sql.unsafe`UPDATE item_site SET unit_cost = 80 WHERE item_id = ${key.A.item_id}`));
  const second = await runEoq();
  const rows = await results();
  expect(rows.map((r) => [r.item_id, r.k, r.job_id])).toEqual([[key.A.item_id, 10, second], [key.B.item_id, 10, second]]);
  expect(rows[0].eoq).toBeCloseTo(10 * Math.sqrt(624 / 80), 9);
  expect(rows[1].eoq).toBe(40);
  const count = (await t.call('get', '/api/kcurve/scenarios', { token: planner, query: { pipeline_id: P } })).body.length;
  expect(count).toBe(1);
});
