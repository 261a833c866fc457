/**
 * Seeded synthetic tenant: master data, a plant → DC → store network and three years of demand whose generating
 * process is known (`truth`), for demos, load tests and forecasting benchmarks. Pure functions: no database, no
 * Temporal, no clock, no Math.random — the same options always give byte-identical output.
 *
 * Every random draw comes from a stream derived from (seed, purpose, index) (see random.ts), so series k is the same
 * whether it is produced by `generateDemoData` (arrays, for small tenants) or by `demandRows` / `demandBySeries`
 * (generators, one series at a time, for 100,000 series with flat memory). See docs/DEMO_DATA.md.
 */
import { Rng } from './random';

// ───────────────────────────── public types ─────────────────────────────

export type Pattern = 'smooth' | 'erratic' | 'intermittent' | 'lumpy';
export type SiteType = 'plant' | 'dc' | 'store';
export type Granularity = 'daily' | 'weekly';
export type Lifecycle = 'regular' | 'new' | 'discontinued';

export interface DemoOptions {
  seed: number;
  items: number;
  sites: number;
  /** Number of (item, site) series; default round(items × sites / 3), clamped to [items, items × sites]. */
  seriesTarget?: number;
  /** Weeks of history; default 156. */
  weeks?: number;
  /** Monday (YYYY-MM-DD) of the first history week; default `weeks` weeks before 2026-11-16. */
  startWeek?: string;
  /** 'weekly' (default): one row per Monday; 'daily': the weekly quantity split over the days of the week. */
  granularity?: Granularity;
}

export interface ResolvedDemoOptions {
  seed: number;
  items: number;
  sites: number;
  seriesTarget: number;
  weeks: number;
  startWeek: string;
  granularity: Granularity;
}

export interface ItemRow {
  xuid: string;
  name: string;
  avg_unit_cost: number;
  unit_price: number;
  image_url: null;
  category: string;
  abc_hint?: 'A' | 'B' | 'C';
}

export interface SiteRow {
  xuid: string;
  name: string;
  site_type: SiteType;
}

export interface ItemSiteRow {
  item_xuid: string;
  site_xuid: string;
  unit_cost: number;
  lead_time_weeks: number;
  on_hand: number;
  safety_stock: number;
  moq: number;
  order_multiple: number;
}

export interface RouteRow {
  item_xuid: null;
  from_site_xuid: string;
  to_site_xuid: string;
  route_type: 'REPLENISHMENT' | 'RETURN' | 'REPAIR';
  /** Weeks. */
  lead_time: number;
  /** 1 = primary source, 2 = alternative. */
  priority: number;
}

export interface DemandRow {
  item_xuid: string;
  site_xuid: string;
  ds: string;
  qty: number;
}

export interface CalendarRow {
  calendar: string;
  ds: string;
  factor: number;
  description: string;
}

export interface FirmOrderRow {
  order_ref: string;
  item_xuid: string;
  site_xuid: string;
  qty: number;
  due_date: string;
  status: 'open';
}

export interface SupersessionRow {
  old_item_xuid: string;
  new_item_xuid: string;
  effective_date: string;
  ratio: number;
}

/**
 * The process behind one series. With t the history week index (0 = startWeek) and τ = t − first_week:
 *   m(t) = max(0.2, 1 + τ · trend_per_week / base_level) · seasonal(t) · promo(t) · calendar(t)
 *   seasonal(t) = 1 + seasonal_amplitude · cos(2π (t − seasonal_phase) / 52)
 *   promo(t) = promo_uplift in promo_weeks, post_promo_dip in the week after a promotion, else 1
 * smooth / erratic: a demand occurs with probability p_demand, its size ~ Gamma(mean base_level · m(t), cv size_cv);
 * intermittent / lumpy: a demand occurs with probability min(0.95, p_demand · m(t)), size ~ Gamma(base_level, size_cv).
 * Sizes are rounded to integers ≥ 1; in outlier_weeks the size is multiplied by outlier_factor. No demand outside
 * [first_week, last_week].
 */
export interface SeriesTruth {
  item_xuid: string;
  site_xuid: string;
  pattern: Pattern;
  /** Mean non-zero demand size at the series' first week, before seasonality and promotions. */
  base_level: number;
  /** Change of the level per week, in the units of base_level (the level never falls below 20 % of base_level). */
  trend_per_week: number;
  seasonal_amplitude: number;
  /** Calendar week of year (0-51) of the seasonal peak. */
  seasonal_peak_week: number;
  /** History week index (mod 52) at which seasonal(t) peaks. */
  seasonal_phase: number;
  /** Probability of a non-zero week (before seasonality/promotions for intermittent and lumpy series). */
  p_demand: number;
  /** Coefficient of variation of non-zero sizes. */
  size_cv: number;
  lifecycle: Lifecycle;
  first_week: number;
  last_week: number;
  first_ds: string;
  last_ds: string;
  promo_weeks: number[];
  promo_uplift: number;
  post_promo_dip: number;
  outlier_weeks: number[];
  outlier_factor: number;
}

export interface DemoMasterData {
  options: ResolvedDemoOptions;
  items: ItemRow[];
  sites: SiteRow[];
  item_site: ItemSiteRow[];
  routes: RouteRow[];
  calendars: CalendarRow[];
  firm_orders: FirmOrderRow[];
  supersession: SupersessionRow[];
}

export interface DemoDataset extends DemoMasterData {
  demand_history: DemandRow[];
  truth: SeriesTruth[];
}

