import type { SeriesFacts } from './facts';
import { RULES_BY_METRIC, type AlertRule, type Comparison, type Severity } from './ontology';

export interface FiredAlert {
  item_id: number;
  site_id: number;
  metric_name: string;
  value: number;
  threshold: number;
  severity: Severity;
  comparison: Comparison;
  message: string;
}

export function compare(value: number, comparison: Comparison, threshold: number): boolean {
  switch (comparison) {
    case 'gt': return value > threshold;
    case 'gte': return value >= threshold;
    case 'lt': return value < threshold;
    case 'lte': return value <= threshold;
    case 'abs_gt': return Math.abs(value) > threshold;
  }
}

/**
 * How bad a value is under its comparison, larger = worse: what decides whether a decided alert reopens
 * (db/alerts.ts upsert keeps approve/reject unless the new value is worse).
 */
export function badness(value: number, comparison: Comparison): number {
  if (comparison === 'abs_gt') return Math.abs(value);
  return comparison === 'lt' || comparison === 'lte' ? -value : value;
}

const SYMBOL: Record<Comparison, string> = { gt: '>', gte: '≥', lt: '<', lte: '≤', abs_gt: '|x| >' };

const fmt = (x: number) => (Number.isInteger(x) ? String(x) : x.toPrecision(4).replace(/\.?0+$/, ''));

/**
 * The enabled rules over every series: one alert per (series, rule) whose value trips its comparison. Rules the
 * catalogue does not define are skipped (a tenant can only edit the defaults' thresholds, not add formulas).
 */
export function evaluateAlerts(rules: readonly AlertRule[], facts: readonly SeriesFacts[]): FiredAlert[] {
  const active = rules.filter((r) => r.enabled && RULES_BY_METRIC.has(r.metric_name));
  const out: FiredAlert[] = [];
  for (const f of facts) {
    for (const r of active) {
      const value = RULES_BY_METRIC.get(r.metric_name)!.value(f);
      if (value === null || !Number.isFinite(value) || !compare(value, r.comparison, r.threshold)) continue;
      out.push({
        item_id: f.item_id, site_id: f.site_id, metric_name: r.metric_name, value, threshold: r.threshold, severity: r.severity, comparison: r.comparison,
        message: `${r.description}: ${r.metric_name} = ${fmt(value)} (${SYMBOL[r.comparison]} ${fmt(r.threshold)})`,
      });
    }
  }
  return out;
}
