/**
 * Lot sizes and safety stock of a SKU-site, and where they come from. The step reads the rows; these functions decide.
 */
import type { LotRule } from './types';

// Module-level aliases: inside vm contexts (jest) every lookup of a global such as Math is intercepted (see
// inventory/random.ts); these run for every SKU-site-week.
const { ceil, max } = Math;

/** Relative slack for rounding up: 30 / 10 must stay 3 lots, not become 4 through 3.0000000000000004. */
const ROUND_EPS = 1e-9;

function roundUpTo(q: number, step: number): number {
  return ceil(q / step - ROUND_EPS) * step;
}

/**
 * The order quantity for a net requirement: whole EOQ lots when an EOQ is set (fixed order quantity, as many lots as
 * the requirement needs: one lot can be too small after a demand spike), else the requirement itself (lot-for-lot);
 * then at least the MOQ; then up to the order multiple. The multiple goes last because it is a physical pack size
 * that neither the EOQ nor the MOQ need be a multiple of.
 */
export function lotSize(net: number, lot: LotRule): number {
  if (!(net > 0)) return 0;
  let q = net;
  if (lot.eoq !== null && lot.eoq > 0) q = roundUpTo(q, lot.eoq);
  if (lot.moq > q) q = lot.moq;
  if (lot.multiple > 0) q = roundUpTo(q, lot.multiple);
  return q;
}

export interface ParameterSources {
  /** item_site row. */
  master: { safety_stock?: number | null; moq?: number | null; order_multiple?: number | null };
  /** meio_results row of the supply scenario's inventory scenario. */
  meio?: { safety_stock?: number | null; order_qty?: number | null } | null;
  /** EOQ result (kcurve / inventory scenario results) of the SKU-site. */
  eoq?: { eoq?: number | null } | null;
  /** io_overrides row (pipeline, scenario, item, site). */
  override?: { eoq_override?: number | null } | null;
}

export interface ResolvedParameters {
  safety_stock: number;
  lot: LotRule;
  safety_stock_source: 'meio' | 'master' | 'none';
  lot_source: 'override' | 'eoq' | 'meio' | 'lot_for_lot';
}

const positive = (v: number | null | undefined): v is number => v !== null && v !== undefined && Number.isFinite(v) && v > 0;

/**
 * Precedence, most specific first. Safety stock: the meio result (the optimiser's answer for this scenario), else the
 * item-site master value, else 0. Lot size: the planner's IO override, else the EOQ result, else the meio order
 * quantity, else lot-for-lot. MOQ and multiple always come from the master: they are supplier terms, not choices.
 */
export function resolveSiteParameters(src: ParameterSources): ResolvedParameters {
  const meioSs = src.meio?.safety_stock;
  const masterSs = src.master.safety_stock;
  const [safety_stock, safety_stock_source] =
    meioSs !== null && meioSs !== undefined && Number.isFinite(meioSs)
      ? [max(0, meioSs), 'meio' as const]
      : masterSs !== null && masterSs !== undefined && Number.isFinite(masterSs)
        ? [max(0, masterSs), 'master' as const]
        : [0, 'none' as const];
  let eoq: number | null = null;
  let lot_source: ResolvedParameters['lot_source'] = 'lot_for_lot';
  if (positive(src.override?.eoq_override)) [eoq, lot_source] = [src.override!.eoq_override!, 'override'];
  else if (positive(src.eoq?.eoq)) [eoq, lot_source] = [src.eoq!.eoq!, 'eoq'];
  else if (positive(src.meio?.order_qty)) [eoq, lot_source] = [src.meio!.order_qty!, 'meio'];
  return {
    safety_stock,
    safety_stock_source,
    lot: { eoq, moq: max(0, src.master.moq ?? 0), multiple: max(0, src.master.order_multiple ?? 0) },
    lot_source,
  };
}
