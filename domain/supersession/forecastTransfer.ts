/**
 * Document 2 §4.4 rule 3 on stored forecasts (docs/SUPERSESSION.md, "Effects on forecasting, supply and indirect
 * demand"): the predecessor's forecast is zeroed and its values × demand_factor are added to the successor's forecast
 * of the same method, site and week; a dated edge acts from the week of its effective date; a site-scoped edge only at
 * its site; chains compose. Pure: the forecast step's finalize loads the rows and writes back what `planForecastTransfer`
 * says (db/forecastSupersession.ts).
 */
import { addWeeks, mondayOf, weeksBetween } from '../time/weeks';
import type { Edge } from './edges';

export type TransferEdge = Pick<Edge, 'id' | 'from_item_id' | 'to_item_id' | 'site_id' | 'effective_date' | 'demand_factor'>;

/** One method's weekly forecast of a series: element i is the week start_week + 7·i days. */
export interface ForecastBand {
  item_id: number;
  site_id: number;
  method: string;
  start_week: string;
  yhat: number[];
  yhat_lower: number[];
  yhat_upper: number[];
}

/** An edge applied to a row: `from` on the predecessor (weeks zeroed), `to` on the successor (weeks added). */
export interface AppliedEdge {
  edge_id: number;
  role: 'from' | 'to';
  from_week: string;
  to_week: string;
}

export type Transferred<T extends ForecastBand> = T & {
  /** a successor row that did not exist: made with the predecessor's weeks, zero before the transfer */
  created: boolean;
  applied: AppliedEdge[];
};

const BANDS = ['yhat', 'yhat_lower', 'yhat_upper'] as const;
const rowKey = (item: number, site: number, method: string) => `${item}_${site}_${method}`;

/**
 * Applies the edges to the rows. Returns every row (input order, then the created successor rows); arrays are copies.
 * Per site, items are taken predecessors first, so A → B → C moves A's demand into B before B's (now with A's) moves
 * to C. An item with several successors at a site (a split) gives each successor factor × its value of that week.
 * A week moves when the edge is in force in it: no effective date, or the week's Monday on or after the Monday of the
 * effective date (the week holding the date moves whole: forecasts are weekly). A created row copies the
 * predecessor row's other fields (level, scenario, ...).
 */
export function transferForecasts<T extends ForecastBand>(rows: readonly T[], edges: readonly TransferEdge[]): Array<Transferred<T>> {
  const out: Array<Transferred<T>> = rows.map((r) => ({ ...r, yhat: [...r.yhat], yhat_lower: [...r.yhat_lower], yhat_upper: [...r.yhat_upper], created: false, applied: [] }));
  const byKey = new Map(out.map((r) => [rowKey(r.item_id, r.site_id, r.method), r]));
  const applied = new Map<Transferred<T>, Map<string, AppliedEdge>>();
  const note = (row: Transferred<T>, e: TransferEdge, role: 'from' | 'to', week: string) => {
    const m = applied.get(row) ?? new Map<string, AppliedEdge>();
    applied.set(row, m);
    const k = `${e.id}:${role}`;
    const a = m.get(k);
    if (!a) m.set(k, { edge_id: e.id, role, from_week: week, to_week: week });
    else {
      if (week < a.from_week) a.from_week = week;
      if (week > a.to_week) a.to_week = week;
    }
  };
  // rows by series, so each (site, item) finds its own without scanning all of them: at 100,000 series (60 sites, 51
  // edges, 49,000 rows) the scan made this one synchronous minute, which outlasted the finalize's heartbeat timeout
  const seriesKey = (item: number, site: number) => `${item}_${site}`;
  const bySeries = new Map<string, Array<Transferred<T>>>();
  const file = (r: Transferred<T>) => {
    const k = seriesKey(r.item_id, r.site_id);
    const list = bySeries.get(k);
    if (list) list.push(r);
    else bySeries.set(k, [r]);
  };
  out.forEach(file);
  const sites = [...new Set(rows.map((r) => r.site_id))].sort((a, b) => a - b);
  for (const site of sites) {
    const here = edges.filter((e) => e.site_id === null || e.site_id === site);
    for (const item of predecessorsFirst(here)) {
      const outgoing = here.filter((e) => e.from_item_id === item).sort((a, b) => a.id - b.id);
      if (!outgoing.length) continue;
      const startOf = new Map(outgoing.map((e) => [e.id, e.effective_date === null ? null : mondayOf(e.effective_date)]));
      // the current list: rows created for this item at this site by an earlier predecessor are included
      for (const p of [...(bySeries.get(seriesKey(item, site)) ?? [])]) {
        for (let j = 0; j < p.yhat.length; j++) {
          const week = addWeeks(p.start_week, j);
          const acting = outgoing.filter((e) => {
            const from = startOf.get(e.id);
            return from === null || from === undefined || from <= week;
          });
          if (!acting.length) continue;
          const v = BANDS.map((b) => p[b][j]);
          for (const e of acting) {
            const key = rowKey(e.to_item_id, site, p.method);
            let s = byKey.get(key);
            if (!s) {
              const zeros = () => new Array<number>(p.yhat.length).fill(0);
              s = { ...p, item_id: e.to_item_id, yhat: zeros(), yhat_lower: zeros(), yhat_upper: zeros(), created: true, applied: [] };
              byKey.set(key, s);
              out.push(s);
              file(s);
            }
            const k = weeksBetween(s.start_week, week);
            if (k >= 0 && k < s.yhat.length) {
              BANDS.forEach((b, i) => {
                if (Number.isFinite(v[i])) s![b][k] += e.demand_factor * v[i];
              });
              note(s, e, 'to', week);
            }
            note(p, e, 'from', week);
          }
          for (const b of BANDS) p[b][j] = 0;
        }
      }
    }
  }
  for (const [row, m] of applied) row.applied = [...m.values()].sort((a, b) => a.edge_id - b.edge_id || a.role.localeCompare(b.role));
  return out;
}

