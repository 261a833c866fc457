/**
 * The causal demand engine (core-service.md §4.10, supply-history-assistant.md §4.6; docs/CAUSAL.md). Pure: master
 * data in, weekly demand out. One function, `contributions`, makes the rows of a week; the scenario run sums them and
 * the breakdown lists them, so the breakdown always adds up to what the run stored (rule 4).
 *
 *   demand(item, site, week) = Σ over (asset type, customer, usage type) of
 *       qty_per_asset × failure_rate × weekly_usage [× fleet_qty in per_asset mode] × coverage_pct(customer, site)
 *
 *   weekly_usage = total_usage × 7 / days of the usage period, both ends counted            (rule 2)
 *   coverage_pct = the customer's share of the site, normalised so the customer's sites sum to 1 (rule 3)
 */
import { dayNumber, mondayOf } from '../time/weeks';
import { explodedTotals, type BomEdge } from './bom';

export type UsageMode = 'fleet_total' | 'per_asset';
export const USAGE_MODES: readonly UsageMode[] = ['fleet_total', 'per_asset'];
export const DEFAULT_USAGE_MODE: UsageMode = 'fleet_total';

export interface FailureRate { asset_type_id: number; item_id: number; usage_type_id: number; rate: number }
export interface UsageRow { asset_type_id: number; customer_id: number; usage_type_id: number; period_start: string; period_end: string; total_usage: number }
export interface CoverageRow { asset_type_id: number; customer_id: number | null; site_id: number; coverage_pct: number }
export interface DeploymentRow { asset_type_id: number; customer_id: number; site_id: number; start_date: string; end_date: string | null }
export interface FleetPlanRow { asset_type_id: number; customer_id: number; start_date: string; end_date: string | null; quantity: number }

export interface CausalData {
  bom: BomEdge[];
  failureRates: FailureRate[];
  usage: UsageRow[];
  coverage: CoverageRow[];
  deployments: DeploymentRow[];
  fleetPlan: FleetPlanRow[];
}

export interface Levers {
  usage_mode: UsageMode;
  usage_multiplier: number;
  fleet_multiplier: number;
  failure_rate_multiplier: number;
}

export const NEUTRAL_LEVERS: Levers = { usage_mode: DEFAULT_USAGE_MODE, usage_multiplier: 1, fleet_multiplier: 1, failure_rate_multiplier: 1 };

/** One (asset type, customer, usage type) term of a part's demand in one week, before the site split. */
export interface Contribution {
  asset_type_id: number;
  customer_id: number;
  usage_type_id: number;
  item_id: number;
  qty_per_asset: number;
  failure_rate: number;
  /** usage of the selected period (× usage multiplier) */
  total_usage: number;
  usage_period_start: string;
  usage_period_end: string;
  weekly_usage: number;
  /** assets of the type deployed at the customer that week */
  asset_qty: number;
  /** fleet plan quantity that week (the deployed count when no plan row covers it) × fleet multiplier */
  fleet_qty: number;
  usage_mode: UsageMode;
  /** demand over all of the customer's sites: qty × rate × weekly usage (× fleet in per_asset mode) */
  demand: number;
  /** normalised site shares of this customer (rule 3); empty when the asset type has no coverage (rule 6) */
  coverage: ReadonlyMap<number, number>;
}

/** Inclusive days of a period (rule 2). */
export const periodDays = (start: string, end: string): number => dayNumber(end) - dayNumber(start) + 1;

/** Rule 2: weekly usage of a period's total. */
export const weeklyUsage = (total: number, start: string, end: string): number => (total * 7) / periodDays(start, end);

interface Period { start: number; end: number; start_date: string; end_date: string; total: number }

const activeOn = (day: number, start: string, end: string | null) => dayNumber(start) <= day && (end === null || day <= dayNumber(end));

/**
 * Rule 3: site → share for each customer of an asset type. Customer-less rows are the fallback of customers that have
 * none of their own; each customer's shares are divided by their sum. Coverage is per customer, never one global map.
 */
