import { bomEdges, exists, itemNames, listCustomers, listUsageTypes, usageRows } from '../../../db/causal';
import { withTenant } from '../../../db/pool';
import { explodeBom } from '../../../domain/causal/bom';
import { weeklyUsageSeries } from '../../../domain/causal/engine';
import { isValidDate } from '../../../domain/import/validate';
import { addWeeks, mondayOf, weeksBetween } from '../../../domain/time/weeks';
import { badRequest, notFound } from '../../errors';
import { defineRoute, type RouteTable } from '../define';
import { errors, nullable, obj, out } from '../schemas';
import { TAG } from './masterData';
import * as s from './schemas';

/** Read-only views of the causal model (core-service.md §4.10): customers, usage types, usage series, BOM explosion. */

const MAX_WEEKS = 520;
const int = { type: 'integer' };
const str = { type: 'string' };

function queryDate(field: string, v: string): string {
  if (!isValidDate(v)) throw badRequest(`query.${field}: '${v}' is not a valid date (YYYY-MM-DD)`);
  return v;
}

export function registerCausalReadRoutes(table: RouteTable): void {
  defineRoute(table, {
    method: 'get', path: '/api/causal/customers', tag: TAG,
    summary: 'Customers of the causal model',
    description: 'Customers operating assets, by code. Created by the causal writes that take a `customer_code` (deployments, coverage, fleet plan, usage and the fleet-plan import); the spec lists no write of its own. Each with the assets and sites of its deployments active today and the asset types it has ever operated. Paged with `skip` and `limit`; the total in `X-Total-Count`.',
    query: obj({ ...s.page, search: { type: 'string', maxLength: 200, description: 'text in the code or name' } }),
    responses: { 200: { description: 'customers', schema: { type: 'array', items: s.customerRow } }, ...errors(400, 401) },
    handler: async (ctx, { query: q, user }) => {
      const { rows, total } = await withTenant(ctx.deps.db, user.accountId, (tx) => listCustomers(tx, { skip: q.skip, limit: q.limit, search: q.search }));
      ctx.set('X-Total-Count', String(total));
      return rows;
    },
  });

  defineRoute(table, {
    method: 'get', path: '/api/causal/usage-types', tag: TAG,
    summary: 'Usage types',
    description: 'The units usage is recorded in: hours, cycles and km (seeded in every tenant by migration 028). Failure rates are per unit of one of them.',
    responses: { 200: { description: 'usage types', schema: { type: 'array', items: s.usageTypeRow } }, ...errors(401) },
    handler: async (ctx, { user }) => withTenant(ctx.deps.db, user.accountId, (tx) => listUsageTypes(tx)),
  });

  defineRoute(table, {
    method: 'get', path: '/api/causal/usage-timeseries', tag: TAG,
    summary: 'Weekly usage series',
    description: 'Recorded usage as weekly series, one per (asset type, customer, usage type): a week\'s value is total × 7 / days of the period containing its Monday (document 2 §4.6 rule 2), 0 when no period contains it. Weeks run from the Monday of `date_from` to that of `date_to` (defaults: the first and last recorded day of the rows selected), at most 520 weeks.',
    query: obj({
      asset_type_id: s.id('only this asset type'), customer_id: s.id('only this customer'), usage_type_id: s.id('only this usage type'),
      date_from: s.date('first week (its Monday)'), date_to: s.date('last week (its Monday)'),
    }),
    responses: {
      200: {
        description: 'usage series',
        schema: out({
          weeks: { type: 'array', items: { type: 'string', format: 'date' } },
          series: { type: 'array', items: out({ asset_type_id: int, customer_id: int, usage_type_id: int, points: { type: 'array', items: s.seriesPoint } }) },
        }),
      },
      ...errors(400, 401),
    },
    handler: async (ctx, { query: q, user }) => withTenant(ctx.deps.db, user.accountId, async (tx) => {
      const rows = await usageRows(tx, q);
      const from = q.date_from !== undefined ? queryDate('date_from', q.date_from) : rows.reduce<string | null>((m, r) => (m === null || r.period_start < m ? r.period_start : m), null);
      const to = q.date_to !== undefined ? queryDate('date_to', q.date_to) : rows.reduce<string | null>((m, r) => (m === null || r.period_end > m ? r.period_end : m), null);
      if (from === null || to === null) return { weeks: [], series: [] };
      if (to < from) throw badRequest(`query.date_to: ${to} is before date_from ${from}`);
      const first = mondayOf(from);
      const n = weeksBetween(first, mondayOf(to)) + 1;
      if (n > MAX_WEEKS) throw badRequest(`query.date_to: at most ${MAX_WEEKS} weeks (asked ${n})`);
      const weeks = Array.from({ length: n }, (_, k) => addWeeks(first, k));
      return { weeks, series: weeklyUsageSeries(rows, weeks) };
    }),
  });

  const explodedRow = out({
    item_id: int, item_code: str, item_name: str, level: int, parent_item_id: nullable(int),
    qty_per_parent: { type: 'number' }, qty_per_asset: { type: 'number', description: 'quantity per asset along this path' },
    path: { type: 'array', items: int, description: 'parts from the top of the asset down to this one' },
  });
  defineRoute(table, {
    method: 'get', path: '/api/causal/bom/explosion', tag: TAG,
    summary: 'Multi-level BOM explosion of an asset type',
    description: 'Walks the asset type\'s bill of materials through every level: `rows` lists each path depth first (level 1 = in the asset, 2 = in a level-1 part, ...) with the quantity per asset multiplied along it; `totals` sums each part over its paths, the qty_per_asset the causal engine uses. 404 when the asset type does not exist.',
    query: obj({ asset_type_id: s.id('the asset type') }, ['asset_type_id']),
    responses: {
      200: {
        description: 'the explosion',
        schema: out({
          asset_type_id: int, levels: int, rows: { type: 'array', items: explodedRow },
          totals: { type: 'array', items: out({ item_id: int, item_code: str, item_name: str, qty_per_asset: { type: 'number' } }) },
        }),
      },
      ...errors(400, 401, 404),
    },
    handler: async (ctx, { query: q, user }) => withTenant(ctx.deps.db, user.accountId, async (tx) => {
      if (!(await exists(tx, 'causal_asset_types', q.asset_type_id))) throw notFound(`Asset type ${q.asset_type_id} not found`);
      const rows = explodeBom(await bomEdges(tx), q.asset_type_id);
      const names = await itemNames(tx, rows.map((r) => r.item_id));
      const nm = (id: number) => ({ item_code: names.get(id)?.code ?? '', item_name: names.get(id)?.name ?? '' });
      const totals = new Map<number, number>();
      for (const r of rows) totals.set(r.item_id, (totals.get(r.item_id) ?? 0) + r.qty_per_asset);
      return {
        asset_type_id: q.asset_type_id,
        levels: rows.reduce((m, r) => Math.max(m, r.level), 0),
        rows: rows.map((r) => ({ ...r, ...nm(r.item_id) })),
        totals: [...totals].sort((a, b) => a[0] - b[0]).map(([item_id, qty]) => ({ item_id, ...nm(item_id), qty_per_asset: qty })),
      };
    }),
  });
}