/**
 * The items of the edges, every predecessor before its successors. The edges of one site (global and that site's)
 * form no cycle (the API and the import refuse one); should one slip through, its items come last, by id.
 */
function predecessorsFirst(edges: readonly TransferEdge[]): number[] {
  const items = [...new Set(edges.flatMap((e) => [e.from_item_id, e.to_item_id]))].sort((a, b) => a - b);
  const indegree = new Map(items.map((i) => [i, 0]));
  for (const e of edges) indegree.set(e.to_item_id, indegree.get(e.to_item_id)! + 1);
  const order: number[] = [];
  let ready = items.filter((i) => indegree.get(i) === 0);
  while (ready.length) {
    const next: number[] = [];
    for (const i of ready) {
      order.push(i);
      for (const e of edges) {
        if (e.from_item_id !== i) continue;
        const d = indegree.get(e.to_item_id)! - 1;
        indegree.set(e.to_item_id, d);
        if (d === 0) next.push(e.to_item_id);
      }
    }
    ready = next.sort((a, b) => a - b);
  }
  return [...order, ...items.filter((i) => !order.includes(i))];
}

// ------------------------------------------------------------------------------------------------ stored rows

/**
 * What a transferred row keeps in `params.supersession`. `own` is the row's forecast before any transfer (absent on a
 * created row, whose own forecast is zero): the finalize always starts again from it, so running it twice, after a
 * partial re-run of the forecast step (which rewrites only its scope's rows, without the key) or after an edge changed
 * or was deleted gives the result of one transfer of the current forecasts by the current edges.
 */
export interface SupersessionMark {
  created: boolean;
  edges: AppliedEdge[];
  own?: { yhat: number[]; yhat_lower: number[]; yhat_upper: number[] };
}

export interface StoredBand extends ForecastBand {
  params: Record<string, unknown>;
}

export interface TransferPlan<T extends StoredBand> {
  /** rows to insert or update (whole row; `params` with the mark, or without it when no edge acts any more) */
  write: T[];
  /** created rows no edge feeds any more */
  remove: Array<{ item_id: number; site_id: number; method: string }>;
  /** series (item_site) whose demand moved to a successor */
  movedSeries: number;
}

const markOf = (params: Record<string, unknown>): SupersessionMark | undefined => params.supersession as SupersessionMark | undefined;

function withoutMark(params: Record<string, unknown>): Record<string, unknown> {
  const { supersession: _mark, ...rest } = params;
  return rest;
}