/** Column order of every table, as the import staging tables name them (used for CSV headers). */
export const TABLE_COLUMNS = {
  items: ['xuid', 'name', 'avg_unit_cost', 'unit_price', 'image_url', 'category', 'abc_hint'],
  sites: ['xuid', 'name', 'site_type'],
  item_site: ['item_xuid', 'site_xuid', 'unit_cost', 'lead_time_weeks', 'on_hand', 'safety_stock', 'moq', 'order_multiple'],
  routes: ['item_xuid', 'from_site_xuid', 'to_site_xuid', 'route_type', 'lead_time', 'priority'],
  demand_history: ['item_xuid', 'site_xuid', 'ds', 'qty'],
  calendars: ['calendar', 'ds', 'factor', 'description'],
  firm_orders: ['order_ref', 'item_xuid', 'site_xuid', 'qty', 'due_date', 'status'],
  supersession: ['old_item_xuid', 'new_item_xuid', 'effective_date', 'ratio'],
  truth: [
    'item_xuid', 'site_xuid', 'pattern', 'base_level', 'trend_per_week', 'seasonal_amplitude', 'seasonal_peak_week',
    'seasonal_phase', 'p_demand', 'size_cv', 'lifecycle', 'first_week', 'last_week', 'first_ds', 'last_ds',
    'promo_weeks', 'promo_uplift', 'post_promo_dip', 'outlier_weeks', 'outlier_factor',
  ],
} as const;

export const DEFAULT_WEEKS = 156;
/** The default history ends the week before this Monday. */
export const DEFAULT_END_WEEK = '2026-11-16';
export const DEFAULT_CALENDAR = 'default';
/** Weeks past the history end that the calendar (and firm orders) cover. */
export const FUTURE_WEEKS = 52;
export const PATTERN_MIX: Record<Pattern, number> = { smooth: 0.4, erratic: 0.2, intermittent: 0.25, lumpy: 0.15 };

// ───────────────────────────── dates ─────────────────────────────

const DAY_MS = 86_400_000;

function parseDay(ds: string): number {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(ds);
  if (!m) throw new Error(`not a YYYY-MM-DD date: ${ds}`);
  const ms = Date.UTC(+m[1], +m[2] - 1, +m[3]);
  if (formatDay(ms / DAY_MS) !== ds) throw new Error(`not a valid date: ${ds}`);
  return ms / DAY_MS;
}

function formatDay(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

/** 0 = Sunday … 1 = Monday. */
function weekday(day: number): number {
  return new Date(day * DAY_MS).getUTCDay();
}

function dayOfYear(day: number): number {
  const d = new Date(day * DAY_MS);
  return day - Date.UTC(d.getUTCFullYear(), 0, 1) / DAY_MS;
}

// ───────────────────────────── reference data ─────────────────────────────

interface Category {
  name: string;
  price: number;
  weight: number;
  /** Calendar week of the seasonal peak. */
  peak: number;
  /** 0..1: how likely and how strong seasonality is. */
  season: number;
  nouns: string[];
  variants: string[];
}

const CATEGORIES: Category[] = [
  { name: 'Paint', price: 28, weight: 1.0, peak: 17, season: 0.8, nouns: ['Wall Paint', 'Primer', 'Wood Stain', 'Varnish', 'Masonry Paint'], variants: ['1 L', '2.5 L', '5 L', '10 L'] },
  { name: 'Garden', price: 16, weight: 1.2, peak: 16, season: 1.0, nouns: ['Potting Soil', 'Lawn Seed', 'Fertiliser', 'Garden Hose', 'Pruning Shears'], variants: ['Small', 'Medium', 'Large', '20 kg'] },
  { name: 'Heating', price: 95, weight: 0.6, peak: 48, season: 1.0, nouns: ['Oil Radiator', 'Fan Heater', 'Thermostat', 'Stove Kit', 'Radiator Valve'], variants: ['1 kW', '2 kW', 'Standard', 'Pro'] },
  { name: 'Tools', price: 42, weight: 1.0, peak: 49, season: 0.4, nouns: ['Cordless Drill', 'Hammer', 'Screwdriver Set', 'Spirit Level', 'Jigsaw'], variants: ['12 V', '18 V', 'Compact', 'Pro'] },
  { name: 'Electrical', price: 9, weight: 1.1, peak: 44, season: 0.2, nouns: ['Extension Lead', 'Socket', 'Switch', 'Cable Reel', 'Fuse Pack'], variants: ['1 m', '5 m', '10 m', 'Twin'] },
  { name: 'Plumbing', price: 14, weight: 0.9, peak: 3, season: 0.3, nouns: ['Tap', 'Pipe Fitting', 'Shower Head', 'Siphon', 'PTFE Tape'], variants: ['15 mm', '22 mm', 'Chrome', 'Standard'] },
  { name: 'Lighting', price: 24, weight: 0.9, peak: 45, season: 0.5, nouns: ['LED Bulb', 'Ceiling Lamp', 'Floodlight', 'String Lights', 'Desk Lamp'], variants: ['E27', 'GU10', 'Warm White', 'Cool White'] },
  { name: 'Fasteners', price: 4, weight: 1.2, peak: 14, season: 0.1, nouns: ['Wood Screws', 'Wall Plugs', 'Nails', 'Bolts', 'Washers'], variants: ['Box 100', 'Box 200', 'Box 500', 'Assorted'] },
  { name: 'Outdoor Furniture', price: 160, weight: 0.5, peak: 20, season: 1.0, nouns: ['Garden Chair', 'Parasol', 'Lounger', 'Patio Table', 'Bench'], variants: ['Teak', 'Aluminium', 'Resin', 'Steel'] },
  { name: 'Cleaning', price: 6, weight: 0.9, peak: 12, season: 0.3, nouns: ['Detergent', 'Sponge Pack', 'Mop', 'Degreaser', 'Microfibre Cloth'], variants: ['500 ml', '1 L', '5 L', 'Pack of 3'] },
];

const BRANDS = ['Atlas', 'Nordik', 'Verdo', 'Brico', 'Forge', 'Lumen', 'Hydra', 'Kestrel', 'Orion', 'Sable', 'Tundra', 'Vireo'];

const CITIES = [
  'Lyon', 'Milan', 'Munich', 'Rotterdam', 'Leeds', 'Porto', 'Ghent', 'Graz', 'Basel', 'Aarhus', 'Lille', 'Turin',
  'Cologne', 'Utrecht', 'Bristol', 'Seville', 'Bruges', 'Linz', 'Bern', 'Malmo', 'Nantes', 'Bologna', 'Dresden',
  'Eindhoven', 'Glasgow', 'Valencia', 'Namur', 'Salzburg', 'Geneva', 'Bergen', 'Toulouse', 'Florence', 'Leipzig',
  'Groningen', 'Cardiff', 'Bilbao', 'Liege', 'Innsbruck', 'Lausanne', 'Tampere', 'Bordeaux', 'Verona', 'Bremen',
  'Haarlem', 'Belfast', 'Malaga', 'Mons', 'Klagenfurt', 'Lugano', 'Turku', 'Rennes', 'Genoa', 'Hanover', 'Leiden',
  'York', 'Zaragoza', 'Antwerp', 'Villach', 'Zurich', 'Odense', 'Nice', 'Parma', 'Stuttgart', 'Delft', 'Bath',
  'Granada', 'Charleroi', 'Wels', 'Lucerne', 'Uppsala', 'Dijon', 'Padua', 'Nuremberg', 'Arnhem', 'Exeter', 'Murcia',
];

/** Share of a week's demand per weekday, Monday first. */
const DAY_PROFILE: Record<SiteType, number[]> = {
  store: [0.12, 0.12, 0.13, 0.14, 0.16, 0.21, 0.12],
  dc: [0.22, 0.2, 0.2, 0.2, 0.18, 0, 0],
  plant: [0.22, 0.2, 0.2, 0.2, 0.18, 0, 0],
};

const round = (x: number, decimals: number): number => {
  const f = 10 ** decimals;
  return Math.round(x * f) / f;
};
const clamp = (x: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, x));
const pad = (n: number, width: number): string => String(n).padStart(width, '0');

