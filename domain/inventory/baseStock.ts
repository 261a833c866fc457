/**
 * Base-stock (order-up-to) policy under periodic review with backorders: the newsvendor problem on the demand over
 * the protection interval (lead time + review period). h and p are charged per unit per period on ending stock and
 * ending backorders.
 */
import { leadTimeDemand, type DemandDistribution, type LeadTime, type LeadTimeDemand } from './leadTimeDemand';

export function criticalRatio(holdingCost: number, stockoutCost: number): number {
  if (!(holdingCost > 0) || !(stockoutCost > 0)) throw new RangeError('holding and stockout costs must be > 0');
  return stockoutCost / (stockoutCost + holdingCost);
}

/** g(y) = h E[(y - D)+] + p E[(D - y)+], using (y - D)+ = y - D + (D - y)+. */
export function newsvendorCost(ltd: LeadTimeDemand, y: number, holdingCost: number, stockoutCost: number): number {
  const shortage = ltd.loss(y);
  return holdingCost * (y - ltd.mean + shortage) + stockoutCost * shortage;
}

export interface BaseStockResult {
  baseStockLevel: number;
  cost: number;
  criticalRatio: number;
  expectedOnHand: number;
  expectedBackorders: number;
}

export function baseStockCost(ltd: LeadTimeDemand, S: number, holdingCost: number, stockoutCost: number): BaseStockResult {
  const shortage = ltd.loss(S);
  return {
    baseStockLevel: S,
    cost: newsvendorCost(ltd, S, holdingCost, stockoutCost),
    criticalRatio: criticalRatio(holdingCost, stockoutCost),
    expectedOnHand: S - ltd.mean + shortage,
    expectedBackorders: shortage,
  };
}

/** Smallest S with F(S) >= p / (p + h): the exact minimiser for discrete demand, F^-1 of the ratio for continuous. */
export function optimalBaseStock(ltd: LeadTimeDemand, holdingCost: number, stockoutCost: number): BaseStockResult {
  const S = ltd.quantile(criticalRatio(holdingCost, stockoutCost));
  return baseStockCost(ltd, S, holdingCost, stockoutCost);
}

export interface PeriodicBaseStockResult extends BaseStockResult {
  /** Fraction of demand served from stock, 1 - (n_{L+R}(S) - n_L(S)) / (R mu). */
  fillRate: number;
  protectionDemand: LeadTimeDemand;
}

/**
 * Periodic review every R periods with lead time L: the order placed now is the last one able to cover demand
 * through L + R periods, so S is set on that demand; the backorders created within a cycle are the difference of the
 * loss functions at the end and at the start of the cycle's exposure, which gives the exact fill rate.
 */
export function periodicBaseStock(
  demand: DemandDistribution,
  leadTime: LeadTime,
  holdingCost: number,
  stockoutCost: number,
  reviewPeriod = 1,
): PeriodicBaseStockResult {
  if (!(reviewPeriod > 0)) throw new RangeError('review period must be > 0');
  const protectionDemand = leadTimeDemand(demand, shiftLeadTime(leadTime, reviewPeriod));
  const leadDemand = leadTimeDemand(demand, leadTime);
  const best = optimalBaseStock(protectionDemand, holdingCost, stockoutCost);
  const perCycle = protectionDemand.mean - leadDemand.mean;
  const newShortage = protectionDemand.loss(best.baseStockLevel) - leadDemand.loss(best.baseStockLevel);
  return { ...best, fillRate: perCycle > 0 ? 1 - newShortage / perCycle : 1, protectionDemand };
}

function shiftLeadTime(leadTime: LeadTime, by: number): LeadTime {
  if (typeof leadTime === 'number') return leadTime + by;
  if ('pmf' in leadTime) return { pmf: leadTime.pmf.map((e) => ({ leadTime: e.leadTime + by, probability: e.probability })) };
  return { mean: leadTime.mean + by, sd: leadTime.sd };
}
