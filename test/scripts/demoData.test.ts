import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { csvField, csvLine } from '../../scripts/demoData/cli';
import {
  TABLE_COLUMNS, classifyDemand, demandBySeries, demandRows, expectedDemand, generateDemoData, resolveOptions,
  seasonalFactor, type DemoDataset, type DemoOptions, type Pattern, type SeriesTruth,
} from '../../scripts/demoData/generator';
import { Rng } from '../../scripts/demoData/random';
import { scriptArgs, scriptEnv } from '../support/scriptBundle';

const ROOT = path.join(__dirname, '../..');
const DAY_MS = 86_400_000;
const SMALL: DemoOptions = { seed: 42, items: 60, sites: 8 };
const MEDIUM: DemoOptions = { seed: 7, items: 300, sites: 20 }; // 2,000 series

const key = (item: string, site: string): string => `${item}|${site}`;
const weekIndex = (start: string, ds: string): number => (Date.parse(ds) - Date.parse(start)) / (7 * DAY_MS);

/** Weekly quantities per series (zeros filled), from the generated rows alone. */
function weeklyBySeries(d: DemoDataset): Map<string, Float64Array> {
  const out = new Map<string, Float64Array>();
  for (const r of d.demand_history) {
    const k = key(r.item_xuid, r.site_xuid);
    let y = out.get(k);
    if (!y) out.set(k, (y = new Float64Array(d.options.weeks)));
    y[weekIndex(d.options.startWeek, r.ds)] += r.qty;
  }
  return out;
}

/** Syntetos-Boylan from scratch: ADI = mean interval between demands, CV² of the non-zero sizes. */
function sbClass(y: ArrayLike<number>): { pattern: Pattern; adi: number; cv2: number; n: number } | null {
  const at: number[] = [];
  const sizes: number[] = [];
  for (let t = 0; t < y.length; t++) {
    if (y[t] > 0) {
      at.push(t);
      sizes.push(y[t]);
    }
  }
  if (sizes.length < 5) return null;
  const adi = (at[at.length - 1] - at[0]) / (at.length - 1);
  const mean = sizes.reduce((s, v) => s + v, 0) / sizes.length;
  const cv2 = sizes.reduce((s, v) => s + (v - mean) ** 2, 0) / sizes.length / mean ** 2;
  const pattern: Pattern = adi < 1.32 ? (cv2 < 0.49 ? 'smooth' : 'erratic') : cv2 < 0.49 ? 'intermittent' : 'lumpy';
  return { pattern, adi, cv2, n: sizes.length };
}

function correlation(x: number[], y: number[]): number {
  const mx = x.reduce((s, v) => s + v, 0) / x.length;
  const my = y.reduce((s, v) => s + v, 0) / y.length;
  let sxy = 0, sxx = 0, syy = 0;
  for (let i = 0; i < x.length; i++) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) ** 2;
    syy += (y[i] - my) ** 2;
  }
  return sxy / Math.sqrt(sxx * syy);
}

