import { getVersion, latestFrozenVersion, mondayOf, type VersionRow } from '../../../db/history';
import {
  COMPARE_DIMENSIONS, compareSeries, frozenDateBefore, liveFigures, planVsActual, versionFigures, versionsInOrder, type CompareDimension, type SeriesFilter, type Side,
  type SnapshotFigures,
} from '../../../db/historyViews';
import { getPipeline } from '../../../db/pipelines';
import { withTenant, type Tx } from '../../../db/pool';
import { canViewSegment, getSegment } from '../../../db/segments';
import type { AuthUser } from '../../context';
import { badRequest, conflict, forbidden, notFound } from '../../errors';
import { defineRoute, type RouteTable } from '../define';
import { errors, int4, mondayDate, nullable, obj, out } from '../schemas';
import { checkArchiveDate, checkDate, pipelineOr404 } from './common';
import type { JsonSchema } from '../validation';

const pipelineId: JsonSchema = int4(1, { description: 'the scenario pipeline (required; 0 is refused)' });
const id32: JsonSchema = int4(1);
const isoDate: JsonSchema = { type: 'string', format: 'date' };
const archiveDate: JsonSchema = mondayDate('archive date of a version of the pipeline: a Monday (YYYY-MM-DD); another weekday is a 400');
const page = {
  skip: int4(0, { default: 0, description: 'rows to skip' }),
  limit: { type: 'integer', minimum: 1, maximum: 1000, default: 100, description: 'rows per page' },
};
const num = (description?: string): JsonSchema => nullable({ type: 'number', ...(description ? { description } : {}) });
const int = (description?: string): JsonSchema => nullable({ type: 'integer', ...(description ? { description } : {}) });
const str = (description?: string): JsonSchema => nullable({ type: 'string', ...(description ? { description } : {}) });

// ---------------------------------------------------------------------------------------------------------------
// Response schemas

const sideSchema: JsonSchema = out({
  kind: { type: 'string', enum: ['version', 'live'], description: 'a frozen version, or the pipeline\'s live rows (`target=live`)' },
  archive_date: str('the version\'s archive date; null for live'),
  snapshot_ts: str('when the version was frozen; null for live'),
  pinned: nullable({ type: 'boolean' }), frozen: nullable({ type: 'boolean' }),
  comment: str(), source: str('api or schedule: who froze it'),
});
const seriesFields: Record<string, JsonSchema> = {
  unique_id: { type: 'string', description: '`<item_id>_<site_id>`' }, item_id: { type: 'integer' }, site_id: { type: 'integer' },
  item_xuid: str('null when the item no longer exists'), item_name: str(), site_xuid: str(),
};
const presence: JsonSchema = { type: 'string', enum: ['both', 'base_only', 'target_only'], description: 'which versions hold the key; the other side\'s fields are null' };
const changed: JsonSchema = { type: 'boolean', description: 'the two sides differ (always true for a one-sided row)' };
const presenceTotals: Record<string, JsonSchema> = {
  series: { type: 'integer', description: 'rows the filters select (all pages)' }, both: { type: 'integer' }, base_only: { type: 'integer' },
  target_only: { type: 'integer' }, changed: { type: 'integer' },
};
const triple = (name: string, what: string, integer = false): Record<string, JsonSchema> => {
  const t = integer ? int : num;
  return { [`base_${name}`]: t(`${what} in base`), [`target_${name}`]: t(`${what} in target`), [`delta_${name}`]: t('target − base; null when a side is missing') };
};