export function coverageMaps(rows: readonly CoverageRow[], assetTypeId: number): { byCustomer: Map<number, Map<number, number>>; fallback: Map<number, number> } {
  const raw = new Map<number | null, Map<number, number>>();
  for (const r of rows) {
    if (r.asset_type_id !== assetTypeId) continue;
    const m = raw.get(r.customer_id) ?? new Map<number, number>();
    m.set(r.site_id, (m.get(r.site_id) ?? 0) + r.coverage_pct);
    raw.set(r.customer_id, m);
  }
  const normalise = (m: Map<number, number>) => {
    const sum = [...m.values()].reduce((a, b) => a + b, 0);
    return new Map([...m].map(([k, v]) => [k, sum > 0 ? v / sum : 0]));
  };
  const byCustomer = new Map<number, Map<number, number>>();
  for (const [c, m] of raw) if (c !== null) byCustomer.set(c, normalise(m));
  return { byCustomer, fallback: normalise(raw.get(null) ?? new Map()) };
}

/** The prepared model: indexes built once, then any week asked. */
export class CausalModel {
  private readonly qty = new Map<number, Map<number, number>>();
  private readonly periods = new Map<string, Period[]>();
  private readonly cover = new Map<number, ReturnType<typeof coverageMaps>>();

  constructor(private readonly data: CausalData, private readonly levers: Levers = NEUTRAL_LEVERS) {
    for (const at of new Set(data.failureRates.map((f) => f.asset_type_id))) {
      this.qty.set(at, explodedTotals(data.bom, at));
      this.cover.set(at, coverageMaps(data.coverage, at));
    }
    const grouped = new Map<string, Map<string, Period>>();
    for (const u of data.usage) {
      const key = `${u.asset_type_id}:${u.customer_id}:${u.usage_type_id}`;
      const g = grouped.get(key) ?? new Map<string, Period>();
      const pk = `${u.period_start}:${u.period_end}`;
      const p = g.get(pk) ?? { start: dayNumber(u.period_start), end: dayNumber(u.period_end), start_date: u.period_start, end_date: u.period_end, total: 0 };
      p.total += u.total_usage;
      g.set(pk, p);
      grouped.set(key, g);
    }
    for (const [k, g] of grouped) this.periods.set(k, [...g.values()].sort((a, b) => a.start - b.start || a.end - b.end));
  }

  /** Exploded quantity of a part per asset of the type (0 when the part is not in its tree). */
  qtyPerAsset(assetTypeId: number, itemId: number): number {
    return (this.qty.get(assetTypeId) ?? explodedTotals(this.data.bom, assetTypeId)).get(itemId) ?? 0;
  }

  /**
   * The usage period that holds for a week: the one containing its Monday (the latest-starting when several do), else
   * the latest period started before it (the last known run rate carried forward); none before the first period.
   */
  usagePeriod(assetTypeId: number, customerId: number, usageTypeId: number, day: number): Period | null {
    const ps = this.periods.get(`${assetTypeId}:${customerId}:${usageTypeId}`);
    if (!ps) return null;
    let containing: Period | null = null;
    let before: Period | null = null;
    for (const p of ps) {
      if (p.start <= day && day <= p.end) containing = p;
      if (p.start <= day) before = p;
    }
    return containing ?? before;
  }

  customersOf(assetTypeId: number, usageTypeId: number): number[] {
    const out = new Set<number>();
    for (const u of this.data.usage) if (u.asset_type_id === assetTypeId && u.usage_type_id === usageTypeId) out.add(u.customer_id);
    return [...out].sort((a, b) => a - b);
  }

  assetQty(assetTypeId: number, customerId: number, day: number): number {
    let n = 0;
    for (const d of this.data.deployments) if (d.asset_type_id === assetTypeId && d.customer_id === customerId && activeOn(day, d.start_date, d.end_date)) n += 1;
    return n;
  }

