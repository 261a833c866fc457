/**
 * The offline reading of an alert question ("fill rate under 90 %", "bias above 20% in segment North"): the metric
 * by its name or a synonym, one comparison with a number (a % sign divides by 100, since metrics are ratios), a
 * segment by name, a status, a severity and demand classes ("lumpy or intermittent series"). The caller returns the
 * filter it used, so a reader sees what was understood.
 */
import type { DemandClass } from '../characterization/characterize';
import { DEMAND_CLASSES as CLASSES } from '../segments/fields';
import { SEVERITIES, type Severity } from './ontology';

export type ValueOp = 'gt' | 'gte' | 'lt' | 'lte';
export type AlertStatus = 'open' | 'approved' | 'rejected';
export const ALERT_STATUSES: readonly AlertStatus[] = ['open', 'approved', 'rejected'];
/** The Syntetos-Boylan classes of series_characteristics.demand_class. */
export const DEMAND_CLASSES: readonly DemandClass[] = CLASSES;

export interface ParsedAlertQuery {
  metric: string | null;
  /** the words that named the metric */
  metric_term: string | null;
  value: { op: ValueOp; value: number } | null;
  segment_name: string | null;
  status: AlertStatus | null;
  severity: Severity | null;
  /** the series' demand class is one of these (series_characteristics of the alert's pipeline) */
  demand_class: DemandClass[] | null;
}

// Longer phrases first so "at least" is not read as a bare number and "less than" wins over "less".
const OPS: Array<[RegExp, ValueOp]> = [
  [/^(?:>=|≥|at least|no less than|not below)/, 'gte'],
  [/^(?:<=|≤|at most|no more than|not above)/, 'lte'],
  [/^(?:>|above|over|greater than|more than|higher than|exceeds?|exceeding)/, 'gt'],
  [/^(?:<|under|below|less than|lower than|beneath)/, 'lt'],
];

export const STATUS_WORDS: Readonly<Record<string, AlertStatus>> = { open: 'open', new: 'open', approved: 'approved', handled: 'approved', rejected: 'rejected' };

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `terms`: lower-case term → metric (metric names with their underscores as spaces, and every synonym). */
export function parseAlertQuery(query: string, terms: ReadonlyMap<string, string>): ParsedAlertQuery {
  let text = ` ${query.toLowerCase().replace(/\s+/g, ' ').trim()} `;
  const result: ParsedAlertQuery = { metric: null, metric_term: null, value: null, segment_name: null, status: null, severity: null, demand_class: null };

  // The segment name keeps its case, so it is cut from the original text.
  const seg = /\bin segment\s+(?:"([^"]+)"|'([^']+)'|(\S+))/i.exec(query);
  if (seg) {
    result.segment_name = (seg[1] ?? seg[2] ?? seg[3]).replace(/[.,;]+$/, '');
    text = text.replace(/\bin segment\s+(?:"[^"]+"|'[^']+'|\S+)/, ' ');
  }

  const sorted = [...terms.keys()].sort((a, b) => b.length - a.length);
  for (const term of sorted) {
    const m = new RegExp(`(^|[^a-z0-9_])${escape(term)}(?=$|[^a-z0-9_])`).exec(text);
    if (m) {
      result.metric = terms.get(term)!;
      result.metric_term = term;
      text = text.slice(0, m.index) + m[1] + ' '.repeat(term.length) + text.slice(m.index + m[0].length);
      break;
    }
  }

  for (let i = 0; i < text.length && !result.value; i++) {
    if (i > 0 && /[a-z]/.test(text[i - 1]) && /[a-z]/.test(text[i])) continue;
    const rest = text.slice(i);
    for (const [re, op] of OPS) {
      const m = re.exec(rest);
      if (!m) continue;
      const num = /^\s*(-?\d+(?:[.,]\d+)?)\s*(%|percent\b)?/.exec(rest.slice(m[0].length));
      if (!num) continue;
      const n = Number(num[1].replace(',', '.'));
      result.value = { op, value: num[2] ? n / 100 : n };
      break;
    }
  }

  for (const [word, status] of Object.entries(STATUS_WORDS)) {
    if (new RegExp(`\\b${word}\\b`).test(text)) { result.status = status; break; }
  }
  for (const s of [...SEVERITIES].reverse()) {
    if (new RegExp(`\\b${s}\\b`).test(text)) { result.severity = s; break; }
  }
  // Demand classes in the order written ("lumpy or intermittent series"); a metric term was blanked out above.
  const classes = [...text.matchAll(new RegExp(`\\b(${DEMAND_CLASSES.join('|')})\\b`, 'g'))].map((m) => m[1] as DemandClass);
  if (classes.length) result.demand_class = [...new Set(classes)];
  return result;
}

/** The term table the parser reads: every metric name (also with spaces for underscores) and every synonym. */
export function queryTerms(metricNames: readonly string[], synonyms: ReadonlyArray<{ term: string; canonical_metric: string }>): Map<string, string> {
  const terms = new Map<string, string>();
  for (const s of synonyms) terms.set(s.term.toLowerCase(), s.canonical_metric);
  // metric names win over a synonym spelled the same way
  for (const m of metricNames) {
    terms.set(m.toLowerCase(), m);
    terms.set(m.toLowerCase().replace(/_/g, ' '), m);
  }
  return terms;
}