const kpiRow: JsonSchema = out({
  metric: { type: 'string', description: 'fill_rate, inventory_value, shortage_qty, forecast_mase, series, row_count_total, or table_counts.<table>' },
  base: num(), target: num(), delta: num('target − base'), pct_delta: num('delta / |base|; null when base is 0 or null'),
  better: nullable({ type: 'string', enum: ['higher', 'lower'], description: 'which way is an improvement; null when neither' }),
  improved: nullable({ type: 'boolean', description: 'the change goes the better way; null without a direction or a change' }),
});
const forecastRow: JsonSchema = out({
  ...seriesFields, presence, changed,
  base_method: str('best method in base'), target_method: str('best method in target'),
  base_total: num('sum of the best method\'s forecast over the window; null without a forecast row'), target_total: num(),
  delta: num('target_total − base_total'), pct_delta: num('delta / |base_total|'),
  base_weeks: int('weeks of the window the base forecast has a value for'), target_weeks: int(),
  base_weekly: nullable({ type: 'array', items: num(), description: 'detail=true: one value per window week, null where the forecast has none' }),
  target_weekly: nullable({ type: 'array', items: num() }),
}, [...Object.keys(seriesFields), 'presence', 'changed', 'base_method', 'target_method', 'base_total', 'target_total', 'delta', 'pct_delta', 'base_weeks', 'target_weeks']);
const orderTypeCell: JsonSchema = out({
  base_n_orders: int(), base_qty: num(), base_value: num(), target_n_orders: int(), target_qty: num(), target_value: num(),
  delta_qty: { type: 'number' }, delta_value: { type: 'number' },
});
const orderRow: JsonSchema = out({
  ...seriesFields, supply_scenario_id: { type: 'integer', description: 'the supply scenario of the run' }, presence, changed,
  ...triple('n_orders', 'engine orders', true), ...triple('qty', 'ordered quantity'), pct_delta_qty: num(),
  ...triple('value', 'quantity × unit cost'), pct_delta_value: num(),
  by_type: { type: 'object', additionalProperties: orderTypeCell, description: 'per order type (BUY, TRANSFER, …): counts, quantities and values; 0 for a type a present side has no order of' },
});
const inventoryRow: JsonSchema = out({
  ...seriesFields, supply_scenario_id: { type: 'integer' }, presence, changed,
  ...triple('avg_projected', 'mean projected on-hand over the horizon (a backlog week counts as 0)'),
  ...triple('ending_inventory_value', 'projected on-hand of the last week × unit cost'),
  ...triple('avg_inventory_value', 'mean projected inventory value'),
  ...triple('shortage_qty', 'demand not served in its own week'),
  ...triple('fill_rate', 'projected fill rate'),
});
const meioRow: JsonSchema = out({
  ...seriesFields, meio_scenario_id: { type: 'integer' }, presence, changed, base_policy: str(), target_policy: str(),
  ...triple('safety_stock', 'safety stock'), ...triple('reorder_point', 'reorder point'), ...triple('order_up_to', 'order-up-to level'),
  ...triple('investment', 'unit cost × expected on hand'), ...triple('expected_fill_rate', 'expected fill rate'),
});
const exceptionRow: JsonSchema = out({
  ...seriesFields, supply_scenario_id: { type: 'integer' },
  type: { type: 'string', description: 'shortage, below_safety_stock, excess, late_order, no_source' }, severity: { type: 'string', enum: ['high', 'medium', 'low'] },
  status: { type: 'string', enum: ['new', 'resolved', 'persisting'], description: 'none of this type and severity in base / in target / in both' }, changed,
  base_count: { type: 'integer' }, target_count: { type: 'integer' }, delta: { type: 'integer' },
  base_qty: { type: 'number' }, target_qty: { type: 'number' }, delta_qty: { type: 'number' },
});
const bestMethodRow: JsonSchema = out({
  ...seriesFields, presence, base_method: str('from'), target_method: str('to'),
  base_score: num('the best method\'s backtest score in base'), target_score: num(), base_metric: str('the score\'s metric'), target_metric: str(),
});

const sumTotals = (names: string[], extra: Record<string, JsonSchema> = {}) =>
  out({ ...presenceTotals, ...Object.fromEntries(names.flatMap((n) => [[`base_${n}`, { type: 'number' }], [`target_${n}`, { type: 'number' }]])), ...extra });