// ───────────────────────────── the plan (everything but per-series draws) ─────────────────────────────

interface ItemInfo {
  category: Category;
  popularity: number;
  /** First / last active history week (inclusive). */
  launch: number;
  end: number;
  lifecycle: Lifecycle;
  promoWeeks: number[];
  promoUplift: number;
  packSize: number;
  productionLeadTime: number;
}

interface SiteInfo {
  type: SiteType;
  size: number;
  /** Lead time of the primary inbound route (plants: 0, production lead time is per item). */
  inboundLeadTime: number;
}

/** Everything shared by all series, built once from the options (O(items + sites + series) memory, no demand). */
export interface DemoPlan {
  readonly kind: 'demo-plan';
  options: ResolvedDemoOptions;
  items: ItemRow[];
  sites: SiteRow[];
  routes: RouteRow[];
  calendars: CalendarRow[];
  supersession: SupersessionRow[];
  /** Per history week: the default calendar's factor (1 unless listed). */
  calendarFactor: Float64Array;
  /** ds of every history week. */
  weekDs: string[];
  /** ds of every history day (daily granularity only). */
  dayDs: string[] | null;
  itemInfo: ItemInfo[];
  siteInfo: SiteInfo[];
  seriesItem: Int32Array;
  seriesSite: Int32Array;
  /** Series whose frequency score is below this are intermittent or lumpy. */
  scoreThreshold: number;
  /** Week of year of startWeek (for the seasonal phase). */
  startWeekOfYear: number;
}

export function resolveOptions(opts: DemoOptions): ResolvedDemoOptions {
  const { seed, items, sites } = opts;
  if (!Number.isSafeInteger(seed)) throw new Error(`seed must be an integer (got ${seed})`);
  if (!Number.isInteger(items) || items < 1) throw new Error(`items must be a positive integer (got ${items})`);
  if (!Number.isInteger(sites) || sites < 1) throw new Error(`sites must be a positive integer (got ${sites})`);
  const weeks = opts.weeks ?? DEFAULT_WEEKS;
  if (!Number.isInteger(weeks) || weeks < 1) throw new Error(`weeks must be a positive integer (got ${weeks})`);
  const granularity = opts.granularity ?? 'weekly';
  if (granularity !== 'weekly' && granularity !== 'daily') throw new Error(`granularity must be 'daily' or 'weekly' (got ${granularity})`);
  const startWeek = opts.startWeek ?? formatDay(parseDay(DEFAULT_END_WEEK) - weeks * 7);
  if (weekday(parseDay(startWeek)) !== 1) throw new Error(`startWeek must be a Monday (got ${startWeek})`);
  if (opts.seriesTarget !== undefined && (!Number.isInteger(opts.seriesTarget) || opts.seriesTarget < 1)) {
    throw new Error(`seriesTarget must be a positive integer (got ${opts.seriesTarget})`);
  }
  const requested = opts.seriesTarget ?? Math.round((items * sites) / 3);
  const seriesTarget = clamp(requested, items, items * sites);
  return { seed, items, sites, seriesTarget, weeks, startWeek, granularity };
}

export function isDemoPlan(x: unknown): x is DemoPlan {
  return typeof x === 'object' && x !== null && (x as DemoPlan).kind === 'demo-plan';
}

function planOf(x: DemoOptions | DemoPlan): DemoPlan {
  return isDemoPlan(x) ? x : createDemoPlan(x);
}

/** Builds the network, items, lifecycle, promotions, calendar and the (item, site) series list. */
export function createDemoPlan(opts: DemoOptions): DemoPlan {
  const options = resolveOptions(opts);
  const { seed, weeks } = options;
  const startDay = parseDay(options.startWeek);
  const weekDs = Array.from({ length: weeks }, (_, t) => formatDay(startDay + 7 * t));
  const dayDs = options.granularity === 'daily' ? Array.from({ length: weeks * 7 }, (_, d) => formatDay(startDay + d)) : null;

  const { sites, siteInfo, routes } = buildNetwork(seed, options.sites);
  const { calendars, calendarFactor } = buildCalendar(startDay, weeks, options.granularity);
  const { items, itemInfo, supersession } = buildItems(seed, options.items, weeks, weekDs);
  const { seriesItem, seriesSite } = allocateSeries(seed, itemInfo, siteInfo, options.seriesTarget);

  // Frequency score: big items at big sites sell every week; the bottom 40 % are intermittent or lumpy.
  const n = seriesItem.length;
  const scores = new Float64Array(n);
  for (let k = 0; k < n; k++) scores[k] = frequencyScore(seed, k, itemInfo[seriesItem[k]], siteInfo[seriesSite[k]]);
  const sorted = scores.slice().sort();
  const cut = Math.floor(n * (PATTERN_MIX.intermittent + PATTERN_MIX.lumpy));
  const scoreThreshold = cut <= 0 ? -Infinity : cut >= n ? Infinity : (sorted[cut - 1] + sorted[cut]) / 2;

  const plan: DemoPlan = {
    kind: 'demo-plan', options, items, sites, routes, calendars, supersession, calendarFactor, weekDs, dayDs,
    itemInfo, siteInfo, seriesItem, seriesSite, scoreThreshold,
    startWeekOfYear: Math.floor(dayOfYear(startDay) / 7) % 52,
  };

  // ABC hint from the planted expected annual value: A = first 80 % of value, B = next 15 %, C = the rest.
  const value = new Float64Array(items.length);
  for (let k = 0; k < n; k++) {
    const t = seriesTruth(plan, k);
    value[seriesItem[k]] += t.p_demand * t.base_level * 52 * items[seriesItem[k]].unit_price;
  }
  const order = Array.from(items.keys()).sort((a, b) => value[b] - value[a] || a - b);
  const total = value.reduce((s, v) => s + v, 0) || 1;
  let cum = 0;
  for (const i of order) {
    const before = cum / total;
    cum += value[i];
    items[i].abc_hint = before < 0.8 ? 'A' : before < 0.95 ? 'B' : 'C';
  }
  return plan;
}

