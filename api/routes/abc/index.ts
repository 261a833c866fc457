import { normaliseThresholds, ThresholdError } from '../../../domain/abc/classify';
import {
  abcResultsOfSeries, abcSummary, clearAbcResults, deleteAbcConfig, findAbcConfigByName, getAbcConfig, insertAbcConfig, listAbcConfigs,
  listAbcResults, lockAbc, priceAvailability, updateAbcConfig, type AbcConfigRow,
} from '../../../db/abc';
import { withTenant, type Tx } from '../../../db/pool';
import { lockSegments, segmentsUsingField, seriesScope, setSegmentRules } from '../../../db/segments';
import type { AppContext } from '../../context';
import { newJobId } from '../../jobs/service';
import { badRequest, conflict, notFound } from '../../errors';
import { launch } from '../pipeline';
import { defineRoute, type RouteTable } from '../define';
import { errors } from '../schemas';
import { visibleSeries } from '../segments/access';
import * as s from './schemas';

export const configView = (c: AbcConfigRow) => ({
  id: c.id, name: c.name, description: c.description, metric: c.metric, class_labels: [...c.class_labels], thresholds: [...c.thresholds],
  thresholds_by_label: Object.fromEntries(c.class_labels.map((l, i) => [l, c.thresholds[i]])),
  is_active: c.is_active, created_by: c.created_by, created_at: c.created_at, updated_at: c.updated_at, last_run_at: c.last_run_at,
  last_job_id: c.last_job_id, result_count: c.result_count,
});

const DEFAULT_LABELS = ['A', 'B', 'C'];
const DEFAULT_THRESHOLDS = [0.8, 0.95, 1];

function thresholdsFor(labels: string[], input: number[] | Record<string, number> | undefined, field = 'body.thresholds'): number[] {
  if (input === undefined) {
    if (labels.length === 3) return DEFAULT_THRESHOLDS;
    throw badRequest(`${field} is required for ${labels.length} class labels (the default 0.8 / 0.95 / 1 is for three)`);
  }
  try {
    return normaliseThresholds(labels, input);
  } catch (err) {
    if (err instanceof ThresholdError) throw badRequest(`body.${err.message}`);
    throw err;
  }
}

async function configOr404(tx: Tx, id: number): Promise<AbcConfigRow> {
  const c = await getAbcConfig(tx, id);
  if (!c) throw notFound(`ABC configuration ${id} not found`);
  return c;
}

async function checkNameFree(tx: Tx, name: string, exceptId?: number) {
  const clash = await findAbcConfigByName(tx, name, exceptId);
  if (clash) throw conflict(`body.name: ABC configuration ${clash.id} is already named '${clash.name}'`);
}

const setAudit = (ctx: AppContext, note: { entityId?: number | string | null; oldValue?: unknown; newValue?: unknown }) => {
  ctx.state.audit = { ...ctx.state.audit, ...note };
};

const same = (a: unknown[], b: unknown[]) => a.length === b.length && a.every((x, i) => x === b[i]);

