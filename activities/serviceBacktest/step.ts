/**
 * The service-backtest step (docs/SERVICE_BACKTEST.md): per item, every SKU-site's policy sized as of each origin by
 * the pipeline's own outlier correction, distribution fit and meio planner, replayed with the peers over the
 * held-out weeks (domain/serviceBacktest); then the SKU-sites that missed their target by more than the tolerance
 * go into the exception log. Chunks hold whole items, as in the meio step: the planner sizes an item across its network.
 */
import { refreshExceptionLog } from '../../db/exceptionLog';
import { loadMeioSettings } from '../../db/meioConfig';
import { meioScenarioForRun, networkSites, overridesOf } from '../../db/meioResults';
import type { Tx } from '../../db/pool';
import { routesOfItems } from '../../db/routes';
import {
  abcClassesOf, dropServiceBacktestOutside, replaceServiceBacktestResults, serviceBacktestSettings, serviceBacktestSummaryRows,
} from '../../db/serviceBacktest';
import type { Issue } from '../../domain/exceptions/rules';
import { resolveServiceTarget } from '../../domain/inventory/serviceTargets';
import { backtestItem, type BacktestItemInput, type BacktestRow } from '../../domain/serviceBacktest/derive';
import { serviceIssues } from '../../domain/serviceBacktest/exceptions';
import { summarize } from '../../domain/serviceBacktest/summarize';
import { checkpoint } from '../jobs/activity';
import type { SeriesStepHandler } from '../steps/types';
import { pipelineModels } from './models';

// an item of a large network is sized up to ten times (its target and the sweep): beat before every item
const CHECKPOINT_EVERY = 1;

async function scenarioOf(run: { tx: Tx; meioScenarioId?: number | null }): Promise<number> {
  const id = await meioScenarioForRun(run.tx, run.meioScenarioId ?? null);
  if (id === null) throw new Error(`MEIO scenario ${run.meioScenarioId} not found`);
  return id;
}

const pct = (v: number | null | undefined) => (typeof v === 'number' ? `${(100 * v).toFixed(2)} %` : 'n/a');

export const serviceBacktestStep: SeriesStepHandler = {
  // the outlier and distribution steps' own parameters, so the policy as of an origin is sized as the pipeline sizes it
  parameterTypes: ['outlier', 'characterization', 'distribution'],
  chunkBy: 'item',
  async run(run, series, params) {
    const pipelineId = run.scope.pipelineId;
    const scenarioId = await scenarioOf(run);
    const meio = (await loadMeioSettings(run.tx, scenarioId))!;
    const settings = await serviceBacktestSettings(run.tx, pipelineId);
    const itemIds = [...new Set(series.map((s) => s.item_id))];
    const [sites, routes, overrides, abc] = await Promise.all([
      networkSites(run.tx, pipelineId, itemIds), routesOfItems(run.tx, itemIds), overridesOf(run.tx, pipelineId, scenarioId, itemIds), abcClassesOf(run.tx, itemIds),
    ]);
    const history = new Map(series.map((s) => [s.unique_id, s.y]));
    const sitesOf = new Map<number, typeof sites>();
    for (const s of sites) sitesOf.set(s.item_id, [...(sitesOf.get(s.item_id) ?? []), s]);
    const models = pipelineModels(params);
    const rows: BacktestRow[] = [];
    const skipped = new Map<string, number>();
    itemIds.forEach((itemId, i) => {
      if (i % CHECKPOINT_EVERY === 0) checkpoint({ index: run.index, phase: 'service-backtest', done: i });
      const item: BacktestItemInput = {
        itemId,
        sites: (sitesOf.get(itemId) ?? []).map((s) => {
          const uid = `${s.item_id}_${s.site_id}`;
          const o = overrides.get(uid);
          const t = resolveServiceTarget(meio, s.segment_ids, o ? { sl_override: o.sl_override, fr_override: o.fr_override } : undefined);
          return {
            siteId: s.site_id, history: history.get(uid) ?? null, unitCost: s.unit_cost, masterLeadTime: s.lead_time_weeks, moq: s.moq, orderMultiple: s.order_multiple,
            eoqOverride: o?.eoq_override ?? null, abcClass: abc.get(uid) ?? null, segmentIds: s.segment_ids,
            target: {
              service_type: t.service_type, target_service: t.target_service, holding_rate: t.holding_rate, ordering_cost: t.ordering_cost,
              policy: t.policy, review_period_weeks: t.review_period_weeks, source: t.source,
            },
          };
        }),
        routes: routes.filter((r) => r.item_id === null || r.item_id === itemId)
          .map((r) => ({ from: r.from_site_id, to: r.to_site_id, type: r.route_type, leadTime: Number(r.lead_time), priority: r.priority })),
      };
      const r = backtestItem(item, models, {
        originWeeks: settings.origin_weeks, mode: settings.shortage_mode, warmupWeeks: settings.warmup_weeks, peers: settings.peers, sweepTargets: settings.sweep_targets,
      });
      rows.push(...r.rows);
      // the reason's kind only (its text before a colon), so the note stays one line
      for (const k of r.skipped) skipped.set(k.reason.split(':')[0], (skipped.get(k.reason.split(':')[0]) ?? 0) + 1);
    });
    const written = await replaceServiceBacktestResults(run.tx, pipelineId, scenarioId, itemIds, rows, settings.shortage_mode, run.jobId);
    const ours = rows.filter((r) => r.variant === 'target' && r.result.fillRate !== null);
    const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);
    return {
      rows: written,
      note: `scenario ${scenarioId}: ${ours.length} SKU-site replays, mean fill rate ${pct(mean(ours.map((r) => r.result.fillRate!)))} against a mean target of ${pct(mean(ours.map((r) => r.targetService)))}${skipped.size ? `; skipped: ${[...skipped].map(([reason, n]) => `${n} ${reason}`).join(', ')}` : ''}`,
    };
  },
  async finalize(run) {
    const pipelineId = run.scope.pipelineId;
    const scenarioId = await scenarioOf(run);
    const dropped = await dropServiceBacktestOutside(run.tx, pipelineId, scenarioId, run.jobId);
    const settings = await serviceBacktestSettings(run.tx, pipelineId);
    const rows = await serviceBacktestSummaryRows(run.tx, { pipelineId, scenarioId });
    const all = summarize(rows, 'all')[0];
    const ours = all?.variants.find((v) => v.variant === 'target');
    const peers = (all?.variants ?? []).filter((v) => v.variant !== 'target').map((v) => `${v.variant} ${pct(v.mean_fill_rate)}`).join(', ');
    let log = '';
    if (pipelineId > 0) {
      // the issues are of type 'service', which the log's own refresh (forecast, io, supply) leaves as they are
      const fresh = serviceIssues(rows, settings.tolerance) as unknown as Array<{ item_id: number; site_id: number; issues: Issue[] }>;
      const r = await refreshExceptionLog(run.tx, pipelineId, fresh, null, ['service']);
      log = `; exception log: ${fresh.length} SKU-sites more than ${pct(settings.tolerance)} below their target (${r.created} new, ${r.reopened} reopened, ${r.cleared} cleared)`;
    }
    const summary = ours
      ? `scenario ${scenarioId}: ${ours.sku_sites} SKU-site replays, mean fill rate ${pct(ours.mean_fill_rate)} against ${pct(ours.mean_target)}${peers ? `; peers ${peers}` : ''}`
      : `scenario ${scenarioId}: nothing replayed`;
    return `${summary}${log}${dropped ? `; dropped ${dropped} rows of items out of scope` : ''}`;
  },
};