function buildNetwork(seed: number, count: number): { sites: SiteRow[]; siteInfo: SiteInfo[]; routes: RouteRow[] } {
  const rng = Rng.derive(seed, 'network');
  const plants = count >= 12 ? 2 : 1;
  const dcs = count === 1 ? 0 : Math.min(count - plants, clamp(Math.round(Math.sqrt(count) / 1.5), 1, 15));
  const stores = count - plants - dcs;
  const cities = rng.shuffle(CITIES.slice());
  const cityName = (i: number): string => {
    const lap = Math.floor(i / cities.length);
    return cities[i % cities.length] + (lap > 0 ? ` ${lap + 1}` : '');
  };
  const width = Math.max(4, String(stores).length);
  const sites: SiteRow[] = [];
  const siteInfo: SiteInfo[] = [];
  let c = 0;
  for (let i = 0; i < plants; i++) {
    sites.push({ xuid: `PLANT${pad(i + 1, 2)}`, name: `Plant ${cityName(c++)}`, site_type: 'plant' });
    siteInfo.push({ type: 'plant', size: 1.2, inboundLeadTime: 0 });
  }
  for (let i = 0; i < dcs; i++) {
    sites.push({ xuid: `DC${pad(i + 1, 2)}`, name: `DC ${cityName(c++)}`, site_type: 'dc' });
    siteInfo.push({ type: 'dc', size: round(2.5 * rng.lognormal(0, 0.25), 4), inboundLeadTime: 1 });
  }
  for (let i = 0; i < stores; i++) {
    sites.push({ xuid: `STORE${pad(i + 1, width)}`, name: `Store ${cityName(c++)}`, site_type: 'store' });
    siteInfo.push({ type: 'store', size: round(rng.lognormal(0, 0.5), 4), inboundLeadTime: 1 });
  }

  const routes: RouteRow[] = [];
  const route = (from: number, to: number, route_type: RouteRow['route_type'], lead_time: number, priority: number): void => {
    routes.push({ item_xuid: null, from_site_xuid: sites[from].xuid, to_site_xuid: sites[to].xuid, route_type, lead_time, priority });
  };
  const dcIndex = (d: number): number => plants + d;
  for (let d = 0; d < dcs; d++) {
    const primary = d % plants;
    const lead = rng.int(1, 3);
    siteInfo[dcIndex(d)].inboundLeadTime = lead;
    route(primary, dcIndex(d), 'REPLENISHMENT', lead, 1);
    if (plants > 1) route(1 - primary, dcIndex(d), 'REPLENISHMENT', lead + 1, 2);
  }
  for (let s = 0; s < stores; s++) {
    const store = plants + dcs + s;
    const primary = s % dcs;
    const lead = rng.bernoulli(0.8) ? 1 : 2;
    siteInfo[store].inboundLeadTime = lead;
    route(dcIndex(primary), store, 'REPLENISHMENT', lead, 1);
    if (dcs > 1 && rng.bernoulli(0.2)) route(dcIndex((primary + rng.int(1, dcs - 1)) % dcs), store, 'REPLENISHMENT', lead + 1, 2);
  }
  // Reverse flows: a tenth of the stores return to their DC, about a third of the DCs send repairs to a plant.
  for (let s = 0; s < stores; s++) {
    if (rng.bernoulli(0.1) || (s === stores - 1 && !routes.some((r) => r.route_type === 'RETURN'))) {
      route(plants + dcs + s, dcIndex(s % dcs), 'RETURN', rng.int(1, 2), 1);
    }
  }
  for (let d = 0; d < dcs; d++) {
    if (rng.bernoulli(0.3) || (d === dcs - 1 && !routes.some((r) => r.route_type === 'REPAIR'))) {
      route(dcIndex(d), d % plants, 'REPAIR', rng.int(2, 4), 1);
    }
  }
  return { sites, siteInfo, routes };
}

/**
 * The default calendar lists only exceptional weeks over the history and FUTURE_WEEKS beyond: the Christmas week
 * (0.6), the New Year week (0.8) and an annual stock-take closure, the week of the second Monday of August (0).
 */
function buildCalendar(startDay: number, weeks: number, granularity: Granularity): { calendars: CalendarRow[]; calendarFactor: Float64Array } {
  const calendarFactor = new Float64Array(weeks).fill(1);
  const calendars: CalendarRow[] = [];
  for (let t = 0; t < weeks + FUTURE_WEEKS; t++) {
    const monday = startDay + 7 * t;
    let factor = 1;
    let description = '';
    for (let d = 0; d < 7; d++) {
      const date = new Date((monday + d) * DAY_MS);
      const [month, day] = [date.getUTCMonth() + 1, date.getUTCDate()];
      if (month === 12 && day === 25) [factor, description] = [0.6, 'Christmas week'];
      if (month === 1 && day === 1) [factor, description] = [0.8, 'New Year week'];
    }
    const first = new Date(monday * DAY_MS);
    if (first.getUTCMonth() === 7 && first.getUTCDate() >= 8 && first.getUTCDate() <= 14) [factor, description] = [0, 'Annual stock-take closure'];
    if (factor === 1) continue;
    if (t < weeks) calendarFactor[t] = factor;
    if (granularity === 'daily') {
      for (let d = 0; d < 7; d++) calendars.push({ calendar: DEFAULT_CALENDAR, ds: formatDay(monday + d), factor, description });
    } else {
      calendars.push({ calendar: DEFAULT_CALENDAR, ds: formatDay(monday), factor, description });
    }
  }
  return { calendars, calendarFactor };
}

