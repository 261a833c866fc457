/**
 * ABC classification (Pareto). Pure: numbers in, classes out.
 *
 * Series are ranked by their metric value, largest first (ties keep the input order, which callers make
 * `(item_id, site_id)`). Negative values (a margin below zero) count as 0. With `total` the sum of the values, each
 * class fills until it reaches its cumulative share: a series belongs to the first class whose threshold is above the
 * cumulative share of the series ranked before it (a 1e-9 tolerance absorbs rounding). With thresholds 0.8 / 0.95 / 1,
 * class A is the largest series up to and including the one that brings the running total to 80 % (so the top
 * series is always in A), B continues to 95 %, C holds the rest. Series with a value of 0 (and every series when the
 * total is 0) fall in the last class. `cumulative_share` reports the running share including the series itself.
 *
 * Metrics over the annual window (the last 52 weeks of history):
 * - `volume`: demand quantity;
 * - `annual_value`: volume × unit_price (0 when the item has no price);
 * - `frequency`: weeks with non-zero demand;
 * - `margin`: volume × (unit_price − avg_unit_cost) when both are known (> 0), else 0.
 */

export const ABC_METRICS = ['annual_value', 'volume', 'frequency', 'margin'] as const;
export type AbcMetric = (typeof ABC_METRICS)[number];

export interface AnnualFigures {
  volume: number;
  frequency: number;
  unit_price: number;
  avg_unit_cost: number;
}

export function metricValue(metric: AbcMetric, f: AnnualFigures): number {
  switch (metric) {
    case 'volume':
      return f.volume;
    case 'frequency':
      return f.frequency;
    case 'annual_value':
      return f.unit_price > 0 ? f.volume * f.unit_price : 0;
    case 'margin':
      return f.unit_price > 0 && f.avg_unit_cost > 0 ? f.volume * (f.unit_price - f.avg_unit_cost) : 0;
  }
}

export interface AbcClassification {
  /** index into the class labels, per input series */
  classIndex: Int32Array;
  /** 1 = largest value */
  rank: Int32Array;
  share: Float64Array;
  cumulativeShare: Float64Array;
  total: number;
}

const EPS = 1e-9;

export function classify(values: ArrayLike<number>, thresholds: readonly number[]): AbcClassification {
  const n = values.length;
  const v = Float64Array.from(values, (x) => (Number.isFinite(x) && x > 0 ? x : 0));
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => v[b] - v[a] || a - b);
  let total = 0;
  for (const x of v) total += x;
  const out: AbcClassification = {
    classIndex: new Int32Array(n), rank: new Int32Array(n), share: new Float64Array(n), cumulativeShare: new Float64Array(n), total,
  };
  const last = thresholds.length - 1;
  let running = 0;
  order.forEach((i, r) => {
    const before = total > 0 ? running / total : 1;
    running += v[i];
    const share = total > 0 ? v[i] / total : 0;
    const cum = total > 0 ? running / total : 1;
    let k = v[i] > 0 ? thresholds.findIndex((t) => before < t - EPS) : last;
    if (k < 0) k = last;
    out.classIndex[i] = k;
    out.rank[i] = r + 1;
    out.share[i] = share;
    out.cumulativeShare[i] = Math.min(1, cum);
  });
  return out;
}

export class ThresholdError extends Error {}

/**
 * Thresholds as stored: one cumulative share per class label, strictly increasing, in (0, 1], the last exactly 1.
 * Input may be a list (one per label, or one fewer: the last class then closes at 1) or an object keyed by label (the
 * last label may be left out); values above 1 are read as percentages (80 → 0.8) when all are at most 100.
 */
export function normaliseThresholds(labels: readonly string[], input: readonly number[] | Record<string, number>): number[] {
  let list: number[];
  if (Array.isArray(input)) {
    list = [...input];
  } else {
    const obj = input as Record<string, number>;
    for (const key of Object.keys(obj)) {
      if (!labels.includes(key)) throw new ThresholdError(`thresholds: '${key}' is not one of the class labels (${labels.join(', ')})`);
    }
    list = [];
    labels.forEach((l, i) => {
      if (obj[l] !== undefined) list.push(obj[l]);
      else if (i === labels.length - 1) list.push(NaN);
      else throw new ThresholdError(`thresholds: class '${l}' has no threshold`);
    });
    if (Number.isNaN(list[list.length - 1])) list.pop();
  }
  if (list.length === labels.length - 1) list.push(list.some((x) => x > 1) ? 100 : 1);
  if (list.length !== labels.length) throw new ThresholdError(`thresholds: ${list.length} values for ${labels.length} class labels (give one per label)`);
  if (list.some((x) => typeof x !== 'number' || !Number.isFinite(x))) throw new ThresholdError('thresholds: every value must be a number');
  if (list.some((x) => x > 1)) {
    if (list.some((x) => x > 100)) throw new ThresholdError('thresholds: percentages must be at most 100');
    list = list.map((x) => x / 100);
  }
  list.forEach((x, i) => {
    if (x <= 0) throw new ThresholdError(`thresholds: class '${labels[i]}' must close above 0`);
    if (i > 0 && x <= list[i - 1]) throw new ThresholdError(`thresholds: must increase from class to class ('${labels[i]}' ${x} <= '${labels[i - 1]}' ${list[i - 1]})`);
  });
  if (Math.abs(list[list.length - 1] - 1) > EPS) throw new ThresholdError(`thresholds: the last class '${labels[labels.length - 1]}' must close at 1 (100 %), got ${list[list.length - 1]}`);
  list[list.length - 1] = 1;
  return list;
}
