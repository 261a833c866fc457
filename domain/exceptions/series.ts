/**
 * Per-series issues: what the exception log stores for a SKU-site and what GET /api/exceptions shows of it
 * (docs/EXCEPTIONS.md). One combining for both, so the log and the live list never disagree on a rule.
 */
import { compareKeys } from '../series/keys';
import { EXCEPTION_TYPES, forecastIssues, ioIssues, type ExceptionType, type ForecastFacts, type Issue, type IoFacts, type Severity } from './rules';

export interface SeriesKey {
  item_id: number;
  site_id: number;
}

export interface SeriesIssues extends SeriesKey {
  issues: Issue[];
}

export interface IssueCounts {
  forecast: number;
  io: number;
  supply: number;
}

/**
 * The forecast rules over `forecast`, the io rules over `io` and the supply run's issues `supply` (already in issue
 * form), per series: forecast issues first, then io, then supply. Series without any issue are left out; the rest are
 * ordered by item, then site.
 */
export function combineSeriesIssues(
  forecast: ReadonlyArray<SeriesKey & ForecastFacts>, io: ReadonlyArray<SeriesKey & IoFacts>, supply: ReadonlyArray<SeriesIssues>,
): { series: SeriesIssues[]; counts: IssueCounts } {
  const bySeries = new Map<string, SeriesIssues>();
  const counts: IssueCounts = { forecast: 0, io: 0, supply: 0 };
  const add = (k: SeriesKey, type: ExceptionType, issues: readonly Issue[]) => {
    if (!issues.length) return;
    counts[type] += issues.length;
    const key = `${k.item_id}_${k.site_id}`;
    const row = bySeries.get(key) ?? { item_id: k.item_id, site_id: k.site_id, issues: [] };
    row.issues.push(...issues);
    bySeries.set(key, row);
  };
  for (const f of forecast) add(f, 'forecast', forecastIssues(f));
  for (const f of io) add(f, 'io', ioIssues(f));
  for (const s of supply) add(s, 'supply', s.issues);
  return { series: [...bySeries.values()].sort(compareKeys), counts };
}

export const SEVERITY_RANK: Readonly<Record<Severity, number>> = { high: 3, medium: 2, low: 1 };

/** The highest severity among `issues` (at least one). */
export function highestSeverity(issues: readonly Issue[]): Severity {
  return issues.reduce<Severity>((best, i) => ((SEVERITY_RANK[i.severity] ?? 0) > SEVERITY_RANK[best] ? i.severity : best), issues[0].severity);
}

/** One computed exception: a series and one type, with that type's issues. */
export interface SeriesException extends SeriesKey {
  exc_type: ExceptionType;
  severity: Severity;
  issues: Issue[];
}

/** Splits each series' issues by type (forecast, io, supply): one exception per series and type that has issues. */
export function exceptionsByType(series: readonly SeriesIssues[]): SeriesException[] {
  const out: SeriesException[] = [];
  for (const s of series) {
    for (const type of EXCEPTION_TYPES) {
      const issues = s.issues.filter((i) => i.type === type);
      if (issues.length) out.push({ item_id: s.item_id, site_id: s.site_id, exc_type: type, severity: highestSeverity(issues), issues });
    }
  }
  return out;
}

/** Most severe first, then by series (item id, then site id, numerically: unique_id order), then forecast, io, supply. */
export function compareExceptions(a: SeriesException, b: SeriesException): number {
  return SEVERITY_RANK[b.severity] - SEVERITY_RANK[a.severity] || compareKeys(a, b) || EXCEPTION_TYPES.indexOf(a.exc_type) - EXCEPTION_TYPES.indexOf(b.exc_type);
}

export interface Snooze extends SeriesKey {
  exc_type: string;
  until_date: string;
}

/**
 * Each exception with `snoozed_until`: the date of its series-and-type snooze among `active` (the snoozes whose date is
 * today or later), else null.
 */
export function withSnoozes<T extends SeriesException>(items: readonly T[], active: readonly Snooze[]): Array<T & { snoozed_until: string | null }> {
  const until = new Map(active.map((s) => [`${s.item_id}_${s.site_id}_${s.exc_type}`, s.until_date]));
  return items.map((e) => ({ ...e, snoozed_until: until.get(`${e.item_id}_${e.site_id}_${e.exc_type}`) ?? null }));
}