function buildItems(seed: number, count: number, weeks: number, weekDs: string[]): { items: ItemRow[]; itemInfo: ItemInfo[]; supersession: SupersessionRow[] } {
  const rng = Rng.derive(seed, 'items');
  const width = Math.max(5, String(count).length);
  const catWeights = CATEGORIES.map((c) => c.weight);
  const items: ItemRow[] = [];
  const itemInfo: ItemInfo[] = [];
  const lifecycleOk = weeks >= 52;
  for (let i = 0; i < count; i++) {
    const category = CATEGORIES[rng.weightedIndex(catWeights)];
    const unit_price = Math.max(0.49, round(rng.lognormal(Math.log(category.price), 0.55), 2));
    const margin = rng.uniform(0.1, 0.6);
    const avg_unit_cost = Math.max(0.01, round(unit_price * (1 - margin), 2));
    const name = `${rng.pick(BRANDS)} ${rng.pick(category.nouns)} ${rng.pick(category.variants)}`;
    const popularity = rng.lognormal(0, 1);
    let launch = 0;
    let end = weeks - 1;
    let lifecycle: Lifecycle = 'regular';
    const u = rng.next();
    if (lifecycleOk && u < 0.1) {
      launch = rng.int(Math.floor(weeks / 6), weeks - 20);
      lifecycle = 'new';
    } else if (lifecycleOk && u < 0.16) {
      end = rng.int(Math.floor(weeks / 2), weeks - 9);
      lifecycle = 'discontinued';
    }
    const packSize = unit_price < 5 ? rng.pick([12, 24, 50, 100]) : unit_price < 20 ? rng.pick([6, 12, 24]) : unit_price < 100 ? rng.pick([1, 2, 4, 6]) : 1;
    items.push({ xuid: `SKU${pad(i + 1, width)}`, name, avg_unit_cost, unit_price, image_url: null, category: category.name });
    itemInfo.push({ category, popularity, launch, end, lifecycle, promoWeeks: [], promoUplift: 1, packSize, productionLeadTime: rng.int(1, 4) });
  }

  // Supersession chains: each item stops the week before its successor (same category where possible) starts. The
  // first chain runs over three generations (A → B → C, B living between the two dates) when the history spans a
  // year, so the demo shows a middle item and demand that moves two steps; the others are single replacements.
  const supersession: SupersessionRow[] = [];
  const chains = count < 2 || weeks < 26 ? 0 : count < 50 ? 2 : clamp(Math.round(count * 0.01), 2, 200);
  const used = new Set<number>();
  const pickFree = (fits: (i: number) => boolean): number => {
    for (let a = 0; a < 50; a++) {
      const i = rng.int(0, count - 1);
      if (!used.has(i) && fits(i)) return i;
    }
    return -1;
  };
  for (let c = 0; c < chains; c++) {
    const length = c === 0 && lifecycleOk && count >= 5 ? 3 : 2;
    const members = [pickFree(() => true)];
    if (members[0] < 0) break;
    used.add(members[0]);
    while (members.length < length) {
      const category = itemInfo[members[0]].category;
      let next = pickFree((i) => itemInfo[i].category === category);
      if (next < 0) next = pickFree(() => true);
      if (next < 0) break;
      used.add(next);
      members.push(next);
    }
    if (members.length < 2) break;
    // the week each successor takes over; a middle item lives at least 13 weeks
    const effective = members.length === 3
      ? (() => {
        const first = rng.int(Math.floor(weeks / 3), Math.floor(weeks / 2));
        return [first, rng.int(first + 13, Math.max(first + 13, weeks - 20))];
      })()
      : [rng.int(Math.floor(weeks / 2), Math.max(Math.floor(weeks / 2), weeks - 20))];
    members.forEach((item, g) => {
      const launch = g === 0 ? 0 : effective[g - 1];
      const end = g === members.length - 1 ? weeks - 1 : effective[g] - 1;
      Object.assign(itemInfo[item], { launch, end, lifecycle: g === 0 ? 'discontinued' : 'new' });
    });
    for (let g = 0; g + 1 < members.length; g++) {
      const r = rng.next();
      supersession.push({
        old_item_xuid: items[members[g]].xuid, new_item_xuid: items[members[g + 1]].xuid, effective_date: weekDs[effective[g]],
        ratio: r < 0.8 ? 1 : r < 0.9 ? 2 : 0.5,
      });
    }
  }

  // Promotions are item-wide (every site of a promoted item sees the same weeks): a third of the items, one to three
  // one- or two-week promotions a year.
  for (let i = 0; i < count; i++) {
    const info = itemInfo[i];
    const prng = Rng.derive(seed, 'promo', i);
    if (!prng.bernoulli(0.35) || info.end - info.launch < 12) continue;
    const events = Math.max(1, Math.round(((info.end - info.launch + 1) / 52) * prng.uniform(1, 3)));
    const set = new Set<number>();
    for (let e = 0; e < events; e++) {
      const start = prng.int(info.launch + 2, info.end - 3);
      const length = prng.bernoulli(0.6) ? 1 : 2;
      for (let w = start; w < start + length; w++) set.add(w);
    }
    info.promoWeeks = [...set].sort((a, b) => a - b);
    info.promoUplift = prng.uniform(1.3, 2.2);
  }
  return { items, itemInfo, supersession };
}