/** JSON with sorted keys: jsonb does not keep key order. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') return `{${Object.keys(v).sort().filter((k) => (v as any)[k] !== undefined).map((k) => `${JSON.stringify(k)}:${canonical((v as any)[k])}`).join(',')}}`;
  return JSON.stringify(v);
}

const sameBand = (a: ForecastBand, b: ForecastBand) => a.start_week === b.start_week && BANDS.every((k) => canonical(a[k]) === canonical(b[k]));

/**
 * The stored rows of a pipeline (the items of the edges, combination excluded: the best-method step builds it from
 * the members afterwards) → what to write so that they hold one transfer of their own forecasts by `edges`. Rows
 * already in that state are left out of `write`, so a second run writes nothing.
 */
export function planForecastTransfer<T extends StoredBand>(stored: readonly T[], edges: readonly TransferEdge[]): TransferPlan<T> {
  const own = stored.map((r) => {
    const m = markOf(r.params);
    if (!m) return r;
    if (m.created) {
      const zeros = () => new Array<number>(r.yhat.length).fill(0);
      return { ...r, yhat: zeros(), yhat_lower: zeros(), yhat_upper: zeros() };
    }
    return m.own ? { ...r, yhat: m.own.yhat, yhat_lower: m.own.yhat_lower, yhat_upper: m.own.yhat_upper } : r;
  });
  const result = transferForecasts(own, edges);
  const write: T[] = [];
  const remove: TransferPlan<T>['remove'] = [];
  const moved = new Set<string>();
  result.forEach((r, i) => {
    const before = i < stored.length ? stored[i] : undefined;
    const wasCreated = !!(before && markOf(before.params)?.created);
    const { created: _c, applied, ...row } = r;
    if (applied.some((a) => a.role === 'from')) moved.add(`${r.item_id}_${r.site_id}`);
    if (!applied.length) {
      if (wasCreated) remove.push({ item_id: r.item_id, site_id: r.site_id, method: r.method });
      else if (before && markOf(before.params)) write.push({ ...(row as unknown as T), params: withoutMark(before.params) });
      return;
    }
    const created = r.created || wasCreated;
    const ownBand = own[i];
    const mark: SupersessionMark = created
      ? { created: true, edges: applied }
      : { created: false, edges: applied, own: { yhat: [...ownBand.yhat], yhat_lower: [...ownBand.yhat_lower], yhat_upper: [...ownBand.yhat_upper] } };
    const base = before ? withoutMark(before.params) : {};
    const params = { ...base, supersession: mark };
    if (before && sameBand(before, row as ForecastBand) && canonical(before.params) === canonical(params)) return;
    write.push({ ...(row as unknown as T), params });
  });
  return { write, remove, movedSeries: moved.size };
}

/**
 * The items of `edges` and `alsoItems` in batches a transfer can plan one at a time: an edge moves demand only between
 * its two items, so a connected component of the edges (a chain, a split) is planned whole and never shares an item
 * with another. Components are packed, in order of their smallest item, into batches of at most `maxItems` items; a
 * component larger than that is a batch of its own. Each batch carries its components' edges.
 */
export function transferBatches<E extends TransferEdge>(
  edges: readonly E[], alsoItems: Iterable<number>, maxItems: number,
): Array<{ items: number[]; edges: E[] }> {
  const parent = new Map<number, number>();
  const root = (i: number): number => {
    let r = i;
    while (parent.get(r) !== r) r = parent.get(r)!;
    for (let x = i; x !== r;) { const next = parent.get(x)!; parent.set(x, r); x = next; }
    return r;
  };
  const add = (i: number) => { if (!parent.has(i)) parent.set(i, i); };
  for (const e of edges) {
    add(e.from_item_id);
    add(e.to_item_id);
    const a = root(e.from_item_id);
    const b = root(e.to_item_id);
    if (a !== b) parent.set(Math.max(a, b), Math.min(a, b));
  }
  for (const i of alsoItems) add(i);
  const components = new Map<number, { items: number[]; edges: E[] }>();
  for (const i of [...parent.keys()].sort((x, y) => x - y)) {
    const r = root(i);
    const c = components.get(r) ?? { items: [], edges: [] };
    c.items.push(i);
    components.set(r, c);
  }
  for (const e of edges) components.get(root(e.from_item_id))!.edges.push(e);
  const batches: Array<{ items: number[]; edges: E[] }> = [];
  let open: { items: number[]; edges: E[] } | null = null;
  for (const c of components.values()) {
    if (open && open.items.length + c.items.length <= maxItems) {
      open.items.push(...c.items);
      open.edges.push(...c.edges);
    } else {
      open = { items: [...c.items], edges: [...c.edges] };
      batches.push(open);
    }
  }
  return batches;
}