const TOTALS: Record<Exclude<CompareDimension, 'kpi'>, JsonSchema> = {
  forecast: out({
    ...presenceTotals, base_total: { type: 'number', description: 'sum over every listed series (one-sided ones included)' }, target_total: { type: 'number' },
    delta: { type: 'number' }, pct_delta: num(), delta_common: { type: 'number', description: 'sum of delta over the series both versions hold' },
  }),
  order: sumTotals(['n_orders', 'qty', 'value'], {
    delta_n_orders: { type: 'number' }, delta_qty: { type: 'number' }, delta_value: { type: 'number' },
    by_type: { type: 'array', items: out({
      order_type: { type: 'string' }, base_n_orders: { type: 'integer' }, target_n_orders: { type: 'integer' }, base_qty: { type: 'number' }, target_qty: { type: 'number' },
      delta_qty: { type: 'number' }, base_value: { type: 'number' }, target_value: { type: 'number' }, delta_value: { type: 'number' },
    }) },
  }),
  inventory: sumTotals(['avg_projected', 'ending_inventory_value', 'avg_inventory_value', 'shortage_qty', 'demand_qty'], {
    base_fill_rate: num('(demand − shortage) / demand over the listed plans'), target_fill_rate: num(),
    delta_ending_inventory_value: { type: 'number' }, delta_avg_inventory_value: { type: 'number' }, delta_shortage_qty: { type: 'number' }, delta_fill_rate: num(),
  }),
  meio_buffer: sumTotals(['safety_stock', 'reorder_point', 'order_up_to', 'investment'], {
    delta_safety_stock: { type: 'number' }, delta_investment: { type: 'number' },
    base_expected_fill_rate: num('weighted by mean weekly demand'), target_expected_fill_rate: num(),
  }),
  exceptions: out({
    groups: { type: 'integer', description: '(scenario, series, type, severity) groups the filters select' }, changed: { type: 'integer' },
    base_count: { type: 'integer' }, target_count: { type: 'integer' }, delta: { type: 'integer' },
    new: { type: 'integer', description: 'target exceptions of groups base has none of' }, resolved: { type: 'integer', description: 'base exceptions of groups target has none of' },
    persisting: { type: 'integer', description: 'target exceptions of groups both have' },
    by_type: { type: 'array', items: out({
      type: { type: 'string' }, severity: { type: 'string' }, base_count: { type: 'integer' }, target_count: { type: 'integer' }, delta: { type: 'integer' },
      new: { type: 'integer' }, resolved: { type: 'integer' }, persisting: { type: 'integer' },
    }) },
  }),
  best_method: out({
    series: { type: 'integer' }, unchanged: { type: 'integer' }, changed: { type: 'integer', description: 'in both, with a different method' },
    base_only: { type: 'integer' }, target_only: { type: 'integer' },
    by_method: { type: 'array', items: out({
      method: { type: 'string' }, base_count: { type: 'integer' }, target_count: { type: 'integer' }, delta: { type: 'integer' },
      gained: { type: 'integer', description: 'series whose best method became this one' }, lost: { type: 'integer', description: 'series whose best method stopped being this one' },
    }) },
    transitions: { type: 'array', items: out({ from: str(), to: str(), series: { type: 'integer' } }), description: 'from → to pairs, most frequent first' },
  }),
};
const ROWS: Record<Exclude<CompareDimension, 'kpi'>, JsonSchema> = {
  forecast: forecastRow, order: orderRow, inventory: inventoryRow, meio_buffer: meioRow, exceptions: exceptionRow, best_method: bestMethodRow,
};

const envelope = (dimension: CompareDimension, rows: JsonSchema, extra: Record<string, JsonSchema>): JsonSchema => out({
  pipeline_id: { type: 'integer' }, dimension: { type: 'string', enum: [dimension] }, base: sideSchema, target: sideSchema,
  ...extra, rows: { type: 'array', items: rows },
});
const compareSchema: JsonSchema = {
  oneOf: [
    envelope('kpi', kpiRow, {}),
    ...(Object.keys(ROWS) as Array<Exclude<CompareDimension, 'kpi'>>).map((d) => envelope(d, ROWS[d], {
      total: { type: 'integer', description: 'listed rows, all pages (also in X-Total-Count)' }, skip: { type: 'integer' }, limit: { type: 'integer' },
      totals: TOTALS[d],
      ...(d === 'forecast' ? { window: nullable(out({ from_week: { type: 'string' }, to_week: { type: 'string' }, weeks: { type: 'integer' } })) } : {}),
    })),
  ],
};

