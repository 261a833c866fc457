/**
 * The backtest as a planner reads it (docs/SERVICE_BACKTEST.md "Reading the results"): per group (all, demand class,
 * ABC class, segment) and variant, the average target against the average achieved fill rate, the cycle service
 * level, and the stock it took; and, from the target sweep, the stock our targets need to reach the service a peer
 * achieved.
 */

/** One replayed SKU-site at one origin, as stored (snake_case: the database row and the API's item). */
export interface SummaryRow {
  item_id: number;
  site_id: number;
  origin_weeks: number;
  variant: string;
  target_service: number;
  fill_rate: number | null;
  cycle_service_level: number | null;
  average_on_hand: number;
  unit_cost: number;
  demand: number;
  served_from_stock: number;
  stockout_weeks: number;
  demand_class: string | null;
  abc_class: string | null;
  segment_ids: readonly number[];
}

export const GROUP_BY = ['all', 'demand_class', 'abc_class', 'segment'] as const;
export type GroupBy = (typeof GROUP_BY)[number];

export interface VariantFigures {
  variant: string;
  /** SKU-site × origin replays with demand in the held-out weeks */
  sku_sites: number;
  mean_target: number;
  /** the unweighted mean of the SKU-sites' fill rates: what "on average per SKU-site" means */
  mean_fill_rate: number;
  /** achieved minus target, in points of fill rate */
  gap_points: number;
  /** units served from stock over units asked, all SKU-sites pooled */
  pooled_fill_rate: number | null;
  mean_cycle_service_level: number | null;
  /** the sum over SKU-sites of average on hand × unit cost */
  inventory_value: number;
  on_hand_units: number;
  stockout_weeks: number;
}

export interface SweepPoint {
  target_service: number;
  mean_fill_rate: number;
  inventory_value: number;
  on_hand_units: number;
}

export interface EqualService {
  peer: string;
  peer_fill_rate: number;
  peer_inventory_value: number;
  peer_on_hand_units: number;
  /** interpolated on the sweep at the peer's mean fill rate; null when the sweep does not reach it */
  ours_inventory_value: number | null;
  ours_on_hand_units: number | null;
  /** peer's stock minus ours at equal service, as a share of the peer's (positive: ours needs less) */
  saving: number | null;
}

export interface GroupSummary {
  group_by: GroupBy;
  group: string;
  variants: VariantFigures[];
  sweep: SweepPoint[];
  equal_service: EqualService[];
}

const PEERS = ['normal', 'bootstrap'];

function groupsOf(r: SummaryRow, by: GroupBy): string[] {
  switch (by) {
    case 'all':
      return ['all'];
    case 'demand_class':
      return [r.demand_class ?? 'unclassified'];
    case 'abc_class':
      return [r.abc_class ?? 'unclassified'];
    case 'segment':
      return r.segment_ids.length ? r.segment_ids.map(String) : ['none'];
  }
}

function figures(variant: string, rows: readonly SummaryRow[]): VariantFigures {
  const rated = rows.filter((r) => r.fill_rate !== null);
  const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
  const csl = rated.filter((r) => r.cycle_service_level !== null).map((r) => r.cycle_service_level!);
  const demand = rated.reduce((n, r) => n + r.demand, 0);
  const meanTarget = mean(rated.map((r) => r.target_service));
  const meanFill = mean(rated.map((r) => r.fill_rate!));
  return {
    variant,
    sku_sites: rated.length,
    mean_target: meanTarget,
    mean_fill_rate: meanFill,
    gap_points: 100 * (meanFill - meanTarget),
    pooled_fill_rate: demand > 0 ? rated.reduce((n, r) => n + r.served_from_stock, 0) / demand : null,
    mean_cycle_service_level: csl.length ? mean(csl) : null,
    inventory_value: rated.reduce((n, r) => n + r.average_on_hand * r.unit_cost, 0),
    on_hand_units: rated.reduce((n, r) => n + r.average_on_hand, 0),
    stockout_weeks: rated.reduce((n, r) => n + r.stockout_weeks, 0),
  };
}

/**
 * Linear interpolation of y at x along points sorted by x; null outside their range. The sweep's fill rate rises with
 * its target level; where sampling noise bends it back the points are taken in the order of their fill rate.
 */
export function interpolateAt(points: ReadonlyArray<{ x: number; y: number }>, x: number): number | null {
  const p = [...points].sort((a, b) => a.x - b.x || a.y - b.y);
  if (!p.length || x < p[0].x - 1e-12 || x > p[p.length - 1].x + 1e-12) return null;
  for (let i = 0; i < p.length; i++) {
    if (Math.abs(p[i].x - x) <= 1e-12) return p[i].y;
    if (i + 1 < p.length && p[i].x < x && x < p[i + 1].x) return p[i].y + ((x - p[i].x) / (p[i + 1].x - p[i].x)) * (p[i + 1].y - p[i].y);
  }
  return p[p.length - 1].y;
}

