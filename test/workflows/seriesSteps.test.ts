import poissonQuantile from '@stdlib/stats-base-dists-poisson-quantile';
import { characteristicsRow } from '../../activities/characterization/step';
import { chooseFit, distributionRow, distributionSettings, leadTimeBlock, leadTimeSample } from '../../activities/distribution/step';
import { outlierRow, outlierSettings } from '../../activities/outlier/step';
import { historyFor } from '../../domain/forecast/prepare';
import { sql, withTenant } from '../../db/pool';
import { correctedHistoryInRange, floatArrayLiteral, textArrayLiteral } from '../../db/seriesResults';
import { isFinished, waitForJob } from '../support/jobs';
import { startTestWorker, type TestWorker } from '../support/temporal';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';

const START = '2023-01-02'; // a Monday
const WEEKS = 156;
const ds = (i: number) => new Date(Date.parse(`${START}T00:00:00Z`) + i * 7 * 86_400_000).toISOString().slice(0, 10);
const median = (v: number[]) => {
  const s = [...v].sort((a, b) => a - b);
  const h = s.length >> 1;
  return s.length % 2 ? s[h] : (s[h - 1] + s[h]) / 2;
};

/** deterministic noise 18, 20, 22, 19, 21, … around 20 */
const flat = (i: number) => 18 + ((i * 7) % 5);

// ---------------------------------------------------------------- the series of the small tenant

const SPIKE_AT = 60;
const CLOSED = [30, 59];
const spikeY: Array<number | null> = Array.from({ length: WEEKS }, (_, i) => (CLOSED.includes(i) ? null : i === SPIKE_AT ? 200 : flat(i)));
/** Hampel's window is the 13 open weeks around the spike (closed weeks skipped): its median is the correction */
const spikeExpected = (() => {
  const open = spikeY.map((v, i) => [i, v] as const).filter(([, v]) => v !== null);
  const k = open.findIndex(([i]) => i === SPIKE_AT);
  return median(open.slice(k - 6, k + 7).map(([, v]) => v!));
})();
/** sizes 4 and 6 every 4th week: ADI 4, CV² of the sizes 0.04 → intermittent */
const interY: number[] = Array.from({ length: WEEKS }, (_, i) => (i % 4 === 0 ? (i % 8 === 0 ? 4 : 6) : 0));
// lumpy: a demand every 4th week of 4 to 6 units, once 60, which the outlier step clips among the non-zero sizes
const LUMP_AT = 80;
const lumpyY: number[] = Array.from({ length: WEEKS }, (_, i) => (i % 4 === 0 ? (i === LUMP_AT ? 60 : 4 + ((i / 4) % 3)) : 0));
const seasY = Array.from({ length: WEEKS }, (_, i) => Math.round(100 + 30 * Math.sin((2 * Math.PI * i) / 52) + ((i * 3) % 7) - 3));
/** Poisson(4), seeded */
const poisY = (() => {
  let a = 12345;
  const rnd = () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return Array.from({ length: WEEKS }, () => {
    const l = Math.exp(-4);
    let k = 0;
    let p = 1;
    do {
      k++;
      p *= rnd();
    } while (p > l);
    return k - 1;
  });
})();
const ltY = Array.from({ length: WEEKS }, (_, i) => 3 + (i % 3));

// ---------------------------------------------------------------- pure parts