  fleetQty(assetTypeId: number, customerId: number, day: number): number {
    let planned = 0;
    let any = false;
    for (const p of this.data.fleetPlan) {
      if (p.asset_type_id === assetTypeId && p.customer_id === customerId && activeOn(day, p.start_date, p.end_date)) {
        planned += p.quantity;
        any = true;
      }
    }
    return (any ? planned : this.assetQty(assetTypeId, customerId, day)) * this.levers.fleet_multiplier;
  }

  coverageOf(assetTypeId: number, customerId: number): ReadonlyMap<number, number> {
    const c = this.cover.get(assetTypeId) ?? coverageMaps(this.data.coverage, assetTypeId);
    return c.byCustomer.get(customerId) ?? c.fallback;
  }

  /** Every term of the week (any Monday-normalised date), for one item or all; ordered by asset type, usage type, customer. */
  contributions(week: string, itemId?: number): Contribution[] {
    const day = dayNumber(mondayOf(week));
    const L = this.levers;
    const rates = this.data.failureRates
      .filter((f) => itemId === undefined || f.item_id === itemId)
      .sort((a, b) => a.item_id - b.item_id || a.asset_type_id - b.asset_type_id || a.usage_type_id - b.usage_type_id);
    const out: Contribution[] = [];
    for (const f of rates) {
      const qpa = this.qtyPerAsset(f.asset_type_id, f.item_id);
      if (qpa <= 0) continue;
      const rate = f.rate * L.failure_rate_multiplier;
      for (const customerId of this.customersOf(f.asset_type_id, f.usage_type_id)) {
        const p = this.usagePeriod(f.asset_type_id, customerId, f.usage_type_id, day);
        if (!p) continue;
        const total = p.total * L.usage_multiplier;
        const weekly = weeklyUsage(total, p.start_date, p.end_date);
        const fleet = this.fleetQty(f.asset_type_id, customerId, day);
        const demand = qpa * rate * weekly * (L.usage_mode === 'per_asset' ? fleet : 1);
        out.push({
          asset_type_id: f.asset_type_id, customer_id: customerId, usage_type_id: f.usage_type_id, item_id: f.item_id,
          qty_per_asset: qpa, failure_rate: rate, total_usage: total, usage_period_start: p.start_date, usage_period_end: p.end_date,
          weekly_usage: weekly, asset_qty: this.assetQty(f.asset_type_id, customerId, day), fleet_qty: fleet, usage_mode: L.usage_mode,
          demand, coverage: this.coverageOf(f.asset_type_id, customerId),
        });
      }
    }
    return out;
  }
}

export interface WeeklyDemand {
  item_id: number;
  /** 0: the item over every site */
  site_id: number;
  week: string;
  demand: number;
}

/**
 * The weekly causal demand of every (item, site) the coverage reaches, plus each item's aggregate over every site
 * (site_id 0). A term whose customer has no coverage adds nothing (rule 6), to the aggregate neither: the aggregate is
 * the sum of the site rows.
 *
 * A site the run reaches in any week gets a row in every week, 0 when no term reaches it that week: without it the
 * series has no value that week, and the breakdown (rule 5) would read the item's all-sites total for a site whose
 * terms sum to 0, breaking rule 4. Likewise the aggregate of such an item is stored every week.
 */
export function computeDemand(model: CausalModel, weeks: readonly string[]): WeeklyDemand[] {
  const perWeek = new Map<string, Map<string, number>>();
  const sitesOf = new Map<number, Set<number>>();
  for (const week of weeks) {
    const cells = new Map<string, number>();
    for (const c of model.contributions(week)) {
      for (const [site, pct] of c.coverage) {
        if (pct <= 0) continue;
        const sites = sitesOf.get(c.item_id) ?? new Set<number>();
        sites.add(site).add(0);
        sitesOf.set(c.item_id, sites);
        for (const k of [`${c.item_id}:${site}`, `${c.item_id}:0`]) cells.set(k, (cells.get(k) ?? 0) + c.demand * pct);
      }
    }
    perWeek.set(week, cells);
  }
  const keys = [...sitesOf].flatMap(([item, sites]) => [...sites].map((site) => ({ item, site })))
    .sort((a, b) => a.item - b.item || a.site - b.site);
  const out: WeeklyDemand[] = [];
  for (const week of weeks) {
    const cells = perWeek.get(week)!;
    for (const { item, site } of keys) out.push({ item_id: item, site_id: site, week, demand: cells.get(`${item}:${site}`) ?? 0 });
  }
  return out;
}