/** How many sites each item is stocked at (popular items at more sites), then which ones (bigger sites likelier). */
function allocateSeries(seed: number, itemInfo: ItemInfo[], siteInfo: SiteInfo[], target: number): { seriesItem: Int32Array; seriesSite: Int32Array } {
  const nItems = itemInfo.length;
  const nSites = siteInfo.length;
  // Hamilton apportionment of the target over items by popularity^0.7 (at least one site, at most all of them).
  const weight = itemInfo.map((it) => Math.pow(it.popularity, 0.7));
  const weightSum = weight.reduce((s, w) => s + w, 0);
  const breadth = new Int32Array(nItems);
  const fraction = new Float64Array(nItems);
  let assigned = 0;
  for (let i = 0; i < nItems; i++) {
    const ideal = 1 + ((target - nItems) * weight[i]) / weightSum;
    breadth[i] = Math.min(nSites, Math.floor(ideal));
    fraction[i] = breadth[i] === nSites ? -1 : ideal - Math.floor(ideal);
    assigned += breadth[i];
  }
  const byFraction = Array.from(itemInfo.keys()).sort((a, b) => fraction[b] - fraction[a] || weight[b] - weight[a] || a - b);
  const byWeight = Array.from(itemInfo.keys()).sort((a, b) => weight[b] - weight[a] || a - b);
  for (const order of [byFraction, byWeight]) {
    while (assigned < target) {
      let added = 0;
      for (const i of order) {
        if (assigned >= target) break;
        if (breadth[i] < nSites) {
          breadth[i]++;
          assigned++;
          added++;
        }
      }
      if (order === byFraction || added === 0) break;
    }
  }
  const siteWeight = siteInfo.map((s) => (s.type === 'store' ? s.size : s.type === 'dc' ? s.size * 0.6 : 0.25));
  const seriesItem = new Int32Array(target);
  const seriesSite = new Int32Array(target);
  const keys = new Float64Array(nSites);
  const idx = Array.from({ length: nSites }, (_, j) => j);
  let k = 0;
  for (let i = 0; i < nItems; i++) {
    let chosen: number[];
    if (breadth[i] === nSites) {
      chosen = idx.slice();
    } else {
      // Efraimidis-Spirakis weighted sampling without replacement: the k largest log(u)/w.
      const rng = Rng.derive(seed, 'alloc', i);
      for (let j = 0; j < nSites; j++) keys[j] = Math.log(rng.next()) / siteWeight[j];
      chosen = idx.slice().sort((a, b) => keys[b] - keys[a] || a - b).slice(0, breadth[i]).sort((a, b) => a - b);
    }
    for (const j of chosen) {
      seriesItem[k] = i;
      seriesSite[k] = j;
      k++;
    }
  }
  return { seriesItem, seriesSite };
}

function frequencyScore(seed: number, k: number, item: ItemInfo, site: SiteInfo): number {
  return Math.log(item.popularity) + Math.log(site.size) + Rng.derive(seed, 'series', k).normal(0, 0.8);
}

// ───────────────────────────── per series ─────────────────────────────

/** The planted process of series k (0-based, in the order of `truth` and of the demand stream). */
export function seriesTruth(plan: DemoPlan, k: number): SeriesTruth {
  const { seed, weeks } = plan.options;
  const itemIdx = plan.seriesItem[k];
  const siteIdx = plan.seriesSite[k];
  const item = plan.itemInfo[itemIdx];
  const site = plan.siteInfo[siteIdx];
  const rng = Rng.derive(seed, 'series', k);
  const score = Math.log(item.popularity) + Math.log(site.size) + rng.normal(0, 0.8); // = frequencyScore
  const frequent = score >= plan.scoreThreshold;
  const pattern: Pattern = frequent
    ? rng.bernoulli(PATTERN_MIX.smooth / (PATTERN_MIX.smooth + PATTERN_MIX.erratic)) ? 'smooth' : 'erratic'
    : rng.bernoulli(PATTERN_MIX.intermittent / (PATTERN_MIX.intermittent + PATTERN_MIX.lumpy)) ? 'intermittent' : 'lumpy';

  const scale = Math.pow(item.popularity, 0.5) * Math.sqrt(site.size);
  let p: number, cv: number, base: number;
  switch (pattern) {
    case 'smooth':
      p = rng.uniform(0.85, 1);
      cv = rng.uniform(0.1, 0.5);
      base = clamp(30 * Math.pow(item.popularity, 0.6) * site.size * rng.lognormal(0, 0.5), 6, 5000);
      break;
    case 'erratic':
      p = rng.uniform(0.85, 1);
      cv = rng.uniform(0.75, 1.4);
      base = clamp(30 * Math.pow(item.popularity, 0.6) * site.size * rng.lognormal(0, 0.5), 6, 5000);
      break;
    case 'intermittent':
      p = rng.uniform(0.1, 0.7);
      cv = rng.uniform(0.1, 0.55);
      base = clamp(1 + 2 * scale * rng.lognormal(0, 0.5), 1, 6);
      break;
    case 'lumpy':
      p = rng.uniform(0.1, 0.7);
      cv = rng.uniform(0.85, 1.6);
      base = clamp(10 * scale * rng.lognormal(0, 0.6), 3, 80);
      break;
  }
  base = round(base, 2);
  const trendPerYear = clamp(rng.normal(item.lifecycle === 'new' ? 0.08 : 0.02, 0.1), -0.2, 0.3);
  const seasonal = rng.bernoulli(0.15 + 0.7 * item.category.season);
  const amplitude = seasonal ? round(rng.uniform(0.15, 0.4), 3) : 0;
  const peak = (((item.category.peak + rng.int(-3, 3)) % 52) + 52) % 52;
  const first = Math.min(item.end, item.launch + (item.lifecycle === 'new' && site.type === 'store' ? rng.int(0, 3) : 0));
  const outlierFactor = round(rng.uniform(2.5, 5), 3);
  const outliers: number[] = [];
  for (let t = first; t <= item.end; t++) if (rng.next() < 0.004) outliers.push(t);
  const promoUplift = item.promoWeeks.length ? round(item.promoUplift * rng.lognormal(0, 0.08), 3) : 1;
  const dip = item.promoWeeks.length ? round(rng.uniform(0.6, 0.85), 3) : 1;

  return {
    item_xuid: plan.items[itemIdx].xuid,
    site_xuid: plan.sites[siteIdx].xuid,
    pattern,
    base_level: base,
    trend_per_week: round((base * trendPerYear) / 52, 5),
    seasonal_amplitude: amplitude,
    seasonal_peak_week: peak,
    seasonal_phase: (((peak - plan.startWeekOfYear) % 52) + 52) % 52,
    p_demand: round(p, 4),
    size_cv: round(cv, 4),
    lifecycle: item.lifecycle,
    first_week: first,
    last_week: item.end,
    first_ds: plan.weekDs[first],
    last_ds: plan.weekDs[item.end],
    promo_weeks: item.promoWeeks.filter((w) => w >= first),
    promo_uplift: promoUplift,
    post_promo_dip: dip,
    outlier_weeks: outliers,
    outlier_factor: outlierFactor,
  };
}

