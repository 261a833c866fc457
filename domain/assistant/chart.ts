/** Chart choice for an assistant answer (spec §4.7 rule 3). */

export type ChartType = 'none' | 'kpi' | 'line' | 'bar' | 'bar_stacked' | 'table';

export interface Chart {
  type: ChartType;
  x_col: string | null;
  y_cols: string[];
  title: string;
}

export interface ChartHint {
  type?: unknown;
  x_col?: unknown;
  y_cols?: unknown;
  title?: unknown;
}

export const CHART_TYPES: readonly ChartType[] = ['none', 'kpi', 'line', 'bar', 'bar_stacked', 'table'];
const MAX_CATEGORIES = 30;
const DATE_NAME = /(^|_)(date|ds|week|month|day|ts|time|period)(_|$)|_at$|_date$|_week$/i;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}(:?\d{2})?)?)?$/;

const isNumber = (v: unknown) => typeof v === 'number' && Number.isFinite(v);

/** A column whose non-null values are all finite numbers (and at least one is). */
export function numericColumns(columns: readonly string[], rows: ReadonlyArray<Record<string, unknown>>): string[] {
  return columns.filter((c) => {
    let seen = false;
    for (const r of rows) {
      const v = r[c];
      if (v === null || v === undefined) continue;
      if (!isNumber(v)) return false;
      seen = true;
    }
    return seen;
  });
}

/** A column of dates: ISO date strings (or Date objects), or a date-like name with such values. */
export function dateColumns(columns: readonly string[], rows: ReadonlyArray<Record<string, unknown>>): string[] {
  return columns.filter((c) => {
    let seen = false;
    for (const r of rows) {
      const v = r[c];
      if (v === null || v === undefined) continue;
      if (v instanceof Date || (typeof v === 'string' && ISO_DATE.test(v))) { seen = true; continue; }
      return false;
    }
    return seen || (rows.length > 0 && DATE_NAME.test(c) && rows.every((r) => r[c] === null || r[c] === undefined));
  });
}

/**
 * Rule 3: the model's hint wins when its type is known and its columns exist in the result; otherwise 0 rows `none`,
 * 1 row `kpi`, a date column plus numeric column(s) `line`, a category plus one numeric with at most 30 rows `bar`, a
 * category plus two or more numerics with at most 30 rows `bar_stacked`, anything else `table`.
 */
export function chooseChart(columns: readonly string[], rows: ReadonlyArray<Record<string, unknown>>, hint: ChartHint | null | undefined, title: string): Chart {
  const hintTitle = typeof hint?.title === 'string' && hint.title.trim() ? hint.title.trim().slice(0, 200) : title;
  if (hint && typeof hint.type === 'string' && (CHART_TYPES as readonly string[]).includes(hint.type)) {
    const x = hint.x_col === undefined || hint.x_col === null ? null : hint.x_col;
    const ys = hint.y_cols === undefined || hint.y_cols === null ? [] : hint.y_cols;
    const xOk = x === null || (typeof x === 'string' && columns.includes(x));
    const ysOk = Array.isArray(ys) && ys.every((y) => typeof y === 'string' && columns.includes(y));
    const needsColumns = hint.type !== 'none' && hint.type !== 'table' && hint.type !== 'kpi';
    if (xOk && ysOk && (!needsColumns || (x !== null && (ys as string[]).length > 0))) {
      return { type: hint.type as ChartType, x_col: x as string | null, y_cols: ys as string[], title: hintTitle };
    }
  }
  if (rows.length === 0) return { type: 'none', x_col: null, y_cols: [], title };
  const numeric = numericColumns(columns, rows);
  if (rows.length === 1) return { type: 'kpi', x_col: null, y_cols: numeric.length ? numeric : [...columns], title };
  const dates = dateColumns(columns, rows);
  const values = numeric.filter((c) => !dates.includes(c));
  if (dates.length > 0 && values.length > 0) return { type: 'line', x_col: dates[0], y_cols: values, title };
  const categories = columns.filter((c) => !numeric.includes(c) && !dates.includes(c));
  if (categories.length > 0 && rows.length <= MAX_CATEGORIES) {
    if (values.length === 1) return { type: 'bar', x_col: categories[0], y_cols: values, title };
    if (values.length >= 2) return { type: 'bar_stacked', x_col: categories[0], y_cols: values, title };
  }
  return { type: 'table', x_col: null, y_cols: [], title };
}