const kpiSchema: JsonSchema = out({
  fill_rate: num(), inventory_value: num(), shortage_qty: num(), forecast_mase: num(), series: int(),
});
const timelineEntry: JsonSchema = out({
  archive_date: { type: 'string' }, snapshot_ts: { type: 'string' }, created_by: str(), comment: str(), source: { type: 'string', enum: ['api', 'schedule'] },
  frozen: { type: 'boolean' }, pinned: { type: 'boolean' },
  latest: { type: 'boolean', description: 'the version readers use (freeze rule 6: the newest frozen archive date)' },
  parent_archive_date: str('the version frozen before this one'), replaced_archive_date: str('the un-pinned version of the same week this one replaced'),
  row_count_total: { type: 'integer' }, table_counts: { type: 'object', additionalProperties: { type: 'number' }, description: 'rows per pipeline table, and on_hand' },
  kpis: kpiSchema,
  previous_archive_date: str('the entry before this one (also when `from` leaves it out); null for the first version'),
  delta: nullable(out({
    fill_rate: num(), inventory_value: num(), shortage_qty: num(), forecast_mase: num(), series: int(), row_count_total: { type: 'integer' },
    table_counts: { type: 'object', additionalProperties: { type: 'number' }, description: 'per table, this − previous (a table one side lacks counts 0 there)' },
  })),
});

const pvaRow: JsonSchema = out({
  ...seriesFields, method: { type: 'string', description: 'the version\'s best method' },
  weeks: { type: 'integer', description: 'weeks with both a forecast and an actual' }, first_week: { type: 'string' }, last_week: { type: 'string' },
  forecast: { type: 'number' }, actual: { type: 'number' }, error: { type: 'number', description: 'forecast − actual (positive: over-forecast)' },
  abs_error: { type: 'number', description: 'Σ |forecast − actual| per week' }, bias: num('error / actual; null when actual is 0'),
  mape: num('mean of |error| / |actual| over the weeks with actual ≠ 0 (0.25 = 25 %)'), wape: num('abs_error / Σ |actual|'),
  weeks_detail: { type: 'array', description: 'detail=true', items: out({ week: { type: 'string' }, forecast: { type: 'number' }, actual: { type: 'number' }, error: { type: 'number' } }) },
}, [...Object.keys(seriesFields), 'method', 'weeks', 'first_week', 'last_week', 'forecast', 'actual', 'error', 'abs_error', 'bias', 'mape', 'wape']);
const pvaSchema: JsonSchema = out({
  pipeline_id: { type: 'integer' }, archive_date: { type: 'string' }, dimension: { type: 'string', enum: ['demand'] }, version: sideSchema,
  actuals: { type: 'string', enum: ['series_weekly'], description: 'where the actuals come from' },
  total: { type: 'integer' }, skip: { type: 'integer' }, limit: { type: 'integer' },
  totals: out({
    series: { type: 'integer', description: 'series with at least one week of actuals' }, series_in_version: { type: 'integer', description: 'series with a best-method forecast in the version' },
    weeks: { type: 'integer', description: 'series-weeks compared' }, first_week: str(), last_week: str(),
    forecast: { type: 'number' }, actual: { type: 'number' }, error: { type: 'number' }, abs_error: { type: 'number' },
    bias: num(), mape: num('over every series-week with actual ≠ 0'), wape: num(),
  }),
  by_week: { type: 'array', items: out({
    week: { type: 'string' }, series: { type: 'integer' }, forecast: { type: 'number' }, actual: { type: 'number' }, error: { type: 'number' },
    abs_error: { type: 'number' }, wape: num(),
  }), description: 'every week with actuals, summed over the listed series' },
  rows: { type: 'array', items: pvaRow },
});

// ---------------------------------------------------------------------------------------------------------------
// Checks