/** A strict RFC 4180 reader: quoted fields, doubled quotes, CRLF-terminated records. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i += 2;
        continue;
      }
      if (c === '"') quoted = false;
      else field += c;
      i++;
      continue;
    }
    if (c === '"' && field === '') {
      quoted = true;
      i++;
    } else if (c === ',') {
      row.push(field);
      field = '';
      i++;
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i += 2;
    } else if (c === '\n' || c === '\r' || c === '"') {
      throw new Error(`bare ${JSON.stringify(c)} at offset ${i}`);
    } else {
      field += c;
      i++;
    }
  }
  if (quoted || field !== '' || row.length) throw new Error('last record not terminated by CRLF');
  return rows;
}

let small: DemoDataset;
let medium: DemoDataset;
beforeAll(() => {
  small = generateDemoData(SMALL);
  medium = generateDemoData(MEDIUM);
});

describe('the seeded PRNG', () => {
  test('same seed, same stream; derived streams are independent of each other', () => {
    const a = Rng.derive(1, 'x', 3);
    const b = Rng.derive(1, 'x', 3);
    const seqA = Array.from({ length: 5 }, () => a.nextUint32());
    expect(Array.from({ length: 5 }, () => b.nextUint32())).toEqual(seqA);
    expect(Array.from({ length: 5 }, () => Rng.derive(1, 'x', 4).nextUint32())).not.toEqual(seqA);
  });

  test('the distributions have the right moments', () => {
    const rng = new Rng(123);
    const n = 40_000;
    const moments = (draw: () => number): [number, number] => {
      let s = 0, s2 = 0;
      for (let i = 0; i < n; i++) {
        const x = draw();
        s += x;
        s2 += x * x;
      }
      return [s / n, s2 / n - (s / n) ** 2];
    };
    const [nm, nv] = moments(() => rng.normal(3, 2));
    expect(nm).toBeCloseTo(3, 1);
    expect(nv).toBeCloseTo(4, 0);
    const [gm, gv] = moments(() => rng.gammaMeanCv(10, 0.5));
    expect(gm).toBeCloseTo(10, 0);
    expect(Math.sqrt(gv) / gm).toBeCloseTo(0.5, 1);
    const [gsm] = moments(() => rng.gamma(0.3, 2));
    expect(gsm).toBeCloseTo(0.6, 1);
    for (const lambda of [2.5, 80]) {
      const [pm, pv] = moments(() => rng.poisson(lambda));
      expect(pm / lambda).toBeCloseTo(1, 1);
      expect(pv / lambda).toBeCloseTo(1, 1);
    }
    const [lm] = moments(() => rng.lognormalMeanCv(5, 0.8));
    expect(lm / 5).toBeCloseTo(1, 1);
    const [bm] = moments(() => rng.binomial(200, 0.3));
    expect(bm).toBeCloseTo(60, 0);
    const [bern] = moments(() => (rng.bernoulli(0.25) ? 1 : 0));
    expect(bern).toBeCloseTo(0.25, 1);
  });
});

describe('generateDemoData', () => {
  test('same seed ⇒ identical output; another seed ⇒ different output', () => {
    expect(JSON.stringify(generateDemoData(SMALL))).toBe(JSON.stringify(small));
    const other = generateDemoData({ ...SMALL, seed: 43 });
    expect(JSON.stringify(other.demand_history)).not.toBe(JSON.stringify(small.demand_history));
    expect(JSON.stringify(other.items)).not.toBe(JSON.stringify(small.items));
  });

  test('counts: items, sites, one item_site row and one truth per series, a few firm orders, a handful of supersessions', () => {
    expect(small.options).toEqual({ seed: 42, items: 60, sites: 8, seriesTarget: 160, weeks: 156, startWeek: '2023-11-20', granularity: 'weekly' });
    expect(small.items).toHaveLength(60);
    expect(small.sites).toHaveLength(8);
    expect(small.item_site).toHaveLength(160);
    expect(small.truth).toHaveLength(160);
    expect(medium.item_site).toHaveLength(2000);
    expect(generateDemoData({ ...SMALL, seriesTarget: 100 }).item_site).toHaveLength(100);
    expect(resolveOptions({ seed: 1, items: 10, sites: 3, seriesTarget: 5 }).seriesTarget).toBe(10); // ≥ one site per item
    expect(resolveOptions({ seed: 1, items: 10, sites: 3, seriesTarget: 500 }).seriesTarget).toBe(30); // ≤ every pair
    expect(new Set(small.item_site.map((r) => key(r.item_xuid, r.site_xuid))).size).toBe(160);
    const perItem = new Map<string, number>();
    for (const r of medium.item_site) perItem.set(r.item_xuid, (perItem.get(r.item_xuid) ?? 0) + 1);
    expect(perItem.size).toBe(300); // every item is stocked somewhere
    expect([...perItem.values()].filter((n) => n >= 2).length / 300).toBeGreaterThan(0.9);
    expect(medium.firm_orders.length / 2000).toBeGreaterThanOrEqual(0.02);
    expect(medium.firm_orders.length / 2000).toBeLessThanOrEqual(0.06);
    expect(medium.supersession.length).toBeGreaterThanOrEqual(1);
    expect(medium.supersession.length).toBeLessThanOrEqual(10);
    expect(new Set(medium.firm_orders.map((o) => o.order_ref)).size).toBe(medium.firm_orders.length);
  });

  test('rejects bad options', () => {
    expect(() => generateDemoData({ ...SMALL, startWeek: '2024-01-02' })).toThrow(/Monday/);
    expect(() => generateDemoData({ ...SMALL, items: 0 })).toThrow(/items/);
    expect(() => generateDemoData({ ...SMALL, seed: 1.5 })).toThrow(/seed/);
    expect(resolveOptions({ ...SMALL, weeks: 52 }).startWeek).toBe('2025-11-17');
  });

  test('items: codes, null image, lognormal prices with 10-60 % margin, ABC hints', () => {
    for (const it of medium.items) {
      expect(Object.keys(it).sort()).toEqual([...TABLE_COLUMNS.items].sort());
      expect(it.image_url).toBeNull();
      expect(it.unit_price).toBeGreaterThan(0);
      const margin = 1 - it.avg_unit_cost / it.unit_price;
      expect(margin).toBeGreaterThanOrEqual(0.1 - 0.01);
      expect(margin).toBeLessThanOrEqual(0.6 + 0.01);
      expect(['A', 'B', 'C']).toContain(it.abc_hint);
    }
    const prices = medium.items.map((i) => i.unit_price).sort((a, b) => a - b);
    expect(prices[Math.floor(0.95 * prices.length)] / prices[Math.floor(0.05 * prices.length)]).toBeGreaterThan(5);
    const a = medium.items.filter((i) => i.abc_hint === 'A').length;
    expect(a).toBeGreaterThan(0);
    expect(a).toBeLessThan(medium.items.filter((i) => i.abc_hint === 'C').length);
  });

  test('network: 1-2 plants, a few DCs, stores; routes plant→DC→store reference existing sites', () => {
    for (const d of [small, medium]) {
      const types = new Map(d.sites.map((s) => [s.xuid, s.site_type]));
      const count = (t: string): number => d.sites.filter((s) => s.site_type === t).length;
      expect(count('plant')).toBeGreaterThanOrEqual(1);
      expect(count('plant')).toBeLessThanOrEqual(2);
      expect(count('dc')).toBeGreaterThanOrEqual(1);
      expect(count('store')).toBeGreaterThan(count('dc'));
      for (const r of d.routes) {
        expect(r.item_xuid).toBeNull();
        expect(types.has(r.from_site_xuid)).toBe(true);
        expect(types.has(r.to_site_xuid)).toBe(true);
        const hop = `${types.get(r.from_site_xuid)}→${types.get(r.to_site_xuid)}`;
        const allowed = { REPLENISHMENT: ['plant→dc', 'dc→store'], RETURN: ['store→dc'], REPAIR: ['dc→plant'] }[r.route_type];
        expect(allowed).toContain(hop);
        expect(r.lead_time).toBeGreaterThanOrEqual(1);
        expect([1, 2]).toContain(r.priority);
      }
      for (const s of d.sites) {
        if (s.site_type === 'plant') continue;
        const primary = d.routes.filter((r) => r.to_site_xuid === s.xuid && r.route_type === 'REPLENISHMENT' && r.priority === 1);
        expect(primary).toHaveLength(1);
      }
      expect(d.routes.some((r) => r.route_type === 'RETURN')).toBe(true);
      expect(d.routes.some((r) => r.route_type === 'REPAIR')).toBe(true);
    }
  });

  test('item_site covers every series, with coherent inventory parameters', () => {
    const pairs = new Set(medium.item_site.map((r) => key(r.item_xuid, r.site_xuid)));
    const items = new Set(medium.items.map((i) => i.xuid));
    const sites = new Set(medium.sites.map((s) => s.xuid));
    expect(medium.demand_history.filter((r) => !pairs.has(key(r.item_xuid, r.site_xuid)))).toEqual([]);
    expect(medium.truth.map((t) => key(t.item_xuid, t.site_xuid))).toEqual(medium.item_site.map((r) => key(r.item_xuid, r.site_xuid)));
    for (const r of medium.item_site) {
      expect(items.has(r.item_xuid) && sites.has(r.site_xuid)).toBe(true);
      expect(r.unit_cost).toBeGreaterThan(0);
      expect(r.lead_time_weeks).toBeGreaterThanOrEqual(1);
      expect(r.on_hand).toBeGreaterThanOrEqual(0);
      expect(r.safety_stock).toBeGreaterThanOrEqual(0);
      expect(r.moq % r.order_multiple).toBe(0);
      expect(Number.isInteger(r.on_hand) && Number.isInteger(r.safety_stock)).toBe(true);
    }
    for (const o of medium.firm_orders) {
      expect(pairs.has(key(o.item_xuid, o.site_xuid))).toBe(true);
      expect(o.status).toBe('open');
      expect(new Date(o.due_date).getUTCDay()).toBe(1);
      expect(o.due_date >= '2026-11-16').toBe(true);
      expect(o.qty).toBeGreaterThan(0);
    }
  });

  test('demand rows: Mondays inside the history, positive integers (zero weeks omitted), one per series and week', () => {
    const end = new Date(Date.parse(medium.options.startWeek) + 156 * 7 * DAY_MS).toISOString().slice(0, 10);
    const seen = new Set<string>();
    const bad: unknown[] = [];
    for (const r of medium.demand_history) {
      const k = `${r.item_xuid}|${r.site_xuid}|${r.ds}`;
      const monday = new Date(`${r.ds}T00:00:00Z`).getUTCDay() === 1;
      if (!monday || r.ds < medium.options.startWeek || r.ds >= end || !Number.isInteger(r.qty) || r.qty <= 0 || seen.has(k)) bad.push(r);
      seen.add(k);
    }
    expect(bad).toEqual([]);
    expect(seen.size).toBe(medium.demand_history.length);
    expect(end).toBe('2026-11-16');
  });

  test('the planted class mix is 40/20/25/15 and the Syntetos-Boylan classification of the history recovers it', () => {
    const planted: Record<string, number> = { smooth: 0, erratic: 0, intermittent: 0, lumpy: 0 };
    for (const t of medium.truth) planted[t.pattern]++;
    expect(planted.smooth / 2000).toBeCloseTo(0.4, 1);
    expect(planted.erratic / 2000).toBeCloseTo(0.2, 1);
    expect(planted.intermittent / 2000).toBeCloseTo(0.25, 1);
    expect(planted.lumpy / 2000).toBeCloseTo(0.15, 1);

    const weekly = weeklyBySeries(medium);
    const confusion: Record<string, Record<string, number>> = {};
    let classified = 0;
    let agree = 0;
    for (const t of medium.truth) {
      const y = weekly.get(key(t.item_xuid, t.site_xuid)) ?? new Float64Array(156);
      const c = sbClass(y);
      if (!c) continue;
      classified++;
      if (c.pattern === t.pattern) agree++;
      (confusion[t.pattern] ??= {})[c.pattern] = (confusion[t.pattern][c.pattern] ?? 0) + 1;
      // the exported helper measures the same thing
      const at = Array.from(y.keys()).filter((w) => y[w] > 0);
      expect(classifyDemand(at, at.map((w) => y[w])).pattern).toBe(c.pattern);
    }
    const accuracy = agree / classified;
    console.log(`Syntetos-Boylan recovery: ${agree}/${classified} = ${(100 * accuracy).toFixed(1)} % (${2000 - classified} series with < 5 demands skipped)`, confusion);
    expect(classified / 2000).toBeGreaterThan(0.97);
    expect(accuracy).toBeGreaterThanOrEqual(0.8);
    for (const p of ['smooth', 'erratic', 'intermittent', 'lumpy']) {
      const row = confusion[p];
      const total = Object.values(row).reduce((s, v) => s + v, 0);
      expect((row[p] ?? 0) / total).toBeGreaterThanOrEqual(0.75);
    }
  });

  test('seasonality: smooth seasonal series follow their planted yearly profile', () => {
    const weekly = weeklyBySeries(medium);
    const factor = new Map(medium.calendars.map((c) => [c.ds, c.factor]));
    const corr: number[] = [];
    const anti: number[] = [];
    for (const t of medium.truth) {
      if (t.pattern !== 'smooth' || t.seasonal_amplitude < 0.2 || t.lifecycle !== 'regular') continue;
      const y = weekly.get(key(t.item_xuid, t.site_xuid))!;
      const xs: number[] = [];
      const xa: number[] = [];
      const ys: number[] = [];
      for (let w = 0; w < 156; w++) {
        const ds = new Date(Date.parse(medium.options.startWeek) + 7 * w * DAY_MS).toISOString().slice(0, 10);
        const f = factor.get(ds) ?? 1;
        if (f === 0) continue;
        xs.push(seasonalFactor(t, w));
        xa.push(seasonalFactor(t, w + 26)); // the profile half a year out of phase
        ys.push(y[w] / f);
      }
      corr.push(correlation(xs, ys));
      anti.push(correlation(xa, ys));
    }
    corr.sort((a, b) => a - b);
    const median = corr[Math.floor(corr.length / 2)];
    console.log(`seasonality: ${corr.length} smooth seasonal series, median correlation with the planted profile ${median.toFixed(2)}`);
    expect(corr.length).toBeGreaterThan(50);
    expect(median).toBeGreaterThan(0.25);
    expect(corr.filter((c) => c > 0).length / corr.length).toBeGreaterThan(0.9);
    expect(anti.filter((c) => c < 0).length / anti.length).toBeGreaterThan(0.9);
  });

  test('the truth is the process: realised demand matches the planted expectation', () => {
    const factor = new Map(medium.calendars.map((c) => [c.ds, c.factor]));
    const calAt = (w: number): number => factor.get(new Date(Date.parse(medium.options.startWeek) + 7 * w * DAY_MS).toISOString().slice(0, 10)) ?? 1;
    const cal = Array.from({ length: 156 }, (_, w) => calAt(w));
    const weekly = weeklyBySeries(medium);
    for (const pattern of ['smooth', 'erratic', 'intermittent', 'lumpy'] as Pattern[]) {
      let expected = 0;
      let actual = 0;
      for (const t of medium.truth.filter((x) => x.pattern === pattern)) {
        const y = weekly.get(key(t.item_xuid, t.site_xuid)) ?? new Float64Array(156);
        for (let w = 0; w < 156; w++) {
          if (t.outlier_weeks.includes(w)) continue;
          expected += expectedDemand(t, w, cal[w]);
          actual += y[w];
        }
      }
      expect(actual / expected).toBeGreaterThan(0.9);
      expect(actual / expected).toBeLessThan(1.1);
    }
  });

  test('calendar, lifecycle, promotions, outliers and supersession are visible in the history', () => {
    const d = medium;
    const closed = d.calendars.filter((c) => c.factor === 0).map((c) => c.ds);
    expect(closed.length).toBeGreaterThanOrEqual(3);
    expect(d.calendars.some((c) => /Christmas/.test(c.description))).toBe(true);
    expect(d.calendars.some((c) => /New Year/.test(c.description))).toBe(true);
    expect(d.demand_history.some((r) => closed.includes(r.ds))).toBe(false);

    const weekly = weeklyBySeries(d);
    const truthOf = new Map<string, SeriesTruth>(d.truth.map((t) => [key(t.item_xuid, t.site_xuid), t]));
    const late = d.truth.filter((t) => t.first_week >= 26);
    const ended = d.truth.filter((t) => t.last_week < 150);
    expect(late.length / d.truth.length).toBeGreaterThan(0.03);
    expect(ended.length / d.truth.length).toBeGreaterThan(0.02);
    for (const t of [...late, ...ended]) {
      const y = weekly.get(key(t.item_xuid, t.site_xuid));
      if (!y) continue;
      const outside = Array.from(y.keys()).filter((w) => (w < t.first_week || w > t.last_week) && y[w] !== 0);
      expect(outside).toEqual([]);
    }
    expect(d.truth.some((t) => t.promo_weeks.length > 0)).toBe(true);
    expect(d.truth.some((t) => t.outlier_weeks.length > 0)).toBe(true);

    for (const s of d.supersession) {
      const eff = weekIndex(d.options.startWeek, s.effective_date);
      for (const t of d.truth.filter((x) => x.item_xuid === s.old_item_xuid)) expect(t.last_week).toBe(eff - 1);
      for (const t of d.truth.filter((x) => x.item_xuid === s.new_item_xuid)) expect(t.first_week).toBeGreaterThanOrEqual(eff);
      expect(new Date(s.effective_date).getUTCDay()).toBe(1);
      expect(s.ratio).toBeGreaterThan(0);
    }
    // promoted smooth series sell more in promotion weeks than in the weeks around them
    let promo = 0, plain = 0, nPromo = 0, nPlain = 0;
    for (const t of d.truth) {
      if (t.pattern !== 'smooth' || !t.promo_weeks.length) continue;
      const y = weekly.get(key(t.item_xuid, t.site_xuid))!;
      for (const w of t.promo_weeks) {
        promo += y[w] / t.base_level;
        nPromo++;
        for (const v of [w - 3, w + 3]) {
          if (v < t.first_week || v > t.last_week || t.promo_weeks.includes(v) || t.promo_weeks.includes(v - 1)) continue;
          plain += y[v] / t.base_level;
          nPlain++;
        }
      }
    }
    expect(promo / nPromo).toBeGreaterThan(1.2 * (plain / nPlain));
    expect(truthOf.size).toBe(d.truth.length);
  });
});

describe('the streaming form', () => {
  test('demandRows yields exactly the rows of the array form, series by series', () => {
    const streamed = [...demandRows(MEDIUM)];
    expect(streamed).toHaveLength(medium.demand_history.length);
    expect(JSON.stringify(streamed)).toBe(JSON.stringify(medium.demand_history));
    const series = [...demandBySeries(SMALL)];
    expect(series.map((s) => s.truth)).toEqual(small.truth);
    expect(series.flatMap((s) => s.rows)).toEqual(small.demand_history);
  });

  test('daily granularity splits each week over its days and sums back to the weekly history', () => {
    const daily = generateDemoData({ ...SMALL, granularity: 'daily' });
    expect(daily.items).toEqual(small.items);
    expect(daily.truth).toEqual(small.truth);
    const sums = new Map<string, number>();
    expect(daily.demand_history.filter((r) => !Number.isInteger(r.qty) || r.qty <= 0)).toEqual([]);
    for (const r of daily.demand_history) {
      const day = Date.parse(r.ds) / DAY_MS;
      const monday = new Date((day - ((new Date(r.ds).getUTCDay() + 6) % 7)) * DAY_MS).toISOString().slice(0, 10);
      const k = `${r.item_xuid}|${r.site_xuid}|${monday}`;
      sums.set(k, (sums.get(k) ?? 0) + r.qty);
    }
    expect(new Map(small.demand_history.map((r) => [`${r.item_xuid}|${r.site_xuid}|${r.ds}`, r.qty]))).toEqual(sums);
    expect(daily.demand_history.some((r) => new Date(r.ds).getUTCDay() !== 1)).toBe(true);
    // DCs and plants ship on working days only
    const dcs = new Set(daily.sites.filter((s) => s.site_type !== 'store').map((s) => s.xuid));
    expect(daily.demand_history.filter((r) => dcs.has(r.site_xuid) && [0, 6].includes(new Date(r.ds).getUTCDay()))).toEqual([]);
    expect(daily.calendars.length).toBe(7 * small.calendars.length);
  });
});

describe('the CLI', () => {
  test('csvField quotes per RFC 4180', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField(null)).toBe('');
    expect(csvField(1.5)).toBe('1.5');
    expect(parseCsv(csvLine(['a', 'b', 'c'], { a: 'x,"y"', b: null, c: 'l1\r\nl2' }))).toEqual([['x,"y"', '', 'l1\r\nl2']]);
  });

  test('writes one parseable CSV per table, streaming demand, and prints counts', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'demo-data-'));
    try {
      const opts = { seed: 5, items: 40, sites: 6 };
      const run = spawnSync(process.execPath, [
        ...scriptArgs('scripts/demoData/cli.ts'),
        '--seed', String(opts.seed), '--items', String(opts.items), '--sites', String(opts.sites), '--out', dir,
      ], { cwd: ROOT, env: scriptEnv(), encoding: 'utf8', timeout: 120_000 });
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
      const expected = generateDemoData(opts);
      expect(run.stdout).toContain(`demand_history.csv`);
      expect(run.stdout).toMatch(/elapsed [\d.]+ s/);
      expect(run.stdout).toContain(`${expected.demand_history.length} rows`);

      const tables = ['items', 'sites', 'item_site', 'routes', 'demand_history', 'calendars', 'firm_orders', 'supersession'] as const;
      for (const table of tables) {
        const rows = parseCsv(fs.readFileSync(path.join(dir, `${table}.csv`), 'utf8'));
        expect(rows[0]).toEqual([...TABLE_COLUMNS[table]]);
        const want = (expected[table] as unknown as Record<string, unknown>[]).map((r) =>
          TABLE_COLUMNS[table].map((c) => (r[c] === null || r[c] === undefined ? '' : String(r[c]))),
        );
        expect(rows.slice(1)).toEqual(want);
      }
      const truth = parseCsv(fs.readFileSync(path.join(dir, 'truth.csv'), 'utf8'));
      expect(truth).toHaveLength(expected.truth.length + 1);
      expect(truth[1].slice(0, 3)).toEqual([expected.truth[0].item_xuid, expected.truth[0].site_xuid, expected.truth[0].pattern]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('fails clearly without the required arguments', () => {
    const run = spawnSync(process.execPath, [...scriptArgs('scripts/demoData/cli.ts'), '--items', '5'], { cwd: ROOT, env: scriptEnv(), encoding: 'utf8' });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/--seed is required|--out is required/);
  });
});
