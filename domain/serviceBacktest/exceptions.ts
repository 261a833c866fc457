/**
 * The exception-log issues of the service backtest (docs/SERVICE_BACKTEST.md "Exceptions"): a SKU-site whose
 * replayed policy served a fill rate more than `tolerance` below its target, at any origin, gets one issue per such
 * origin, of type 'service'. The log keeps them beside the forecast, io and supply issues, which its own refresh
 * leaves alone.
 */
import type { SummaryRow } from './summarize';

/** A miss this far below the target (absolute) is high severity, as for the io rule's expected fill rate. */
export const MISS_HIGH = 0.1;

export interface ServiceIssue {
  type: 'service';
  code: 'backtest_fill_rate';
  severity: 'high' | 'medium';
  description: string;
  origin_weeks: number;
  target_service: number;
  achieved_fill_rate: number;
  average_on_hand: number;
  stockout_weeks: number;
}

const pct = (v: number) => `${(100 * v).toFixed(1)} %`;

export function serviceIssues(rows: readonly SummaryRow[], tolerance: number): Array<{ item_id: number; site_id: number; issues: ServiceIssue[] }> {
  const bySite = new Map<string, { item_id: number; site_id: number; issues: ServiceIssue[] }>();
  const ours = rows.filter((r) => r.variant === 'target' && r.fill_rate !== null && r.fill_rate < r.target_service - tolerance)
    .sort((a, b) => a.item_id - b.item_id || a.site_id - b.site_id || a.origin_weeks - b.origin_weeks);
  for (const r of ours) {
    const key = `${r.item_id}_${r.site_id}`;
    const entry = bySite.get(key) ?? { item_id: r.item_id, site_id: r.site_id, issues: [] };
    const gap = r.target_service - r.fill_rate!;
    entry.issues.push({
      type: 'service', code: 'backtest_fill_rate', severity: gap > MISS_HIGH ? 'high' : 'medium',
      description: `replayed over the ${r.origin_weeks} weeks after its origin, the stock target served ${pct(r.fill_rate!)} of demand from stock against a target of ${pct(r.target_service)} (${r.stockout_weeks} weeks short)`,
      origin_weeks: r.origin_weeks, target_service: r.target_service, achieved_fill_rate: r.fill_rate!, average_on_hand: r.average_on_hand, stockout_weeks: r.stockout_weeks,
    });
    bySite.set(key, entry);
  }
  return [...bySite.values()];
}