/** A real calendar date, and a Monday: archive dates are the Monday of the planning week (freeze rule 1). */
/** The week's un-pinned version when there is one, else its newest pinned one (db/history.ts getVersion). */
async function versionOr404(tx: Tx, pipeline: number, field: string, date: string): Promise<VersionRow> {
  const v = await getVersion(tx, pipeline, date);
  if (!v) throw notFound(`${field}: pipeline ${pipeline} has no version for archive date ${date}`);
  // a freeze commits its registry row with its copies, so this only shows a registry written some other way
  if (!v.frozen) throw conflict(`${field}: the version of ${date} is not frozen yet`);
  return v;
}

/** Freeze rule 6: a read that names no archive date is about the newest frozen version. */
async function latestOr404(tx: Tx, pipeline: number, field: string): Promise<VersionRow> {
  const v = await latestFrozenVersion(tx, pipeline);
  if (!v) throw notFound(`${field}: pipeline ${pipeline} has no frozen version yet`);
  return v;
}

async function segmentOr404(tx: Tx, user: AuthUser, id: number | undefined): Promise<void> {
  if (id === undefined) return;
  if (!(await getSegment(tx, id))) throw notFound(`segment_id: segment ${id} not found`);
  if (!canViewSegment(user, id)) throw forbidden(`segment_id: access to segment ${id} denied (it is not one of your segments)`);
}

const sideView = (s: Side) => s.kind === 'live'
  ? { kind: 'live', archive_date: null, snapshot_ts: null, pinned: null, frozen: null, comment: null, source: null }
  : { kind: 'version', archive_date: s.version.archive_date, snapshot_ts: s.version.snapshot_ts, pinned: s.version.pinned, frozen: s.version.frozen, comment: s.version.comment, source: s.version.source };

const KPI_DIRECTION: Record<string, 'higher' | 'lower' | null> = { fill_rate: 'higher', inventory_value: 'lower', shortage_qty: 'lower', forecast_mase: 'lower', series: null };

/** The registry's headline figures side by side, then the rows per table (every table either side counted). */
function kpiRows(b: SnapshotFigures, t: SnapshotFigures) {
  const row = (metric: string, base: number | null, target: number | null, better: 'higher' | 'lower' | null) => {
    const delta = base === null || target === null ? null : target - base;
    return {
      metric, base, target, delta, pct_delta: delta === null || !base ? null : delta / Math.abs(base), better,
      improved: better === null || delta === null || delta === 0 ? null : (better === 'higher') === delta > 0,
    };
  };
  const tables = [...new Set([...Object.keys(b.table_counts), ...Object.keys(t.table_counts)])];
  return [
    ...(Object.keys(KPI_DIRECTION) as Array<keyof SnapshotFigures['kpis']>).map((k) => row(k, b.kpis[k], t.kpis[k], KPI_DIRECTION[k])),
    row('row_count_total', b.row_count_total, t.row_count_total, null),
    ...tables.map((name) => row(`table_counts.${name}`, b.table_counts[name] ?? 0, t.table_counts[name] ?? 0, null)),
  ];
}

const diff = (a: number | null, b: number | null) => (a === null || b === null ? null : a - b);

/** Query parameters that only mean something for some dimensions: sent with another, they are a 400, not ignored. */
const ONLY_FOR: Record<string, readonly CompareDimension[]> = {
  item_id: COMPARE_DIMENSIONS.filter((d) => d !== 'kpi'),
  site_id: COMPARE_DIMENSIONS.filter((d) => d !== 'kpi'),
  segment_id: COMPARE_DIMENSIONS.filter((d) => d !== 'kpi'),
  detail: ['forecast'],
  supply_scenario_id: ['order', 'inventory', 'exceptions'],
  meio_scenario_id: ['meio_buffer'],
};

// ---------------------------------------------------------------------------------------------------------------

