/**
 * The conservation check run on every plan, from the outputs alone (so it checks the engine rather than repeating it):
 *
 * - every SKU-site-week: closing = opening + firm receipts + engine receipts - gross, with engine receipts rebuilt from
 *   the orders, indirect demand rebuilt from the indirect rows, and gross = demand + indirect - returns;
 * - every order: its pegging adds up to its quantity; it arrives within the horizon; it is released before week 0
 *   only when flagged late; it arrives no earlier than it is released.
 */
import type { SupplyChecks, SupplyRunResult } from './types';

// Module-level aliases: inside vm contexts (jest) every lookup of a global such as Math is intercepted (see
// inventory/random.ts); these run for every SKU-site-week.
const { abs, max } = Math;

const MAX_MESSAGES = 20;

export function checkSupplyResult(result: Pick<SupplyRunResult, 'orders' | 'plans' | 'indirect'>, horizon: number): SupplyChecks {
  const violations: string[] = [];
  const report = (msg: string) => {
    if (violations.length < MAX_MESSAGES) violations.push(msg);
  };
  const H = horizon;
  // Rebuilt weekly arrays, one row of H per plan, in one buffer (a typed array per SKU-site costs the GC dearly).
  const key = (item: number, site: number) => `${item}:${site}`;
  const row = new Map<string, number>();
  result.plans.forEach((p, i) => row.set(key(p.item_id, p.site_id), i));
  const receipts = new Float64Array(result.plans.length * H);
  const indirect = new Float64Array(result.plans.length * H);
  const rowOf = (item: number, site: number, what: string): number | undefined => {
    const r = row.get(key(item, site));
    if (r === undefined) report(`${key(item, site)}: ${what} for a SKU-site with no plan`);
    return r;
  };

  let maxPeg = 0;
  for (const o of result.orders) {
    if (!(o.arrival_week >= 0 && o.arrival_week < H && Number.isInteger(o.arrival_week))) report(`order ${o.id}: arrival week ${o.arrival_week} outside 0..${H - 1}`);
    else {
      const r = rowOf(o.item_id, o.site_id, `order ${o.id}`);
      if (r !== undefined) receipts[r * H + o.arrival_week] += o.qty;
    }
    if (o.release_week < 0 && !o.late) report(`order ${o.id}: released in week ${o.release_week} without being flagged late`);
    if (o.release_week > o.arrival_week) report(`order ${o.id}: released after it arrives`);
    if (!(o.qty > 0)) report(`order ${o.id}: quantity ${o.qty}`);
    let pegged = 0;
    for (const p of o.pegging) pegged += p.qty;
    const r = abs(pegged - o.qty) / max(1, o.qty);
    maxPeg = max(maxPeg, r);
    if (r > 1e-9) report(`order ${o.id}: pegging adds up to ${pegged}, quantity ${o.qty}`);
  }
  for (const ind of result.indirect) {
    if (ind.week >= 0 && ind.week < H) {
      const r = rowOf(ind.item_id, ind.site_id, 'indirect demand');
      if (r !== undefined) indirect[r * H + ind.week] += ind.qty;
    } else report(`indirect row of site ${ind.site_id}: week ${ind.week} outside the horizon`);
  }

  let maxCons = 0;
  result.plans.forEach((p, i) => {
    const k = key(p.item_id, p.site_id);
    if (row.get(k) !== i) report(`${k}: more than one plan`);
    let prev = p.opening;
    for (let t = 0; t < H; t++) {
      const scale = max(1, abs(prev), p.gross[t]!, p.receipts_planned[t]!);
      const planned = receipts[i * H + t]!;
      const indirectT = indirect[i * H + t]!;
      if (abs(planned - p.receipts_planned[t]!) > 1e-9 * scale) report(`${k} week ${t}: engine receipts ${p.receipts_planned[t]} but orders arrive ${planned}`);
      if (abs(indirectT - p.indirect[t]!) > 1e-9 * scale) report(`${k} week ${t}: indirect ${p.indirect[t]} but rows sum to ${indirectT}`);
      const gross = p.demand[t]! + indirectT - p.returns[t]!;
      if (abs(gross - p.gross[t]!) > 1e-9 * scale) report(`${k} week ${t}: gross ${p.gross[t]} is not demand + indirect - returns = ${gross}`);
      const closing = prev + p.receipts_firm[t]! + planned - gross;
      const residual = abs(closing - p.projected[t]!) / scale;
      maxCons = max(maxCons, residual);
      if (residual > 1e-9) report(`${k} week ${t}: opening ${prev} + receipts ${p.receipts_firm[t]! + planned} - gross ${gross} = ${closing}, projected ${p.projected[t]}`);
      if (abs(p.shortage[t]! - max(0, -p.projected[t]!)) > 1e-9 * scale) report(`${k} week ${t}: shortage is not max(0, -projected)`);
      prev = p.projected[t]!;
    }
  });
  return { ok: violations.length === 0, max_conservation_residual: maxCons, max_pegging_residual: maxPeg, violations };
}
