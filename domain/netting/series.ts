/**
 * The netting of one SKU-site over the current period (docs/NETTING.md): its weekly forecast, actual orders, firm
 * demand and supply plan in, the consumption of consume.ts over integer thousandths of a unit out. Quantities are
 * rounded to the nearest thousandth once, on the way in; from there on every figure is an integer, so each week's
 * forecast = consumed + netted and the totals reconcile exactly, in any order of summation.
 */
import { consume, type Allocation, type ConsumptionWindow, type NettingDirection } from './consume';

export interface NettingSettings {
  /** the current period: this many weeks from the pipeline's forecast start */
  period_weeks: number;
  backward_weeks: number;
  forward_weeks: number;
}

/** What a refresh uses when neither the request nor an earlier refresh of the pipeline names a setting. */
export const DEFAULT_NETTING_SETTINGS: Readonly<NettingSettings> = { period_weeks: 4, backward_weeks: 1, forward_weeks: 1 };

/** Weekly inputs over the period, in units; index 0 is the period's first week. Missing weeks may be null. */
export interface SeriesNettingInput {
  forecast: ReadonlyArray<number | null>;
  actual: ReadonlyArray<number | null>;
  firm_demand: ReadonlyArray<number | null>;
  supply_plan: ReadonlyArray<number | null>;
}

/** Every quantity in integer thousandths of a unit (`fromThousandths` turns one into its decimal text). */
export interface SeriesNetting {
  forecast: number[];
  actual: number[];
  firm_demand: number[];
  /** actual + firm demand: what consumes the forecast */
  demand: number[];
  consumed: number[];
  netted: number[];
  over_consumption: number[];
  supply_plan: number[];
  allocations: Allocation[];
  totals: {
    forecast: number; actual: number; firm_demand: number; consumed: number; netted: number; over_consumption: number; supply_plan: number;
    consumed_same: number; consumed_backward: number; consumed_forward: number;
  };
  direction: NettingDirection;
}

/**
 * Non-negative units → integer thousandths (nearest, halves up); missing, non-finite and negative count as 0. The
 * product is cut to 15 significant digits first so a decimal half stays a half: 1.2345 × 1000 is 1234.4999999999998
 * in binary, and the planner who typed 1.2345 expects 1235.
 */
export function toThousandths(v: number | null | undefined): number {
  return v !== null && v !== undefined && Number.isFinite(v) && v > 0 ? Math.round(Number((v * 1000).toPrecision(15))) : 0;
}

/** Integer thousandths → exact decimal text (`12345` → `'12.345'`), for numeric columns and JSON alike. */
export function fromThousandths(m: number): string {
  if (!Number.isSafeInteger(m)) throw new RangeError(`fromThousandths: ${m} is not a safe integer`);
  const sign = m < 0 ? '-' : '';
  const a = Math.abs(m);
  const frac = a % 1000;
  return `${sign}${Math.floor(a / 1000)}${frac ? `.${String(frac).padStart(3, '0').replace(/0+$/, '')}` : ''}`;
}

const sum = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0);

/** Input arrays shorter than the period count as 0 in the weeks they lack (a forecast horizon shorter than the period). */
function weekly(values: ReadonlyArray<number | null>, weeks: number): number[] {
  return Array.from({ length: weeks }, (_, i) => toThousandths(values[i]));
}

export function netSeries(input: SeriesNettingInput, settings: NettingSettings): SeriesNetting {
  const n = settings.period_weeks;
  const forecast = weekly(input.forecast, n);
  const actual = weekly(input.actual, n);
  const firm = weekly(input.firm_demand, n);
  const supply = weekly(input.supply_plan, n);
  const demand = actual.map((a, i) => a + firm[i]);
  const window: ConsumptionWindow = { backward: settings.backward_weeks, forward: settings.forward_weeks };
  const c = consume(forecast, demand, window);
  return {
    forecast, actual, firm_demand: firm, demand, consumed: c.consumed, netted: c.netted, over_consumption: c.over, supply_plan: supply,
    allocations: c.allocations,
    totals: {
      forecast: sum(forecast), actual: sum(actual), firm_demand: sum(firm), consumed: sum(c.consumed), netted: sum(c.netted),
      over_consumption: sum(c.over), supply_plan: sum(supply), consumed_same: c.same, consumed_backward: c.backward, consumed_forward: c.forward,
    },
    direction: c.direction,
  };
}
