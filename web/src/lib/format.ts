/** How the workbench writes numbers, dates and severities: one place, so every page reads the same. */

const grouped = new Intl.NumberFormat('en-GB', { maximumFractionDigits: 1 });
const whole = new Intl.NumberFormat('en-GB', { maximumFractionDigits: 0 });

export function formatQty(v: number | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return '–';
  return Math.abs(v) >= 100 ? whole.format(v) : grouped.format(v);
}

/** A score or error measure (MASE, MAE): three significant digits, so 0.0123 does not read as 0. */
export function formatScore(v: number | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return '–';
  return Math.abs(v) >= 1000 ? whole.format(v) : String(Number(v.toPrecision(3)));
}

export function formatMoney(v: number | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return '–';
  return whole.format(v);
}

/** A share (0..1) as a percentage with one decimal; the API sends fill rates and service levels as shares. */
export function formatShare(v: number | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return '–';
  return `${(v * 100).toFixed(1)} %`;
}

export function formatDelta(v: number | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return '–';
  return `${v > 0 ? '+' : v < 0 ? '−' : '±'}${formatQty(Math.abs(v))}`;
}

/** An ISO date or timestamp as its day (YYYY-MM-DD), the week's Monday being how the plan counts. */
export const formatDay = (iso: string | null | undefined): string => (iso ? iso.slice(0, 10) : '–');

export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '–';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '–' : d.toISOString().replace('T', ' ').slice(0, 19);
}

export function formatDuration(startIso: string | null | undefined, endIso: string | null | undefined): string {
  if (!startIso || !endIso) return '–';
  const s = Math.max(0, Math.round((Date.parse(endIso) - Date.parse(startIso)) / 1000));
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${s % 60} s`;
}

export const SEVERITIES = ['critical', 'high', 'medium', 'low'] as const;
export type Severity = (typeof SEVERITIES)[number];

export const severityRank = (s: string): number => {
  const i = SEVERITIES.indexOf(s as Severity);
  return i < 0 ? SEVERITIES.length : i;
};

/** The worst severity among a row's issues, which decides where it sorts and what colour it shows. */
export function worstSeverity(issues: ReadonlyArray<{ severity: string }>): string {
  let worst = 'low';
  for (const i of issues) if (severityRank(i.severity) < severityRank(worst)) worst = i.severity;
  return worst;
}

export function bySeverity<T>(rows: readonly T[], severityOf: (row: T) => string): T[] {
  return rows.map((r, i) => ({ r, i })).sort((a, b) => severityRank(severityOf(a.r)) - severityRank(severityOf(b.r)) || a.i - b.i).map((x) => x.r);
}

/** Monday of the ISO week `days` from a date, as the snooze dates the API takes (YYYY-MM-DD). */
export function daysFrom(today: Date, days: number): string {
  const d = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() + days));
  return d.toISOString().slice(0, 10);
}
