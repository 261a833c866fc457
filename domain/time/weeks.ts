/** Pure weekly bucketing of demand: dates in, Monday-indexed weekly arrays out. No database, no Temporal. */

const DAY_MS = 86_400_000;

/**
 * Date parsing and formatting dominate the steps' calendar arithmetic (every week of every series, at every backtest
 * origin), over a few hundred distinct weeks: both directions are memoised, the maps cleared when they grow past
 * MEMO_LIMIT so that odd inputs cannot make them grow without bound.
 */
const MEMO_LIMIT = 100_000;
const dayOf = new Map<string, number>();
const dateOf = new Map<number, string>();

/** Days since 1970-01-01 (UTC) of a `YYYY-MM-DD` date. */
export function dayNumber(ds: string): number {
  let day = dayOf.get(ds);
  if (day === undefined) {
    day = Math.floor(Date.parse(`${ds}T00:00:00Z`) / DAY_MS);
    if (dayOf.size >= MEMO_LIMIT) dayOf.clear();
    dayOf.set(ds, day);
  }
  return day;
}

export function dateOfDay(day: number): string {
  let ds = dateOf.get(day);
  if (ds === undefined) {
    ds = new Date(day * DAY_MS).toISOString().slice(0, 10);
    if (dateOf.size >= MEMO_LIMIT) dateOf.clear();
    dateOf.set(day, ds);
  }
  return ds;
}

/** The Monday on or before the date, as a day number (1970-01-01 was a Thursday, hence the +3). */
export const mondayDay = (day: number): number => day - ((day + 3) % 7);

export const mondayOf = (ds: string): string => dateOfDay(mondayDay(dayNumber(ds)));

/** The date `k` weeks after `week` (before it for k < 0). */
export const addWeeks = (week: string, k: number): string => dateOfDay(dayNumber(week) + 7 * k);

/** Whole weeks from `from` to `to` (both Mondays; rounded, so a day off either way still counts as its week). */
export const weeksBetween = (from: string, to: string): number => Math.round((dayNumber(to) - dayNumber(from)) / 7);

export interface WeeklySeries {
  /** Monday of the first week */
  start: string;
  /** demand per week from start to the end week inclusive; weeks without demand are 0; closed weeks are NaN */
  y: Float64Array;
  /** capacity factor of each week from the site's calendar (1 when it says nothing, 0 = closed); absent = all 1 */
  factor?: Float64Array;
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
  /** open weeks: closed weeks are missing values, not observations */
  n_observations: number;
  date_range_start: string;
  date_range_end: string;
  /** over open weeks; null when every week is closed */
  mean: number | null;
  zero_ratio: number | null;
  total_demand: number;
  closed_weeks: number;
}

/** Statistics over the open weeks (closed weeks, NaN in y, are skipped); the date range spans every week. */
export function weeklyStats(s: WeeklySeries): WeeklyStats {
  let total = 0;
  let zeros = 0;
  let open = 0;
  for (const v of s.y) {
    if (Number.isNaN(v)) continue;
    open += 1;
    total += v;
    if (v === 0) zeros += 1;
  }
  const n = s.y.length;
  return {
    n_observations: open,
    date_range_start: s.start,
    date_range_end: dateOfDay(dayNumber(s.start) + (n - 1) * 7),
    mean: open ? total / open : null,
    zero_ratio: open ? zeros / open : null,
    total_demand: total,
    closed_weeks: n - open,
  };
}

/**
 * Capacity factors of the `n` weeks from `start` (a Monday) given calendar weeks (Mondays) and their factors; weeks
 * the calendar does not list get 1; several entries in one week: the smallest factor. Weeks outside the range are ignored.
 */
export function weekFactors(start: string, n: number, weeks: ArrayLike<string>, factors: ArrayLike<number>): Float64Array {
  const out = new Float64Array(n).fill(1);
  const seen = new Uint8Array(n);
  const first = dayNumber(start);
  for (let i = 0; i < weeks.length; i += 1) {
    const w = (mondayDay(dayNumber(weeks[i])) - first) / 7;
    if (w < 0 || w >= n) continue;
    out[w] = seen[w] ? Math.min(out[w], factors[i]) : factors[i];
    seen[w] = 1;
  }
  return out;
}

export interface CalendarEffect {
  series: WeeklySeries;
  /** weeks with factor 0 */
  closed: number;
  /** demand booked in closed weeks and moved to an open week */
  moved: number;
  /** demand that found no open week at all (every week of the series closed) */
  dropped: number;
}

/**
 * Applies the site calendar to a weekly series. A closed week (factor 0) is not a zero-demand week: its y becomes NaN
 * (stored as NULL with closed = true). Demand booked in a closed week moves to the next open week, or, when none
 * follows, to the last open week before it, so total demand is kept. Other weeks keep their observed y and carry
 * their factor, so the forecast step can work on y / factor and multiply future weeks by their factor.
 */
export function applyCalendar(s: WeeklySeries, factor: Float64Array): CalendarEffect {
  const n = s.y.length;
  const y = Float64Array.from(s.y);
  let closed = 0;
  let moved = 0;
  let dropped = 0;
  let carry = 0;
  for (let i = 0; i < n; i += 1) {
    if (factor[i] === 0) {
      closed += 1;
      carry += y[i];
      y[i] = Number.NaN;
    } else if (carry) {
      y[i] += carry;
      moved += carry;
      carry = 0;
    }
  }
  if (carry) {
    let last = n - 1;
    while (last >= 0 && factor[last] === 0) last -= 1;
    if (last >= 0) {
      y[last] += carry;
      moved += carry;
    } else dropped += carry;
  }
  return { series: { start: s.start, y, factor: Float64Array.from(factor) }, closed, moved, dropped };
}
