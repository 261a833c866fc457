/**
 * Which demand the meio and supply steps plan against (docs/SUPPLY.md "Which demand a plan covers"). A SKU-site has up
 * to four streams of demand, each switched on or off per MEIO and per supply scenario:
 *
 * - statistical: the best-method forecast (supply) or the fitted weekly distribution (meio);
 * - netted: the statistical forecast of the netting period's weeks replaced by what consumption left of it
 *   (docs/NETTING.md); it only changes the statistical stream, so it does nothing while statistical is off;
 * - causal: the stored causal demand of the SKU-site (docs/CAUSAL.md);
 * - maintenance: the parts planned maintenance consumes at the SKU-site (docs/MAINTENANCE.md).
 *
 * The streams that are on add up. Maintenance is on by default: planned events are known demand that no history the
 * statistical forecast was fitted on holds. Causal is off by default: it models the same failures the statistical
 * forecast already learnt from history, so adding both counts that demand twice unless one of them is switched off.
 */
import { isDiscreteDemand, periodMoments, type DemandDistribution } from '../inventory/leadTimeDemand';
import { allOccurrences, weeklyDemand, type BomLine, type MaintenanceEvent } from '../maintenance/engine';
import { addWeeks, dayNumber, mondayOf } from '../time/weeks';

export const DEMAND_STREAMS = ['statistical', 'netted', 'causal', 'maintenance'] as const;
export type DemandStream = (typeof DEMAND_STREAMS)[number];
export type DemandStreamSwitches = Record<DemandStream, boolean>;

/**
 * MEIO plans a steady-state weekly distribution; netting only moves the current few weeks of one forecast, so it has
 * no meaning there and MEIO scenarios have no netted switch.
 */
export type MeioDemandStreamSwitches = Omit<DemandStreamSwitches, 'netted'>;

export const DEFAULT_DEMAND_STREAMS: Readonly<DemandStreamSwitches> = { statistical: true, netted: false, causal: false, maintenance: true };
export const DEFAULT_MEIO_DEMAND_STREAMS: Readonly<MeioDemandStreamSwitches> = { statistical: true, causal: false, maintenance: true };

/** A week's value of a stream; null or undefined: the stream has nothing for that week. */
export type WeeklyValues = ArrayLike<number | null | undefined>;

/** One SKU-site's streams over the plan's weeks (index 0 = the plan's first week). */
export interface WeeklyStreams {
  statistical?: WeeklyValues | null;
  /** the netted forecast where the netting period covers the week, null elsewhere (the statistical value applies) */
  netted?: WeeklyValues | null;
  causal?: WeeklyValues | null;
  maintenance?: WeeklyValues | null;
}

/** Negative, non-finite and missing values plan nothing. */
const qty = (v: number | null | undefined): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0);

/** The weekly gross demand the supply step plans for one SKU-site: the sum of the streams that are on. */
export function plannedWeeklyDemand(s: WeeklyStreams, on: DemandStreamSwitches, horizon: number): Float64Array {
  const out = new Float64Array(horizon);
  for (let t = 0; t < horizon; t++) {
    let v = 0;
    if (on.statistical) {
      const netted = on.netted ? s.netted?.[t] : null;
      v += netted === null || netted === undefined ? qty(s.statistical?.[t]) : qty(netted);
    }
    if (on.causal) v += qty(s.causal?.[t]);
    if (on.maintenance) v += qty(s.maintenance?.[t]);
    out[t] = v;
  }
  return out;
}

/**
 * Values dated by week (`start`, a date, is the week of `values[0]`) placed on the plan's weeks from `planningDate`;
 * weeks the values do not reach are null. A start off the plan's weekday is placed in the plan week it falls in.
 */
export function alignToPlan(values: readonly (number | null)[], start: string, planningDate: string, horizon: number): Array<number | null> {
  const shift = Math.floor((dayNumber(start) - dayNumber(planningDate)) / 7);
  return Array.from({ length: horizon }, (_, t) => {
    const v = values[t - shift];
    return v === undefined ? null : v;
  });
}