/** seasonal(t) of a series' truth, t = history week index. */
export function seasonalFactor(truth: SeriesTruth, t: number): number {
  return 1 + truth.seasonal_amplitude * Math.cos((2 * Math.PI * (t - truth.seasonal_phase)) / 52);
}

/** Everything but the random size: m(t) of SeriesTruth (calendar factor passed in; 1 if omitted). */
export function levelMultiplier(truth: SeriesTruth, t: number, calendarFactor = 1): number {
  if (t < truth.first_week || t > truth.last_week) return 0;
  const trend = Math.max(0.2, 1 + ((t - truth.first_week) * truth.trend_per_week) / truth.base_level);
  let promo = 1;
  if (truth.promo_weeks.length) {
    if (truth.promo_weeks.includes(t)) promo = truth.promo_uplift;
    else if (truth.promo_weeks.includes(t - 1)) promo = truth.post_promo_dip;
  }
  return trend * seasonalFactor(truth, t) * promo * calendarFactor;
}

/** The planted mean demand of week t (outliers and integer rounding excluded). */
export function expectedDemand(truth: SeriesTruth, t: number, calendarFactor = 1): number {
  const m = levelMultiplier(truth, t, calendarFactor);
  if (m === 0) return 0;
  return truth.pattern === 'smooth' || truth.pattern === 'erratic'
    ? truth.p_demand * truth.base_level * m
    : Math.min(0.95, truth.p_demand * m) * truth.base_level;
}

/** Weekly quantities of series k (index = history week), zeros included. */
function simulateWeekly(plan: DemoPlan, k: number, truth: SeriesTruth, out: Float64Array): void {
  out.fill(0);
  const rng = Rng.derive(plan.options.seed, 'demand', k);
  const frequent = truth.pattern === 'smooth' || truth.pattern === 'erratic';
  const promo = new Set(truth.promo_weeks);
  const outliers = new Set(truth.outlier_weeks);
  const { base_level: base, p_demand: p, size_cv: cv } = truth;
  for (let t = truth.first_week; t <= truth.last_week; t++) {
    const cal = plan.calendarFactor[t];
    if (cal === 0) continue;
    const trend = Math.max(0.2, 1 + ((t - truth.first_week) * truth.trend_per_week) / base);
    const promoFactor = promo.has(t) ? truth.promo_uplift : promo.has(t - 1) ? truth.post_promo_dip : 1;
    const m = trend * seasonalFactor(truth, t) * promoFactor * cal;
    const pt = frequent ? p : Math.min(0.95, p * m);
    const mean = frequent ? base * m : base;
    // Draw both numbers every week so the stream position never depends on the outcome.
    const occurs = rng.next() < pt;
    const size = rng.gammaMeanCv(mean, cv);
    if (!occurs) continue;
    let q = Math.max(1, Math.round(size));
    if (outliers.has(t)) q = Math.round(q * truth.outlier_factor);
    out[t] = q;
  }
}

/** Splits a week's quantity over its days (multinomial on the site's weekday profile). */
function splitDaily(rng: Rng, qty: number, profile: number[], out: number[]): void {
  let left = qty;
  let weight = 1;
  for (let d = 0; d < 7; d++) {
    const w = profile[d];
    const q = d === 6 || weight - w <= 1e-12 ? left : rng.binomial(left, Math.min(1, w / weight));
    out[d] = q;
    left -= q;
    weight -= w;
  }
}

export interface SeriesDemand {
  /** 0-based series index (order of item_site and truth). */
  index: number;
  truth: SeriesTruth;
  /** Non-zero rows only, ascending ds. */
  rows: DemandRow[];
}

/** One series at a time: its truth and its non-zero demand rows. Memory stays flat however many series there are. */
export function* demandBySeries(source: DemoOptions | DemoPlan): Generator<SeriesDemand> {
  const plan = planOf(source);
  const { weeks, granularity, seed } = plan.options;
  const weekly = new Float64Array(weeks);
  const days: number[] = new Array(7).fill(0);
  for (let k = 0; k < plan.seriesItem.length; k++) {
    const truth = seriesTruth(plan, k);
    simulateWeekly(plan, k, truth, weekly);
    const rows: DemandRow[] = [];
    const { item_xuid, site_xuid } = truth;
    if (granularity === 'weekly') {
      for (let t = 0; t < weeks; t++) if (weekly[t] > 0) rows.push({ item_xuid, site_xuid, ds: plan.weekDs[t], qty: weekly[t] });
    } else {
      const rng = Rng.derive(seed, 'daily', k);
      const profile = DAY_PROFILE[plan.siteInfo[plan.seriesSite[k]].type];
      for (let t = 0; t < weeks; t++) {
        if (weekly[t] === 0) continue;
        splitDaily(rng, weekly[t], profile, days);
        for (let d = 0; d < 7; d++) if (days[d] > 0) rows.push({ item_xuid, site_xuid, ds: plan.dayDs![7 * t + d], qty: days[d] });
      }
    }
    yield { index: k, truth, rows };
  }
}

/** The demand_history rows, series by series (item order, then site), weeks ascending; zero buckets are omitted. */
export function* demandRows(source: DemoOptions | DemoPlan): Generator<DemandRow> {
  for (const series of demandBySeries(source)) {
    const rows = series.rows;
    for (let i = 0; i < rows.length; i++) yield rows[i];
  }
}