/** Document 2 §4.5: compare two versions, a version's forecast against actual demand, and the timeline of versions. */
export function registerHistoryViewRoutes(table: RouteTable): void {
  const tag = 'history';

  defineRoute(table, {
    method: 'get', path: '/api/compare/versions', tag, pipelineScoped: true,
    summary: 'Compare two versions of a pipeline, or a version with the live plan',
    description: [
      '`base` is a version\'s archive date; `target` is another one or `live` (the pipeline\'s current rows, taken as a freeze would take them: per supply scenario the newest completed supply run). Without `target`, the newest frozen version (freeze rule 6); without `base`, the newest frozen version before the target (with `target=live`: the newest frozen version), so a bare call shows what the last freeze changed. `base` = `target` is allowed (every delta 0). An archive date with both an un-pinned and pinned versions means the un-pinned one.',
      'Dimensions: **kpi** — the registry\'s headline KPIs and rows per table side by side (not paged; `item_id`, `site_id`, `segment_id` are refused). **forecast** — per series the best method\'s forecast summed over the window both versions forecast (`window`: from the later first forecast week to the earlier last one), with per-week values when `detail=true`. **order** — engine supply orders per supply scenario and series: count, quantity, value (qty × unit cost) and the same per order type. **inventory** — the projected plan per supply scenario and series: mean projected stock, ending and mean inventory value, shortage, fill rate. **meio_buffer** — MEIO policy per MEIO scenario and SKU-site: safety stock, reorder point, order-up-to, investment, expected fill rate. **exceptions** — supply exceptions counted per series, type and severity: new, resolved or persisting. **best_method** — only the series whose best method changed (from → to, one-sided ones included), with counts per method and the transitions.',
      'A key present in one version only is listed with `presence` base_only or target_only and the other side null. `sort=abs_delta` (default) lists the largest changes first — forecast total, order value, ending inventory value, MEIO investment, exception count, a missing side counting as 0 — then by series; `sort=series` by item and site; best_method always by from, to, series. `only_changed` lists only rows whose sides differ (kpi: only changed metrics). `totals` cover every row the filters select, whatever `only_changed` and the page. Paged; the total is also in `X-Total-Count`.',
    ].join('\n\n'),
    query: obj({
      pipeline_id: pipelineId,
      base: { ...archiveDate, description: 'archive date of the version compared from; default: the newest frozen version before `target`, or the newest frozen version when `target` is live' },
      target: { type: 'string', pattern: '^(live|\\d{4}-\\d{2}-\\d{2})$', description: 'archive date of the version compared to, or `live`; default: the newest frozen version (freeze rule 6)' },
      dimension: { type: 'string', enum: [...COMPARE_DIMENSIONS] },
      item_id: { ...id32, description: 'only this item' }, site_id: { ...id32, description: 'only this site' },
      segment_id: { ...id32, description: 'only the series of this segment (its current members)' },
      supply_scenario_id: { ...id32, description: 'order, inventory, exceptions: only this supply scenario\'s run' },
      meio_scenario_id: { ...id32, description: 'meio_buffer: only this MEIO scenario' },
      detail: { type: 'boolean', default: false, description: 'forecast: add the per-week values of the window' },
      only_changed: { type: 'boolean', default: false },
      sort: { type: 'string', enum: ['abs_delta', 'series'], default: 'abs_delta' },
      ...page,
    }, ['pipeline_id', 'dimension']),
    responses: { 200: { description: 'the comparison; its shape depends on `dimension`', schema: compareSchema }, ...errors(403, 404, 409) },
    handler: async (ctx, { query, user }) => {
      const dimension = query.dimension as CompareDimension;
      for (const [param, dims] of Object.entries(ONLY_FOR)) {
        if (ctx.query[param] !== undefined && !dims.includes(dimension)) throw badRequest(`query.${param}: applies to dimension ${dims.join(', ')}, not ${dimension}`);
      }
      if (query.base !== undefined) checkArchiveDate('query.base', query.base);
      if (query.target !== undefined && query.target !== 'live') checkArchiveDate('query.target', query.target);
      const result = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        await pipelineOr404(tx, query.pipeline_id);
        const target: Side = query.target === 'live' ? { kind: 'live' }
          : { kind: 'version', version: query.target === undefined ? await latestOr404(tx, query.pipeline_id, 'query.target') : await versionOr404(tx, query.pipeline_id, 'query.target', query.target) };
        let base: Side;
        if (query.base !== undefined) base = { kind: 'version', version: await versionOr404(tx, query.pipeline_id, 'query.base', query.base) };
        else if (target.kind === 'live') base = { kind: 'version', version: await latestOr404(tx, query.pipeline_id, 'query.base') };
        else {
          const before = await frozenDateBefore(tx, query.pipeline_id, target.version.archive_date);
          if (!before) throw notFound(`query.base: pipeline ${query.pipeline_id} has no frozen version before ${target.version.archive_date}`);
          base = { kind: 'version', version: await versionOr404(tx, query.pipeline_id, 'query.base', before) };
        }
        const head = { pipeline_id: query.pipeline_id, dimension, base: sideView(base), target: sideView(target) };
        if (dimension === 'kpi') {
          const rows = kpiRows(versionFigures(base.version), target.kind === 'live' ? await liveFigures(tx, query.pipeline_id) : versionFigures(target.version));
          return { ...head, rows: query.only_changed ? rows.filter((r) => r.delta !== 0) : rows };
        }
        await segmentOr404(tx, user, query.segment_id);
        const filter: SeriesFilter = { user, itemId: query.item_id, siteId: query.site_id, segmentId: query.segment_id };
        const p = await compareSeries(tx, dimension, {
          pipelineId: query.pipeline_id, base, target, filter, supplyScenarioId: query.supply_scenario_id, meioScenarioId: query.meio_scenario_id,
          onlyChanged: query.only_changed, detail: query.detail, sort: query.sort, skip: query.skip, limit: query.limit,
        });
        ctx.set('X-Total-Count', String(p.total));
        return { ...head, ...(p.window !== undefined ? { window: p.window } : {}), total: p.total, skip: query.skip, limit: query.limit, totals: p.totals, rows: p.rows };
      });
      return result;
    },
  });

  defineRoute(table, {
    method: 'get', path: '/api/compare/plan-vs-actual', tag, pipelineScoped: true,
    summary: 'What a version forecast against the demand that arrived since',
    description: 'For each series of the version: its best method\'s forecast for every week from the archive date on, against the clean weekly demand (series_weekly, as the etl step wrote it) of the weeks that have one — closed weeks and weeks not yet loaded are left out, and so is a series without any. Per series and in total: forecast, actual, error (forecast − actual), absolute error, bias (error / actual), MAPE (mean |error| / |actual| over weeks with actual ≠ 0) and WAPE (Σ|error| / Σ|actual|); `by_week` sums every week. `dimension` is `demand`, the only one served: any other is a 400. Sorted by absolute error (default) or series; paged, the total also in `X-Total-Count`.',
    query: obj({
      pipeline_id: pipelineId, archive_date: { ...archiveDate, description: 'the version whose forecast is checked; default: the newest frozen version (freeze rule 6)' },
      dimension: { type: 'string', enum: ['demand'], default: 'demand', description: 'only demand is supported' },
      item_id: id32, site_id: id32, segment_id: { ...id32, description: 'only the series of this segment (its current members)' },
      horizon_weeks: { type: 'integer', minimum: 1, maximum: 520, description: 'only the first n weeks from the archive date' },
      detail: { type: 'boolean', default: false, description: 'add each series\' weeks' },
      sort: { type: 'string', enum: ['abs_error', 'series'], default: 'abs_error' },
      ...page,
    }, ['pipeline_id']),
    responses: { 200: { description: 'plan vs actual', schema: pvaSchema }, ...errors(403, 404, 409) },
    handler: async (ctx, { query, user }) => {
      if (query.archive_date !== undefined) checkArchiveDate('query.archive_date', query.archive_date);
      const r = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        await pipelineOr404(tx, query.pipeline_id);
        const version = query.archive_date === undefined
          ? await latestOr404(tx, query.pipeline_id, 'query.archive_date')
          : await versionOr404(tx, query.pipeline_id, 'query.archive_date', query.archive_date);
        await segmentOr404(tx, user, query.segment_id);
        const p = await planVsActual(tx, {
          version, filter: { user, itemId: query.item_id, siteId: query.site_id, segmentId: query.segment_id }, horizonWeeks: query.horizon_weeks,
          detail: query.detail, sort: query.sort, skip: query.skip, limit: query.limit,
        });
        return { version, p };
      });
      ctx.set('X-Total-Count', String(r.p.total));
      return {
        pipeline_id: query.pipeline_id, archive_date: r.version.archive_date, dimension: 'demand', version: sideView({ kind: 'version', version: r.version }),
        actuals: 'series_weekly', total: r.p.total, skip: query.skip, limit: query.limit, totals: r.p.totals, by_week: r.p.by_week, rows: r.p.rows,
      };
    },
  });

  defineRoute(table, {
    method: 'get', path: '/api/history/timeline', tag, pipelineScoped: true,
    summary: 'The versions of a pipeline in date order, with the change from each to the next',
    description: 'Oldest first; per archive date its versions by freeze time (a pinned version and the week\'s un-pinned one are two entries). Each entry has the registry\'s KPIs, rows per table, pin, comment and lineage, and `delta` to the entry before it — also when `from` leaves that one out (`previous_archive_date`). `from` and `to` are inclusive archive-date bounds.',
    query: obj({ pipeline_id: pipelineId, from: { ...isoDate, description: 'first archive date (inclusive)' }, to: { ...isoDate, description: 'last archive date (inclusive)' } }, ['pipeline_id']),
    responses: { 200: { description: 'timeline', schema: out({
      pipeline_id: { type: 'integer' }, from: str(), to: str(), count: { type: 'integer' }, entries: { type: 'array', items: timelineEntry },
    }) }, ...errors(404) },
    handler: async (ctx, { query, user }) => {
      if (query.from !== undefined) checkDate('query.from', query.from);
      if (query.to !== undefined) checkDate('query.to', query.to);
      if (query.from !== undefined && query.to !== undefined && query.from > query.to) throw badRequest(`query.from: ${query.from} is after query.to ${query.to}`);
      const { versions, latest } = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        await pipelineOr404(tx, query.pipeline_id);
        return { versions: await versionsInOrder(tx, query.pipeline_id, query.to), latest: await latestFrozenVersion(tx, query.pipeline_id) };
      });
      const entries = versions.map((v, i) => {
        const prev = i > 0 ? versions[i - 1] : null;
        const f = versionFigures(v);
        const pf = prev ? versionFigures(prev) : null;
        const tables = pf ? [...new Set([...Object.keys(f.table_counts), ...Object.keys(pf.table_counts)])] : [];
        return {
          archive_date: v.archive_date, snapshot_ts: v.snapshot_ts, created_by: v.created_by, comment: v.comment, source: v.source, frozen: v.frozen, pinned: v.pinned,
          latest: latest?.id === v.id, parent_archive_date: v.parent_archive_date, replaced_archive_date: v.replaced_archive_date,
          row_count_total: v.row_count_total, table_counts: v.table_counts, kpis: f.kpis, previous_archive_date: prev?.archive_date ?? null,
          delta: pf ? {
            fill_rate: diff(f.kpis.fill_rate, pf.kpis.fill_rate), inventory_value: diff(f.kpis.inventory_value, pf.kpis.inventory_value),
            shortage_qty: diff(f.kpis.shortage_qty, pf.kpis.shortage_qty), forecast_mase: diff(f.kpis.forecast_mase, pf.kpis.forecast_mase),
            series: diff(f.kpis.series, pf.kpis.series), row_count_total: f.row_count_total - pf.row_count_total,
            table_counts: Object.fromEntries(tables.map((t) => [t, (f.table_counts[t] ?? 0) - (pf.table_counts[t] ?? 0)])),
          } : null,
        };
      }).filter((e) => query.from === undefined || e.archive_date >= query.from);
      return { pipeline_id: query.pipeline_id, from: query.from ?? null, to: query.to ?? null, count: entries.length, entries };
    },
  });
}