export function registerAbcRoutes(table: RouteTable): void {
  const tag = 'abc';
  const entityType = 'abc_configuration';

  defineRoute(table, {
    method: 'get', path: '/api/abc/configurations', tag,
    summary: 'ABC configurations',
    responses: { 200: { description: 'configurations, by id', schema: { type: 'array', items: s.configSchema } } },
    handler: async (ctx, { user }) => (await withTenant(ctx.deps.db, user.accountId, (tx) => listAbcConfigs(tx))).map(configView),
  });

  defineRoute(table, {
    method: 'post', path: '/api/abc/configurations', tag, status: 201,
    summary: 'Create an ABC configuration',
    description: 'Names are unique ignoring case (409). Thresholds are read back as a list (and as `thresholds_by_label`). The configuration becomes the rule field `abc:<name>` of segments.',
    body: s.createBody, audit: { entityType, action: 'create' },
    responses: { 201: { description: 'created', schema: s.configSchema }, ...errors(400, 409) },
    handler: async (ctx, { body, user }) => {
      const name = body.name.trim();
      const labels: string[] = body.class_labels ?? DEFAULT_LABELS;
      const thresholds = thresholdsFor(labels, body.thresholds);
      const row = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        await lockAbc(tx);
        await checkNameFree(tx, name);
        const id = await insertAbcConfig(tx, { name, description: body.description, metric: body.metric, class_labels: labels, thresholds, is_active: body.is_active }, user.email);
        return (await getAbcConfig(tx, id))!;
      });
      const view = configView(row);
      setAudit(ctx, { entityId: row.id, newValue: view });
      return view;
    },
  });

  defineRoute(table, {
    method: 'get', path: '/api/abc/configurations/{config_id}', tag,
    summary: 'One ABC configuration',
    params: s.configParams,
    responses: { 200: { description: 'configuration', schema: s.configSchema }, ...errors(400, 404) },
    handler: async (ctx, { params, user }) => configView(await withTenant(ctx.deps.db, user.accountId, (tx) => configOr404(tx, params.config_id))),
  });

  defineRoute(table, {
    method: 'put', path: '/api/abc/configurations/{config_id}', tag,
    summary: 'Update an ABC configuration',
    description:
      'Partial. Changing the metric, labels or thresholds deletes the stored results (run it again). New labels of a different count need thresholds. A rename rewrites the `abc:<name>` rules of segments to the new name.',
    params: s.configParams, body: s.updateBody, audit: { entityType, action: 'update' },
    responses: { 200: { description: 'updated', schema: s.configSchema }, ...errors(400, 404, 409) },
    handler: async (ctx, { params, body, user }) => {
      const name = body.name?.trim();
      const { old, row } = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        await lockAbc(tx);
        await lockSegments(tx);
        const old = await configOr404(tx, params.config_id);
        if (name !== undefined) await checkNameFree(tx, name, old.id);
        const labels: string[] = body.class_labels ?? old.class_labels;
        let thresholds: number[] | undefined;
        if (body.thresholds !== undefined) thresholds = thresholdsFor(labels, body.thresholds);
        else if (labels.length !== old.class_labels.length) thresholds = thresholdsFor(labels, undefined);
        await updateAbcConfig(tx, old.id, { name, description: body.description, metric: body.metric, class_labels: body.class_labels, thresholds, is_active: body.is_active });
        const changed = (body.metric !== undefined && body.metric !== old.metric) || !same(labels, old.class_labels) || (thresholds !== undefined && !same(thresholds, old.thresholds));
        if (changed) await clearAbcResults(tx, old.id);
        if (name !== undefined && name !== old.name) {
          for (const seg of await segmentsUsingField(tx, `abc:${old.name}`)) {
            await setSegmentRules(tx, seg.id, seg.rules.map((r) => (r.field === `abc:${old.name}` ? { ...r, field: `abc:${name}` } : r)));
          }
        }
        return { old, row: (await getAbcConfig(tx, old.id))! };
      });
      const view = configView(row);
      setAudit(ctx, { entityId: row.id, oldValue: configView(old), newValue: view });
      return view;
    },
  });

  defineRoute(table, {
    method: 'delete', path: '/api/abc/configurations/{config_id}', tag,
    summary: 'Delete an ABC configuration',
    description: 'Its results go with it. When segment rules name it (`abc:<name>`) the answer is a 409 naming the segments, unless `force=true`.',
    params: s.configParams, query: s.forceQuery, audit: { entityType, action: 'delete' },
    responses: { 200: { description: 'deleted', schema: { type: 'object', required: ['status', 'id'], properties: { status: { const: 'deleted' }, id: { type: 'integer' } } } }, ...errors(400, 404, 409) },
    handler: async (ctx, { params, query, user }) => {
      const old = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        await lockAbc(tx);
        const old = await configOr404(tx, params.config_id);
        const segs = await segmentsUsingField(tx, `abc:${old.name}`);
        if (segs.length && !query.force) {
          throw conflict(`ABC configuration ${old.id} '${old.name}' is used by the rules of segments ${segs.map((g) => `'${g.name}' (${g.id})`).join(', ')}; edit them first, or delete with force=true`);
        }
        await deleteAbcConfig(tx, old.id);
        return old;
      });
      setAudit(ctx, { entityId: old.id, oldValue: configView(old), newValue: { deleted: true } });
      return { status: 'deleted', id: old.id };
    },
  });

  defineRoute(table, {
    method: 'post', path: '/api/abc/run/{config_id}', tag, permission: 'run_process',
    summary: 'Classify with one configuration (a job)',
    description:
      'Starts workflow `abcRun` (job kind `abc`, step `abc`) and answers at once with status queued; follow it with GET /api/pipeline/jobs/{job_id}. The annual figures are the last 52 weeks of series_weekly, ending at its latest week (the planning week). The results replace the previous ones in one transaction.',
    params: s.configParams, body: s.runBody, audit: { entityType: 'job', action: 'abc_run' },
    responses: { 200: { description: 'job started', schema: s.startedSchema }, ...errors(400, 403, 404, 503) },
    handler: async (ctx, { params, body, user }) => {
      await withTenant(ctx.deps.db, user.accountId, (tx) => configOr404(tx, params.config_id));
      const jobId = body.run_id ?? newJobId('abc');
      const started = await launch(ctx, user, { job_id: jobId, kind: 'abc', step: 'abc', created_by: user.email, params: { config_ids: [params.config_id] } },
        'abcRun', [{ jobId, accountId: user.accountId, configIds: [params.config_id] }]);
      return { ...started, config_ids: [params.config_id] };
    },
  });

  defineRoute(table, {
    method: 'post', path: '/api/abc/run-all', tag, permission: 'run_process',
    summary: 'Classify with every active configuration (one job)',
    description: 'Like run/{config_id} for every active configuration in id order, in one job. No active configuration is a 400.',
    body: s.runBody, audit: { entityType: 'job', action: 'abc_run_all' },
    responses: { 200: { description: 'job started', schema: s.startedSchema }, ...errors(400, 403, 503) },
    handler: async (ctx, { body, user }) => {
      const ids = (await withTenant(ctx.deps.db, user.accountId, (tx) => listAbcConfigs(tx, true))).map((c) => c.id);
      if (!ids.length) throw badRequest('No active ABC configuration to run; create one or set is_active');
      const jobId = body.run_id ?? newJobId('abc-all');
      const started = await launch(ctx, user, { job_id: jobId, kind: 'abc', step: 'abc', created_by: user.email, params: { config_ids: ids } },
        'abcRun', [{ jobId, accountId: user.accountId, configIds: ids }]);
      return { ...started, config_ids: ids };
    },
  });

  defineRoute(table, {
    method: 'get', path: '/api/abc/results/by-series/{unique_id}', tag,
    summary: 'ABC classes of one series',
    description: 'One entry per configuration that classified the series. Unknown series 404; a series outside the caller\'s segments 403.',
    params: s.uidParams,
    responses: { 200: { description: 'classes', schema: s.bySeriesSchema }, ...errors(400, 403, 404) },
    handler: async (ctx, { params, user }) =>
      withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const { itemId, siteId } = await visibleSeries(tx, user, params.unique_id);
        const results = await abcResultsOfSeries(tx, itemId, siteId);
        return { unique_id: params.unique_id, classifications: Object.fromEntries(results.map((r) => [r.config_name, r.class_label])), results };
      }),
  });

  defineRoute(table, {
    method: 'get', path: '/api/abc/results/{config_id}', tag,
    summary: 'Results of a configuration',
    description: 'By rank (largest metric first), limited to the series the caller may see; the total is in `X-Total-Count`.',
    params: s.configParams, query: s.resultsQuery,
    responses: { 200: { description: 'results', schema: { type: 'array', items: s.resultSchema } }, ...errors(400, 404) },
    handler: async (ctx, { params, query, user }) => {
      const { rows, total } = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        await configOr404(tx, params.config_id);
        return listAbcResults(tx, params.config_id, seriesScope(user), query);
      });
      ctx.set('X-Total-Count', String(total));
      return rows;
    },
  });

  defineRoute(table, {
    method: 'get', path: '/api/abc/summary/{config_id}', tag,
    summary: 'Counts and values per class',
    description: 'Per class label: series, metric total and share, annual volume and value (demand × unit price), over the series the caller may see.',
    params: s.configParams,
    responses: { 200: { description: 'summary', schema: s.summarySchema }, ...errors(400, 404) },
    handler: async (ctx, { params, user }) =>
      withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const config = await configOr404(tx, params.config_id);
        const rows = await abcSummary(tx, config.id, seriesScope(user));
        const classes = config.class_labels.map((label, i) => {
          const r = rows.find((x) => x.class_label === label);
          return {
            class_label: label, threshold: config.thresholds[i], series_count: r?.series_count ?? 0, metric_total: r?.metric_total ?? 0,
            metric_share: r?.metric_share ?? 0, annual_volume: r?.annual_volume ?? 0, annual_value: r?.annual_value ?? 0,
          };
        });
        return {
          config: configView(config), series_count: classes.reduce((n, c) => n + c.series_count, 0), metric_total: classes.reduce((n, c) => n + c.metric_total, 0), classes,
        };
      }),
  });

  defineRoute(table, {
    method: 'get', path: '/api/abc/price-available', tag,
    summary: 'How many items have prices and costs',
    description: 'Whether `annual_value` (needs unit_price) and `margin` (needs unit_price and avg_unit_cost) can be meaningful.',
    responses: { 200: { description: 'availability', schema: s.priceSchema } },
    handler: async (ctx, { user }) => {
      const p = await withTenant(ctx.deps.db, user.accountId, priceAvailability);
      const share = (n: number) => (p.items_total ? n / p.items_total : 0);
      return { ...p, unit_price_share: share(p.with_unit_price), avg_unit_cost_share: share(p.with_avg_unit_cost), price_available: p.with_unit_price > 0, cost_available: p.with_avg_unit_cost > 0 };
    },
  });
}