describe('handlers (pure)', () => {
  const key = { item_id: 1, site_id: 1 };
  const defaults = outlierSettings(undefined);

  test('outlier: closed weeks are skipped by the windows, stay NaN, and a flagged point keeps its calendar date', () => {
    // a spike right after a closed week: index 5 in the calendar, 4 among the open weeks
    const y = Float64Array.from([10, 11, 9, 10, NaN, 90, 10, 11, 9, 10, 11, 9]);
    const row = outlierRow({ ...key, start: '2026-01-05', y }, defaults);
    // the same week closed by its factor (0) while y says 0 gives the same row: the calendar decides
    const zeroed = Float64Array.from(y, (v) => (Number.isNaN(v) ? 0 : v));
    expect(outlierRow({ ...key, start: '2026-01-05', y: zeroed, factor: Float64Array.from(y, (v) => (Number.isNaN(v) ? 0 : 1)) }, defaults)).toEqual(row);
    expect(row.start_week).toBe('2026-01-05');
    expect(Number.isNaN(row.corrected_y[4])).toBe(true);
    expect(row.outliers).toEqual([{ ds: '2026-02-09', y: 90, corrected_y: 10, score: expect.any(Number), direction: 'up' }]);
    expect(row.outliers[0].score).toBeGreaterThan(3);
    expect(Array.from(row.corrected_y).filter((_, i) => i !== 4)).toEqual([10, 11, 9, 10, 10, 10, 11, 9, 10, 11, 9]);
    expect(row.params).toEqual({ window: 6, threshold: 3, correction: 'median', seasonal_period: 52 });
    // IQR fills its own defaults in; 'none' copies y
    const iqr = outlierRow({ ...key, start: '2026-01-05', y }, { ...defaults, method: 'iqr' });
    expect(iqr.params).toEqual({ threshold: 1.5, correction: 'clip' });
    expect(iqr.outliers.map((o) => [o.ds, o.y])).toEqual([['2026-02-09', 90]]);
    const none = outlierRow({ ...key, start: '2026-01-05', y }, { ...defaults, method: 'none' });
    expect([none.method, none.params, none.outliers, Array.from(none.corrected_y)]).toEqual(['none', {}, [], Array.from(y)]);
  });

  test('historyFor: corrected values where the row has them, y elsewhere, NaN wherever the week is closed now', () => {
    const series = { start: '2026-01-05', y: Float64Array.from([1, 2, NaN, 4, 5]) };
    // the row starts a week later and is one week short: week 0 and week 4 keep y
    const h = historyFor(series, { start_week: '2026-01-12', corrected_y: Float64Array.from([20, 30, 40]) });
    expect(Array.from(h)).toEqual([1, 20, NaN, 40, 5]);
    expect(Array.from(historyFor(series, undefined))).toEqual([1, 2, NaN, 4, 5]);
    // a week with factor 0 is closed whatever its y says
    expect(Array.from(historyFor({ ...series, y: Float64Array.from([1, 0, 3]), factor: Float64Array.from([1, 0, 0.5]) }, undefined))).toEqual([1, NaN, 3]);
  });

  test('lead time: whole weeks touched, at least one; sums end at the latest week, closed weeks dropped first', () => {
    expect([leadTimeBlock(0), leadTimeBlock(0.3), leadTimeBlock(1), leadTimeBlock(1.5), leadTimeBlock(2.0000000001), leadTimeBlock(3)]).toEqual([1, 1, 1, 2, 2, 3]);
    const y = [1, 2, NaN, 3, 4, 5, 6, 7];
    // open weeks 1 2 3 4 5 6 7: blocks of 3 from the end → [2+3+4, 5+6+7], the oldest week left out
    expect(Array.from(leadTimeSample(y, 3, false))).toEqual([9, 18]);
    expect(Array.from(leadTimeSample(y, 3, true))).toEqual([6, 9, 12, 15, 18]);
    expect(Array.from(leadTimeSample(y, 1, false))).toEqual([1, 2, 3, 4, 5, 6, 7]);
    const row = distributionRow(key, ltY, { ...distributionSettings(undefined), candidates: ['empirical'] }, 1.5);
    expect([row.basis, row.lead_time_weeks, row.n, row.mean, row.distribution_type]).toEqual(['lead_time', 2, 78, 8, 'empirical']);
    const weekly = distributionRow(key, ltY, { ...distributionSettings(undefined), aggregate_lead_time: false }, 1.5);
    expect([weekly.basis, weekly.lead_time_weeks, weekly.n, weekly.mean]).toEqual(['weekly', null, 156, 4]);
    expect(distributionRow(key, ltY, distributionSettings(undefined), undefined).basis).toBe('weekly');
  });

  test('candidates: only listed families compete; empirical when none fits or none applies', () => {
    const x = Float64Array.from(poisY);
    const onlyNormal = chooseFit(x, ['normal'], [0.5, 0.95]);
    expect(onlyNormal.candidates.map((c) => c.distribution_type)).toEqual(['normal']);
    expect(onlyNormal.best.distribution_type).toBe('normal');
    expect(Object.keys(onlyNormal.best.service_level_quantiles)).toEqual(['0.5', '0.95']);
    // gamma cannot fit a sample with zeros: the empirical fallback takes over whatever the list says
    const gammaOnly = chooseFit(Float64Array.from([0, 1, 2, 3, 4, 5]), ['gamma'], [0.5]);
    expect(gammaOnly.best).toMatchObject({ distribution_type: 'empirical', params: { n: 6 }, service_level_quantiles: { '0.5': 2.5 } });
    // a bimodal sample: no parametric p-value reaches 0.05, so empirical wins when listed
    const bimodal = Float64Array.from(Array.from({ length: 200 }, (_, i) => (i % 2 ? 1 : 50)));
    expect(chooseFit(bimodal, ['normal', 'empirical'], [0.5]).best.distribution_type).toBe('empirical');
    expect(chooseFit(bimodal, ['normal'], [0.5]).best.distribution_type).toBe('normal');
  });

  test('characterization row keeps every statistic and the test statistics in details', () => {
    const row = characteristicsRow(key, interY, 52, 'y');
    expect(row).toMatchObject({ n_observations: 156, adi: 4, demand_class: 'intermittent', is_intermittent: true, seasonal_period: 52, zero_ratio: 0.75 });
    expect(Object.keys(row.details).sort()).toEqual(['max', 'min', 'n_nonzero', 'seasonal_acf', 'seasonal_strength', 'source', 'std', 'trend_pvalue', 'trend_strength', 'trend_z']);
  });

  test('array literals for unnest', () => {
    expect(floatArrayLiteral([1.5, NaN, 0.1 + 0.2, 1e-7])).toBe('{1.5,NULL,0.30000000000000004,1e-7}');
    expect(textArrayLiteral(['ses', 'a"b', 'c,d'])).toBe('{"ses","a\\"b","c,d"}');
  });
});