/** Dated weekly rows summed onto the plan's weeks; rows before the plan or past its horizon are left out. */
export function bucketToPlan(rows: ReadonlyArray<{ week: string; qty: number }>, planningDate: string, horizon: number): number[] {
  const out = new Array<number>(horizon).fill(0);
  const p = dayNumber(planningDate);
  for (const r of rows) {
    const t = Math.floor((dayNumber(r.week) - p) / 7);
    if (t >= 0 && t < horizon) out[t] += qty(r.qty);
  }
  return out;
}

/**
 * The parts the maintenance events consume per series (`<item_id>_<site_id>`) on the plan's weeks: the events as
 * defined (no maintenance scenario), each occurrence counted in the week of its Monday (docs/MAINTENANCE.md), that
 * Monday placed in the plan week it falls in. Series without an occurrence in the horizon are absent.
 */
export function maintenanceOnPlan(
  plan: { events: readonly MaintenanceEvent[]; bom: readonly BomLine[] }, planningDate: string, horizon: number,
): Map<string, number[]> {
  const out = new Map<string, number[]>();
  if (!plan.bom.length || horizon < 1) return out;
  // one week more than the plan: with a planning date after Monday the plan's last week reaches into the next one
  const h = { start: mondayOf(planningDate), weeks: horizon + 1 };
  for (const s of weeklyDemand(allOccurrences(plan.events, [], [], h), plan.bom, h)) {
    const onPlan = bucketToPlan(s.values.map((qty, k) => ({ week: addWeeks(h.start, k), qty })), planningDate, horizon);
    if (onPlan.some((v) => v > 0)) out.set(s.unique_id, onPlan);
  }
  return out;
}

/**
 * The weekly demand distribution the meio step plans for one SKU-site. The causal and maintenance streams that are
 * on enter as one more independent weekly demand with the mean and variance of their weekly sum over the plan's
 * horizon (a C-check every 26 weeks is lumpy: its variance is far above its mean), plus, for causal demand, the
 * Poisson variance of the failure counts its weekly values are the means of, added to the fitted
 * distribution's moments and matched on those two moments in the family that keeps the demand's nature, the rule the
 * MEIO engine pools sites' demand by: counts stay counts (Poisson when the variance equals the mean, negative binomial
 * above it), normal otherwise. Nothing extra: the fit as it is; statistical off and nothing extra: null (no demand).
 */
export function plannedWeeklyDistribution(
  fit: DemandDistribution | null, extra: Pick<WeeklyStreams, 'causal' | 'maintenance'>, on: MeioDemandStreamSwitches, horizon: number,
): DemandDistribution | null {
  const base = on.statistical ? fit : null;
  if (horizon < 1) return base;
  const weekly = plannedWeeklyDemand(extra, { statistical: false, netted: false, causal: on.causal, maintenance: on.maintenance }, horizon);
  let mean = 0;
  for (const v of weekly) mean += v;
  mean /= horizon;
  if (!(mean > 0)) return base;
  let variance = 0;
  for (const v of weekly) variance += (v - mean) ** 2;
  variance /= horizon;
  // a causal week is the mean of a Poisson count of failures (docs/CAUSAL.md): its noise adds that mean (total variance)
  if (on.causal) variance += plannedWeeklyDemand({ causal: extra.causal }, { statistical: false, netted: false, causal: true, maintenance: false }, horizon).reduce((n, x) => n + x, 0) / horizon;
  const b = base ? periodMoments(base) : { mean: 0, variance: 0 };
  const m = b.mean + mean;
  const v = b.variance + variance;
  const counts = base === null || isDiscreteDemand(base);
  const tolerance = 1e-12 * Math.max(1, m);
  if (counts && v > m + tolerance) return { type: 'negative_binomial', r: (m * m) / (v - m), p: m / v };
  if (counts && Math.abs(v - m) <= tolerance) return { type: 'poisson', lambda: m };
  return { type: 'normal', mu: m, sigma: Math.max(Math.sqrt(v), 1e-9) };
}
