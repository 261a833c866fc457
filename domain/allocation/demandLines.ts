/**
 * Demand lines of the allocation step from a supply run's SKU-site plans (docs/SUPPLY.md "Allocation step"): one line
 * `<item>_<site>:<week>` per week of the own forecast, due that week, netted of the opening stock first.
 *
 * Opening stock is on hand at week 0, so it serves the earliest lines, as the supply engine's netting and FIFO pegging
 * use it; the pool (engine orders and firm orders) is then allocated to what stock does not cover. Without netting,
 * the pool would be spread over demand the stock already serves and the served share would read too low.
 */
import type { DemandLine } from './model';

export interface PlanDemand {
  item_id: number;
  site_id: number;
  opening: number;
  demand: ReadonlyArray<number | null>;
  priority_class: string | null;
}

export const demandLineId = (itemId: number, siteId: number, week: number): string => `${itemId}_${siteId}:${week}`;

// Below this a remainder is float noise of the netting (0.3 - 0.1 - 0.2), not demand.
const NOISE = 1e-9;

export interface DemandLinesResult {
  lines: DemandLine[];
  /** Demand the opening stock served, summed over the plans. */
  opening_served: number;
  /** Forecast demand summed over the plans (null and negative weeks count 0). */
  forecast: number;
}

export function demandLines(plans: readonly PlanDemand[]): DemandLinesResult {
  const lines: DemandLine[] = [];
  let openingServed = 0;
  let forecast = 0;
  for (const p of plans) {
    // A backlog (negative opening) is not stock that can serve anything; it is not a forecast line either.
    let stock = Number.isFinite(p.opening) && p.opening > 0 ? p.opening : 0;
    for (let week = 0; week < p.demand.length; week++) {
      const q = p.demand[week];
      if (q === null || q === undefined || !(q > 0)) continue;
      forecast += q;
      const fromStock = Math.min(stock, q);
      stock -= fromStock;
      openingServed += fromStock;
      const net = q - fromStock;
      if (net <= NOISE * Math.max(1, q)) continue;
      lines.push({ demand_id: demandLineId(p.item_id, p.site_id, week), item_id: p.item_id, site_id: p.site_id, qty: net, due_week: week, priority_class: p.priority_class });
    }
  }
  return { lines, opening_served: openingServed, forecast };
}

/** Week 0 of a supply run starts at 00:00 UTC of its planning date (domain/supply/rules.ts weekOffset does the same). */
export function planningInstant(planningDate: string): Date {
  const at = new Date(`${planningDate}T00:00:00Z`);
  if (!Number.isFinite(at.getTime())) throw new RangeError(`planning date is not YYYY-MM-DD: ${planningDate}`);
  return at;
}
