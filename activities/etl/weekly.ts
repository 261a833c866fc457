/** Pure weekly bucketing of demand: dates in, Monday-indexed weekly arrays out. No database, no Temporal. */

const DAY_MS = 86_400_000;

/** Days since 1970-01-01 (UTC) of a `YYYY-MM-DD` date. */
export const dayNumber = (ds: string): number => Math.floor(Date.parse(`${ds}T00:00:00Z`) / DAY_MS);

export const dateOfDay = (day: number): string => new Date(day * DAY_MS).toISOString().slice(0, 10);

/** The Monday on or before the date, as a day number (1970-01-01 was a Thursday, hence the +3). */
export const mondayDay = (day: number): number => day - ((day + 3) % 7);

export const mondayOf = (ds: string): string => dateOfDay(mondayDay(dayNumber(ds)));

export interface WeeklySeries {
  /** Monday of the first week */
  start: string;
  /** demand per week from start to the end week inclusive; weeks without demand are 0 */
  y: Float64Array;
}

/**
 * Sums demand rows into weeks starting Monday, from the week of the first row to `endWeek` (a Monday), filling gaps
 * with zeros. Rows after endWeek are ignored (they belong to a later planning week).
 */
export function toWeekly(ds: ArrayLike<string>, qty: ArrayLike<number>, endWeek: string): WeeklySeries | undefined {
  if (ds.length === 0) return undefined;
  let first = Infinity;
  for (let i = 0; i < ds.length; i += 1) first = Math.min(first, mondayDay(dayNumber(ds[i])));
  const end = mondayDay(dayNumber(endWeek));
  if (first > end) return undefined;
  const n = (end - first) / 7 + 1;
  const y = new Float64Array(n);
  for (let i = 0; i < ds.length; i += 1) {
    const w = (mondayDay(dayNumber(ds[i])) - first) / 7;
    if (w < n) y[w] += qty[i];
  }
  return { start: dateOfDay(first), y };
}

export interface WeeklyStats {
  n_observations: number;
  date_range_start: string;
  date_range_end: string;
  mean: number;
  zero_ratio: number;
  total_demand: number;
}

export function weeklyStats(s: WeeklySeries): WeeklyStats {
  let total = 0;
  let zeros = 0;
  for (const v of s.y) {
    total += v;
    if (v === 0) zeros += 1;
  }
  const n = s.y.length;
  return {
    n_observations: n,
    date_range_start: s.start,
    date_range_end: dateOfDay(dayNumber(s.start) + (n - 1) * 7),
    mean: total / n,
    zero_ratio: zeros / n,
    total_demand: total,
  };
}