/** `<item_id>_<site_id>` → ids; the site is the part after the underscore (document 2 §4.6). */
export function parseSeriesId(id: string): { item_id: number; site_id: number } | null {
  const m = /^(\d{1,10})_(\d{1,10})$/.exec(id);
  if (!m) return null;
  const item = Number(m[1]);
  const site = Number(m[2]);
  if (item < 1 || site < 1 || item > 2147483647 || site > 2147483647) return null;
  return { item_id: item, site_id: site };
}

export interface BreakdownTerm extends Omit<Contribution, 'coverage' | 'demand' | 'item_id'> {
  coverage_pct: number;
  computed_demand: number;
}

/** The breakdown rows of one site and week (rules 1–3, 6): each term times the site's normalised share. */
export function breakdownTerms(model: CausalModel, itemId: number, siteId: number, week: string): BreakdownTerm[] {
  return model.contributions(week, itemId).map(({ coverage, demand, item_id: _i, ...rest }) => {
    const pct = coverage.get(siteId) ?? 0;
    return { ...rest, coverage_pct: pct, computed_demand: demand * pct };
  });
}

/**
 * Rule 5: the stored value of the exact site series wins; the item aggregate is read only when the exact series has no
 * stored value in any week of the run. Never both. A series the run stored in other weeks but not this one (runs
 * stored before every reached site got a row each week) got no demand this week: 0 from the series, not the item's
 * all-sites total, so the rows of the breakdown (which sum to 0 there) still equal actual_demand (rule 4).
 */
export function pickActual(exact: number | null | undefined, aggregate: number | null | undefined, seriesStored = exact !== null && exact !== undefined): { value: number; source: 'series' | 'item_aggregate' | 'none' } {
  if (exact !== null && exact !== undefined) return { value: exact, source: 'series' };
  if (aggregate !== null && aggregate !== undefined) return seriesStored ? { value: 0, source: 'series' } : { value: aggregate, source: 'item_aggregate' };
  return { value: 0, source: 'none' };
}

/**
 * Weekly usage per (asset type, customer, usage type) over the weeks given (Mondays), by rule 2; a week with no period
 * containing its Monday is 0 here (history shows what was recorded, no run rate carried forward).
 */
export function weeklyUsageSeries(usage: readonly UsageRow[], weeks: readonly string[]): Array<{ asset_type_id: number; customer_id: number; usage_type_id: number; points: Array<{ date: string; value: number }> }> {
  const keys = new Map<string, { asset_type_id: number; customer_id: number; usage_type_id: number }>();
  for (const u of usage) keys.set(`${u.asset_type_id}:${u.customer_id}:${u.usage_type_id}`, { asset_type_id: u.asset_type_id, customer_id: u.customer_id, usage_type_id: u.usage_type_id });
  const model = new CausalModel({ bom: [], failureRates: [], usage: [...usage], coverage: [], deployments: [], fleetPlan: [] });
  return [...keys.values()]
    .sort((a, b) => a.asset_type_id - b.asset_type_id || a.customer_id - b.customer_id || a.usage_type_id - b.usage_type_id)
    .map((k) => ({
      ...k,
      points: weeks.map((w) => {
        const day = dayNumber(w);
        const p = model.usagePeriod(k.asset_type_id, k.customer_id, k.usage_type_id, day);
        return { date: w, value: p && day <= p.end ? weeklyUsage(p.total, p.start_date, p.end_date) : 0 };
      }),
    }));
}