// ---------------------------------------------------------------- through HTTP and a real worker

describe('outlier, characterization and distribution steps (real worker)', () => {
  let tw: TestWorker;
  let t: TestApp;
  let a: TestTenant;
  let planner: string;
  /** a pipeline without segments: every series */
  let allPipeline: number;
  /** a pipeline with one segment: SPIKE and LT */
  let pipelineId: number;
  const id: Record<string, { item_id: number; site_id: number }> = {};
  let pipeSegment: number;

  beforeAll(async () => {
    tw = await startTestWorker();
    t = await startTestApp({ temporal: { client: tw.client, taskQueue: tw.taskQueue } });
    a = await t.newTenant('series-steps');
    planner = await t.login(a.planner);
    const series: Record<string, { site: string; y: Array<number | null> }> = {
      SPIKE: { site: 'S1', y: spikeY }, INTER: { site: 'S1', y: interY }, LUMPY: { site: 'S1', y: lumpyY }, SEAS: { site: 'S1', y: seasY }, POIS: { site: 'S2', y: poisY }, LT: { site: 'S2', y: ltY },
    };
    let rawSegment = 0;
    await withTenant(t.db, a.accountId, async (tx) => {
      await tx.query(sql.unsafe`INSERT INTO sites (xuid, name) VALUES ('S1', 'Site 1'), ('S2', 'Site 2')`);
      for (const [item, s] of Object.entries(series)) {
        const item_id = (await tx.oneFirst(sql.unsafe`INSERT INTO items (xuid, name) VALUES (${item}, ${item}) RETURNING id`)) as number;
        const site_id = (await tx.oneFirst(sql.unsafe`SELECT id FROM sites WHERE xuid = ${s.site}`)) as number;
        id[item] = { item_id, site_id };
        // written as the etl step writes them: a closed week is y NULL, closed, factor 0
        const open = s.y.filter((v): v is number => v !== null);
        await tx.query(sql.unsafe`
          INSERT INTO series_weekly (item_id, site_id, week, y, closed, factor)
          SELECT ${item_id}, ${site_id}, u.week, u.y, u.y IS NULL, CASE WHEN u.y IS NULL THEN 0 ELSE 1 END
          FROM ${sql.unnest(s.y.map((v, i) => [ds(i), v]), ['date', 'float8'])} AS u(week, y)`);
        await tx.query(sql.unsafe`
          INSERT INTO series (item_id, site_id, n_observations, date_range_start, date_range_end, mean, zero_ratio, total_demand, closed_weeks)
          VALUES (${item_id}, ${site_id}, ${open.length}, ${START}, ${ds(WEEKS - 1)}, ${open.reduce((x, v) => x + v, 0) / open.length},
            ${open.filter((v) => v === 0).length / open.length}, ${open.reduce((x, v) => x + v, 0)}, ${WEEKS - open.length})`);
      }
      // 1.5 weeks of lead time: demand is summed over 2 weeks
      await tx.query(sql.unsafe`INSERT INTO item_site (item_id, site_id, lead_time_weeks) VALUES (${id.LT.item_id}, ${id.LT.site_id}, 1.5)`);
      rawSegment = (await tx.oneFirst(sql.unsafe`INSERT INTO segments (name) VALUES ('Raw demand') RETURNING id`)) as number;
      pipeSegment = (await tx.oneFirst(sql.unsafe`INSERT INTO segments (name) VALUES ('Pipeline scope') RETURNING id`)) as number;
      await tx.query(sql.unsafe`INSERT INTO segment_members (segment_id, item_id, site_id) VALUES
        (${rawSegment}, ${id.POIS.item_id}, ${id.POIS.site_id}),
        (${pipeSegment}, ${id.SPIKE.item_id}, ${id.SPIKE.site_id}), (${pipeSegment}, ${id.LT.item_id}, ${id.LT.site_id})`);
    });
    // the Poisson series is modelled raw: a parameter set on its segment switches outlier correction off
    const set = await t.call('post', '/api/parameters', { token: planner, body: { parameter_type: 'outlier', name: 'Raw', values: { method: 'none' }, segment_ids: [rawSegment] } });
    expect(set.status).toBe(201);
    const p = await t.call('post', '/api/scenario-pipeline', { token: planner, body: { name: 'Scoped', segment_ids: [pipeSegment] } });
    expect(p.status).toBe(201);
    pipelineId = p.body.id;
    allPipeline = (await t.call('post', '/api/scenario-pipeline', { token: planner, body: { name: 'Everything' } })).body.id;
  }, 120_000);
  afterAll(async () => {
    await t.close();
    await tw.close();
  });

  const run = async (step: string, body: Record<string, unknown> = {}) => {
    const res = await t.call('post', `/api/pipeline/run/${step}`, { token: planner, body: { pipeline_id: allPipeline, ...body } });
    expect(res.status).toBe(200);
    const job = await waitForJob(t, planner, res.body.job_id, isFinished);
    expect([job.status, job.error]).toEqual(['completed', null]);
    return job;
  };
  const rows = (table: 'series_outliers' | 'series_characteristics' | 'series_distributions', pipeline: number) =>
    withTenant(t.db, a.accountId, async (tx) => {
      const list = (await tx.any(sql.unsafe`SELECT r.*, i.xuid AS item FROM ${sql.identifier([table])} r JOIN items i ON i.id = r.item_id
        WHERE r.pipeline_id = ${pipeline} ORDER BY i.xuid`)) as any[];
      return Object.fromEntries(list.map((r) => [r.item, r]));
    });

  test('outlier: the spike is flagged and replaced by its window median, closed weeks stay NULL, a "none" set copies y', async () => {
    const job = await run('outlier');
    expect(job.result).toEqual({ step: 'outlier', series: 6, rows: 6, chunks: 1 });
    expect(job.log.map((l) => l.message)).toContain('outlier: chunk 1/1: 6 series, 6 rows; 2 outliers corrected');
    const r = await rows('series_outliers', allPipeline);
    expect(Object.keys(r)).toEqual(['INTER', 'LT', 'LUMPY', 'POIS', 'SEAS', 'SPIKE']);
    // among the lumpy series' non-zero sizes the 60 stands out
    expect(r.LUMPY.outliers).toEqual([expect.objectContaining({ ds: ds(LUMP_AT), y: 60, direction: 'up' })]);
    const spike = r.SPIKE;
    expect(spike).toMatchObject({ start_week: START, method: 'hampel', n_outliers: 1, params: { window: 6, threshold: 3, correction: 'median', seasonal_period: 52 } });
    expect(spike.outliers).toEqual([{ ds: ds(SPIKE_AT), y: 200, corrected_y: spikeExpected, score: expect.any(Number), direction: 'up' }]);
    expect(spikeExpected).toBe(20);
    expect(spike.corrected_y).toHaveLength(WEEKS);
    expect(spike.corrected_y[SPIKE_AT]).toBe(20);
    expect(CLOSED.map((i) => spike.corrected_y[i])).toEqual([null, null]);
    expect(spike.corrected_y.filter((_: unknown, i: number) => i !== SPIKE_AT)).toEqual(spikeY.filter((_, i) => i !== SPIKE_AT));
    // the parameter set on the Poisson series' segment: nothing corrected, corrected_y = y
    expect(r.POIS).toMatchObject({ method: 'none', params: {}, outliers: [], n_outliers: 0, corrected_y: poisY });
    expect([r.INTER.n_outliers, r.SEAS.n_outliers, r.LT.n_outliers]).toEqual([0, 0, 0]);
    // the read other steps use
    const back = await withTenant(t.db, a.accountId, (tx) => correctedHistoryInRange(tx, allPipeline, [id.SPIKE, id.INTER]));
    expect([...back.keys()].sort()).toEqual([`${id.INTER.item_id}_${id.INTER.site_id}`, `${id.SPIKE.item_id}_${id.SPIKE.site_id}`].sort());
    expect(back.get(`${id.SPIKE.item_id}_${id.SPIKE.site_id}`)!.corrected_y[CLOSED[0]]).toBeNaN();
  });

  test('characterization on the corrected history: intermittent ADI 4, seasonality found, spike gone', async () => {
    const job = await run('characterization');
    expect(job.result).toEqual({ step: 'characterization', series: 6, rows: 6, chunks: 1 });
    const r = await rows('series_characteristics', allPipeline);
    expect(r.INTER).toMatchObject({ demand_class: 'intermittent', is_intermittent: true, adi: 4, zero_ratio: 0.75, n_observations: 156, seasonal_period: 52 });
    const sizes = interY.filter((v) => v > 0);
    const m = sizes.reduce((x, v) => x + v, 0) / sizes.length;
    expect(r.INTER.cv2).toBeCloseTo(sizes.reduce((x, v) => x + (v - m) ** 2, 0) / (sizes.length - 1) / m ** 2, 12);
    expect(r.INTER.cv2).toBeLessThan(0.49);
    expect(r.INTER.recommended_methods).toEqual(expect.arrayContaining(['croston', 'sba', 'tsb']));
    expect(r.SEAS).toMatchObject({ has_seasonality: true, demand_class: 'smooth', is_intermittent: false });
    expect(r.SEAS.recommended_methods).toContain('seasonal_naive');
    expect(r.SEAS.details.seasonal_acf).toBeGreaterThan(0.5);
    // closed weeks are not observations; the corrected history has no 200 any more
    expect(r.SPIKE).toMatchObject({ n_observations: 154, has_seasonality: false, demand_class: 'smooth', details: { source: 'corrected', max: 22, min: 18 } });
    // complexity points: class (smooth 0, intermittent 1) + seasonal + cov > 1; 0 → low, 1-2 → medium, 3 → high.
    // INTER's every-4th-week pattern repeats at lag 52 too, so it tests seasonal: 1 + 1 + 1
    expect([r.SPIKE.complexity_level, r.SEAS.complexity_level, r.INTER.complexity_level]).toEqual(['low', 'medium', 'high']);
    expect([r.INTER.has_seasonality, r.INTER.cov > 1]).toEqual([true, true]);
    expect(r.SPIKE.recommended_methods).toEqual(expect.arrayContaining(['naive', 'ses', 'theta']));
    for (const row of Object.values(r) as any[]) {
      expect(row.details).toEqual(expect.objectContaining({ trend_z: expect.any(Number), trend_pvalue: expect.any(Number), seasonal_strength: expect.any(Number) }));
    }
  });

  test('distribution: Poisson data gets a discrete fit with the Poisson 0.95 quantile; lead-time demand is summed', async () => {
    const job = await run('distribution');
    expect(job.result).toEqual({ step: 'distribution', series: 6, rows: 6, chunks: 1 });
    const r = await rows('series_distributions', allPipeline);
    const pois = r.POIS;
    expect(['poisson', 'negative_binomial']).toContain(pois.distribution_type);
    expect([pois.basis, pois.lead_time_weeks, pois.n]).toEqual(['weekly', null, 156]);
    expect(Object.keys(pois.service_level_quantiles).sort()).toEqual(['0.5', '0.8', '0.9', '0.95', '0.98', '0.99']);
    expect(Math.abs(pois.service_level_quantiles['0.95'] - poissonQuantile(0.95, 4))).toBeLessThanOrEqual(1);
    expect(pois.mean).toBeCloseTo(poisY.reduce((s, v) => s + v, 0) / WEEKS, 9);
    expect(pois.ks_pvalue).toBeGreaterThan(0.05);
    expect(pois.candidates.map((c: any) => c.distribution_type)).toEqual(expect.arrayContaining(['normal', 'poisson']));
    expect(pois.candidates[0]).toMatchObject({ distribution_type: pois.distribution_type, ks_statistic: pois.ks_statistic });
    // 1.5 weeks of lead time → sums of 2 weeks: 78 sums of 3+4+5… with mean 8
    expect(r.LT).toMatchObject({ basis: 'lead_time', lead_time_weeks: 2, n: 78 });
    expect(r.LT.mean).toBeCloseTo(8, 9);
    // the spike series is fitted on its corrected open weeks
    expect(r.SPIKE.n).toBe(154);
    expect(r.SPIKE.service_level_quantiles['0.99']).toBeLessThan(30);
    // a series with structural zeros is fitted on its demand as it came: the 60 is its size distribution's tail
    const corrected = (await rows('series_outliers', allPipeline)).LUMPY.corrected_y as number[];
    expect(corrected[LUMP_AT]).toBeLessThan(60);
    expect(r.LUMPY.mean).toBeCloseTo(lumpyY.reduce((x, v) => x + v, 0) / WEEKS, 9);
    expect(r.LUMPY.mean).toBeGreaterThan(corrected.reduce((x, v) => x + v, 0) / WEEKS + 0.3);
  });

  test('a pipeline with segments: only its segment\'s series get rows, under its pipeline id; characterization without an outlier run uses y', async () => {
    const before = await withTenant(t.db, a.accountId, (tx) => tx.oneFirst(sql.unsafe`SELECT count(*) FROM series_characteristics WHERE pipeline_id = ${allPipeline}`));
    await run('characterization', { pipeline_id: pipelineId });
    let c = await rows('series_characteristics', pipelineId);
    expect(Object.keys(c)).toEqual(['LT', 'SPIKE']);
    expect(c.SPIKE.details).toMatchObject({ source: 'y', max: 200 });
    await run('outlier', { pipeline_id: pipelineId });
    await run('characterization', { pipeline_id: pipelineId });
    await run('distribution', { pipeline_id: pipelineId });
    expect(Object.keys(await rows('series_outliers', pipelineId))).toEqual(['LT', 'SPIKE']);
    c = await rows('series_characteristics', pipelineId);
    expect(c.SPIKE.details).toMatchObject({ source: 'corrected', max: 22 });
    const d = await rows('series_distributions', pipelineId);
    expect(Object.keys(d)).toEqual(['LT', 'SPIKE']);
    expect(d.LT).toMatchObject({ basis: 'lead_time', lead_time_weeks: 2, n: 78 });
    // the other pipeline's rows are untouched
    expect(await withTenant(t.db, a.accountId, (tx) => tx.oneFirst(sql.unsafe`SELECT count(*) FROM series_characteristics WHERE pipeline_id = ${allPipeline}`))).toBe(before);
    expect(before).toBe(6);
  });

  test('a re-run rewrites the rows without duplicates; a series that left the pipeline\'s segments loses its rows there', async () => {
    const job = await run('outlier');
    const again = await rows('series_outliers', allPipeline);
    expect(Object.keys(again)).toHaveLength(6);
    expect(Object.values(again).every((row: any) => row.job_id === job.job_id)).toBe(true);
    expect(again.SPIKE.outliers).toHaveLength(1);
    await withTenant(t.db, a.accountId, (tx) => tx.query(sql.unsafe`DELETE FROM segment_members WHERE segment_id = ${pipeSegment} AND item_id = ${id.LT.item_id}`));
    const scoped = await run('outlier', { pipeline_id: pipelineId });
    expect(scoped.result).toMatchObject({ series: 1, rows: 1 });
    expect(scoped.log.map((l) => l.message)).toContain("outlier: 1 rows of series outside the pipeline's segments removed");
    expect(Object.keys(await rows('series_outliers', pipelineId))).toEqual(['SPIKE']);
    expect(Object.keys(await rows('series_outliers', allPipeline))).toHaveLength(6);
  });
});