/** Rows that count, per group: replays with demand, of the SKU-site × origins that have a row of ours at the target. */
function groupRows(rows: readonly SummaryRow[], by: GroupBy): Array<[string, SummaryRow[]]> {
  const key = (r: SummaryRow) => `${r.item_id}_${r.site_id}_${r.origin_weeks}`;
  const ours = new Set(rows.filter((r) => r.variant === 'target' && r.fill_rate !== null).map(key));
  const groups = new Map<string, SummaryRow[]>();
  for (const r of rows) {
    if (r.fill_rate === null || !ours.has(key(r))) continue;
    for (const g of groupsOf(r, by)) {
      const members = groups.get(g);
      if (members) members.push(r);
      else groups.set(g, [r]);
    }
  }
  return [...groups].sort(([a], [b]) => a.localeCompare(b, 'en', { numeric: true }));
}

/** A curve of ours (the target sweep, or a portfolio sweep): one point per level of `variant`, in level order. */
function curveOf(members: readonly SummaryRow[], variant: string): SweepPoint[] {
  const byLevel = new Map<number, SummaryRow[]>();
  for (const r of members) {
    if (r.variant !== variant) continue;
    const list = byLevel.get(r.target_service);
    if (list) list.push(r);
    else byLevel.set(r.target_service, [r]);
  }
  return [...byLevel].sort(([a], [b]) => a - b).map(([level, list]) => {
    const f = figures(variant, list);
    return { target_service: level, mean_fill_rate: f.mean_fill_rate, inventory_value: f.inventory_value, on_hand_units: f.on_hand_units };
  });
}

/** Per peer, the stock ours takes along `curve` at the peer's achieved mean fill rate. */
function equalServiceAlong(curve: readonly SweepPoint[], peers: readonly VariantFigures[]): EqualService[] {
  return peers.map((peer) => {
    const value = interpolateAt(curve.map((s) => ({ x: s.mean_fill_rate, y: s.inventory_value })), peer.mean_fill_rate);
    const units = interpolateAt(curve.map((s) => ({ x: s.mean_fill_rate, y: s.on_hand_units })), peer.mean_fill_rate);
    const basis = peer.inventory_value > 0 ? { peer: peer.inventory_value, ours: value } : { peer: peer.on_hand_units, ours: units };
    return {
      peer: peer.variant, peer_fill_rate: peer.mean_fill_rate, peer_inventory_value: peer.inventory_value, peer_on_hand_units: peer.on_hand_units,
      ours_inventory_value: value, ours_on_hand_units: units,
      saving: basis.ours === null || !(basis.peer > 0) ? null : (basis.peer - basis.ours) / basis.peer,
    };
  });
}

/** The figures of each of `variants` that has rows among the members, in that order. */
const figuresOf = (members: readonly SummaryRow[], variants: readonly string[]): VariantFigures[] =>
  variants.map((v) => members.filter((r) => r.variant === v)).filter((list) => list.length).map((list) => figures(list[0].variant, list));

/**
 * Only SKU-site × origin replays with demand count, and in a group each variant is read over the same replays as
 * ours (the keys that have a 'target' row), so that the stock of two variants is the stock of the same SKU-sites.
 */
export function summarize(rows: readonly SummaryRow[], by: GroupBy): GroupSummary[] {
  return groupRows(rows, by).map(([group, members]) => {
    const variants = figuresOf(members, ['target', ...PEERS]);
    const sweep = curveOf(members, 'sweep');
    return { group_by: by, group, variants, sweep, equal_service: equalServiceAlong(sweep, variants.filter((v) => PEERS.includes(v.variant))) };
  });
}

export interface PortfolioSummary {
  group: string;
  /** ours along the portfolio sweep: a budget shared out over the items by marginal analysis, per budget level */
  curve: SweepPoint[];
  equal_service: EqualService[];
}

/** The same reading along a portfolio sweep (rows of variant 'portfolio', target_service the budget level). */
export function summarizePortfolio(rows: readonly SummaryRow[], by: GroupBy): PortfolioSummary[] {
  return groupRows(rows, by).map(([group, members]) => {
    const curve = curveOf(members, 'portfolio');
    return { group, curve, equal_service: equalServiceAlong(curve, figuresOf(members, PEERS)) };
  });
}
