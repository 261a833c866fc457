import { dismissNpi, getNpi, listNpi } from '../../../db/npi';
import { listTenantParameters } from '../../../db/parameters';
import { defaultValues } from '../../../domain/parameters/defaults';
import { withTenant, type Tx } from '../../../db/pool';
import { seriesScope } from '../../../db/segments';
import { notFound } from '../../errors';
import { defineRoute, type RouteTable } from '../define';
import { errors, nullable, obj, out, skipParam } from '../schemas';
import { uniqueIdSchema, visibleSeries } from '../segments/access';

/** The catalogue default of npi.min_history_weeks (domain/parameters/defaults.ts), unless the tenant set its own. */
export const DEFAULT_NPI_MIN_HISTORY_WEEKS = Number(defaultValues('npi').min_history_weeks ?? 13);

export async function npiMinHistoryWeeks(tx: Tx): Promise<number> {
  const params = await listTenantParameters(tx);
  const v = Number(params.find((p) => p.parameter_type === 'npi' && p.key === 'min_history_weeks')?.value);
  return Number.isInteger(v) && v >= 0 ? v : DEFAULT_NPI_MIN_HISTORY_WEEKS;
}

const npiSchema = out({
  unique_id: { type: 'string' },
  item_id: { type: 'integer' },
  site_id: { type: 'integer' },
  item_xuid: { type: 'string' },
  item_name: { type: 'string' },
  item_image_url: nullable({ type: 'string' }),
  site_xuid: { type: 'string' },
  site_name: { type: 'string' },
  history_weeks: { type: 'integer', description: 'weeks of history (n_observations of the etl step; 0 without demand)' },
  first_week: { ...nullable({ type: 'string', format: 'date' }), description: 'first demand week; null without demand' },
  total_demand: { type: 'number' },
  reason: { type: 'string', enum: ['no_history', 'short_history', 'flagged'], description: 'flagged: marked as NPI in npi_series whatever its history' },
  launch_date: nullable({ type: 'string', format: 'date' }),
  reference_unique_id: { ...nullable({ type: 'string' }), description: 'analog series the NPI is planned from' },
  notes: nullable({ type: 'string' }),
});

export function registerNpiRoutes(table: RouteTable): void {
  const tag = 'npi';

  defineRoute(table, {
    method: 'get', path: '/api/npi/list', tag,
    summary: 'New-part series: no or short history',
    description:
      'Series (from `series` and the item-site master data) with fewer weeks of history than the tenant parameter `npi.min_history_weeks` (default 13), plus series flagged as NPI, minus dismissed ones. `search` matches item or site code or name. Limited to the series the caller may see; the total is in `X-Total-Count` and the threshold in `X-NPI-Min-History-Weeks`.',
    query: obj({
      skip: skipParam,
      limit: { type: 'integer', minimum: 1, maximum: 50000, default: 200 },
      search: { type: 'string', maxLength: 200 },
    }),
    responses: { 200: { description: 'NPI series', schema: { type: 'array', items: npiSchema } }, ...errors(400) },
    handler: async (ctx, { query, user }) => {
      const { rows, total, minWeeks } = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const minWeeks = await npiMinHistoryWeeks(tx);
        return { minWeeks, ...(await listNpi(tx, { ...query, minWeeks, scope: seriesScope(user) })) };
      });
      ctx.set('X-Total-Count', String(total));
      ctx.set('X-NPI-Min-History-Weeks', String(minWeeks));
      return rows;
    },
  });

  defineRoute(table, {
    method: 'delete', path: '/api/npi/{unique_id}', tag,
    summary: 'Remove the NPI flag of a series and its NPI data',
    description:
      'The series is no longer listed as NPI, even while its history stays short (a dismissal is stored in `npi_series`), and its NPI data (launch date, reference series, notes) are cleared. Demand history and forecasts are not touched. 404 when the series is not on the NPI list; 403 when it is outside the segments the caller may edit.',
    params: obj({ unique_id: uniqueIdSchema }, ['unique_id']), audit: { entityType: 'npi', action: 'delete' },
    responses: { 200: { description: 'removed', schema: out({ status: { type: 'string', const: 'deleted' }, unique_id: { type: 'string' }, previous: npiSchema }) }, ...errors(400, 403, 404) },
    handler: async (ctx, { params, user }) => {
      const previous = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const { itemId, siteId } = await visibleSeries(tx, user, params.unique_id, { mustExist: false, edit: true });
        const row = await getNpi(tx, await npiMinHistoryWeeks(tx), itemId, siteId);
        if (!row) throw notFound(`Series ${params.unique_id} is not on the NPI list`);
        await dismissNpi(tx, itemId, siteId, user.email);
        return row;
      });
      ctx.state.audit = { ...ctx.state.audit, entityId: params.unique_id, oldValue: previous, newValue: { is_npi: false } };
      return { status: 'deleted', unique_id: params.unique_id, previous };
    },
  });
}