// ───────────────────────────── master data and the whole dataset ─────────────────────────────

function itemSiteRow(plan: DemoPlan, k: number, truth: SeriesTruth): ItemSiteRow {
  const item = plan.itemInfo[plan.seriesItem[k]];
  const site = plan.siteInfo[plan.seriesSite[k]];
  const rng = Rng.derive(plan.options.seed, 'item-site', k);
  const costFactor = site.type === 'plant' ? 1 : site.type === 'dc' ? 1.03 : 1.07;
  const unit_cost = Math.max(0.01, round(plan.items[plan.seriesItem[k]].avg_unit_cost * costFactor * rng.lognormal(0, 0.02), 2));
  const lead_time_weeks = site.type === 'plant' ? item.productionLeadTime : site.inboundLeadTime;
  const { p_demand: p, base_level: mu, size_cv: cv } = truth;
  const weeklyMean = p * mu;
  const weeklySd = Math.sqrt(Math.max(0, p * mu * mu * (1 + cv * cv - p)));
  const safety_stock = Math.ceil(1.65 * weeklySd * Math.sqrt(lead_time_weeks));
  const active = truth.last_week === plan.options.weeks - 1;
  const on_hand = !active
    ? rng.int(0, Math.ceil(weeklyMean))
    : rng.bernoulli(0.15)
      ? Math.round(safety_stock * rng.next())
      : Math.round(safety_stock + weeklyMean * rng.uniform(0.5, 4));
  const order_multiple = site.type === 'store' ? item.packSize : item.packSize * (item.packSize === 1 ? rng.pick([1, 5, 10]) : rng.pick([1, 2, 4]));
  const moq = order_multiple * (site.type === 'plant' ? rng.int(5, 20) : site.type === 'dc' ? rng.int(1, 5) : 1);
  return { item_xuid: truth.item_xuid, site_xuid: truth.site_xuid, unit_cost, lead_time_weeks, on_hand, safety_stock, moq, order_multiple };
}

function firmOrders(plan: DemoPlan, itemSite: (k: number) => ItemSiteRow, truthOf: (k: number) => SeriesTruth): FirmOrderRow[] {
  const n = plan.seriesItem.length;
  const { seed, weeks } = plan.options;
  const rng = Rng.derive(seed, 'firm-orders');
  const count = Math.max(1, Math.round(n * 0.04));
  const startDay = parseDay(plan.options.startWeek);
  const chosen = new Set<number>();
  for (let attempts = 0; chosen.size < count && attempts < count * 20; attempts++) {
    const k = rng.int(0, n - 1);
    if (truthOf(k).last_week === weeks - 1) chosen.add(k);
  }
  const orders: FirmOrderRow[] = [];
  const width = Math.max(6, String(count).length);
  for (const k of [...chosen].sort((a, b) => a - b)) {
    const truth = truthOf(k);
    const is = itemSite(k);
    const need = Math.max(is.moq, truth.p_demand * truth.base_level * rng.int(1, 4));
    orders.push({
      order_ref: `FO-${pad(orders.length + 1, width)}`,
      item_xuid: truth.item_xuid,
      site_xuid: truth.site_xuid,
      qty: Math.ceil(need / is.order_multiple) * is.order_multiple,
      due_date: formatDay(startDay + 7 * (weeks + rng.int(0, 7))),
      status: 'open',
    });
  }
  return orders;
}

/** Every table except demand_history (and the per-series truth): O(series) rows, no demand simulated. */
export function generateMasterData(source: DemoOptions | DemoPlan): DemoMasterData {
  const plan = planOf(source);
  const n = plan.seriesItem.length;
  const item_site: ItemSiteRow[] = new Array(n);
  const truthCache = new Map<number, SeriesTruth>();
  const truthOf = (k: number): SeriesTruth => {
    let t = truthCache.get(k);
    if (!t) truthCache.set(k, (t = seriesTruth(plan, k)));
    return t;
  };
  for (let k = 0; k < n; k++) item_site[k] = itemSiteRow(plan, k, seriesTruth(plan, k));
  return {
    options: plan.options,
    items: plan.items,
    sites: plan.sites,
    item_site,
    routes: plan.routes,
    calendars: plan.calendars,
    firm_orders: firmOrders(plan, (k) => item_site[k], truthOf),
    supersession: plan.supersession,
  };
}

/** The whole tenant in memory; fine up to a few thousand series — use demandRows for more. */
export function generateDemoData(opts: DemoOptions | DemoPlan): DemoDataset {
  const plan = planOf(opts);
  const master = generateMasterData(plan);
  const demand_history: DemandRow[] = [];
  const truth: SeriesTruth[] = [];
  for (const series of demandBySeries(plan)) {
    truth.push(series.truth);
    for (const row of series.rows) demand_history.push(row);
  }
  return { ...master, demand_history, truth };
}

// ───────────────────────────── measuring ─────────────────────────────

export interface DemandClass {
  /** Mean interval between consecutive non-zero periods (NaN with fewer than two). */
  adi: number;
  /** Squared coefficient of variation of the non-zero sizes (population variance). */
  cv2: number;
  nonZero: number;
  pattern: Pattern | null;
}

/** Syntetos-Boylan classification (ADI cut-off 1.32, CV² cut-off 0.49) of a series given as (period index, qty) pairs. */
export function classifyDemand(periods: ArrayLike<number>, sizes: ArrayLike<number>): DemandClass {
  const n = sizes.length;
  if (n < 2) return { adi: NaN, cv2: NaN, nonZero: n, pattern: null };
  const adi = (periods[n - 1] - periods[0]) / (n - 1);
  let mean = 0;
  for (let i = 0; i < n; i++) mean += sizes[i];
  mean /= n;
  let v = 0;
  for (let i = 0; i < n; i++) v += (sizes[i] - mean) ** 2;
  const cv2 = v / n / (mean * mean);
  const pattern: Pattern = adi < 1.32 ? (cv2 < 0.49 ? 'smooth' : 'erratic') : cv2 < 0.49 ? 'intermittent' : 'lumpy';
  return { adi, cv2, nonZero: n, pattern };
}
