import { resolvePlanningDate, TENANT_PIPELINE } from '../../../db/planningDate';
import { getMaintenanceScenario, loadPlan } from '../../../db/maintenance';
import type { Tx } from '../../../db/pool';
import { isValidDate } from '../../../domain/import/validate';
import { allOccurrences, horizonWeeks, weeklyDemand, weeklyTotals, type Horizon } from '../../../domain/maintenance/engine';
import { mondayOf, weeksBetween } from '../../../domain/time/weeks';
import { badRequest, notFound } from '../../errors';
import { DEFAULT_HORIZON_WEEKS, MAX_HORIZON_WEEKS } from './schemas';

/** A date from the query or body: the schema checked the form, this the calendar (year 0 is no date). */
export function checkDate(field: string, value: string): string {
  if (!isValidDate(value)) throw badRequest(`${field}: '${value}' is not a valid date (YYYY-MM-DD)`);
  return value;
}

/** `start_week` (its Monday) or the Monday of the planning today, and `horizon_weeks`. */
export async function horizonOf(tx: Tx, q: { start_week?: string; horizon_weeks?: number }): Promise<Horizon> {
  const start = q.start_week !== undefined ? checkDate('query.start_week', q.start_week) : (await resolvePlanningDate(tx, TENANT_PIPELINE)).date;
  return { start: mondayOf(start), weeks: q.horizon_weeks ?? DEFAULT_HORIZON_WEEKS };
}

/** A maintenance scenario id from the query (`field` names it): 404 when unknown; undefined → null (the events as defined). */
export async function scenarioOf(tx: Tx, id: number | undefined, field = 'scenario_id'): Promise<number | null> {
  if (id === undefined) return null;
  if (!(await getMaintenanceScenario(tx, id))) throw notFound(`${field}: maintenance scenario ${id} not found`);
  return id;
}

/**
 * `forecast_maint` of GET/POST /api/analytics/aggregate-demand: the maintenance demand of the series in `keys`
 * (unique ids in the caller's scope that appear in a BOM), summed per week over the weeks of the statistical forecast
 * (`forecastDates`), or when there is none over the default horizon from the planning today; [] when no series in scope
 * has maintenance demand.
 */
export async function maintenanceForecast(tx: Tx, scenarioId: number | null, keys: Set<string>, forecastDates: readonly string[]): Promise<Array<{ date: string; value: number }>> {
  if (!keys.size) return [];
  let h: Horizon;
  if (forecastDates.length) {
    const sorted = [...forecastDates].sort();
    const start = mondayOf(sorted[0]);
    h = { start, weeks: Math.min(MAX_HORIZON_WEEKS, weeksBetween(start, mondayOf(sorted[sorted.length - 1])) + 1) };
  } else {
    h = await horizonOf(tx, {});
  }
  const plan = await loadPlan(tx, scenarioId);
  const series = weeklyDemand(allOccurrences(plan.events, plan.entries, plan.overrides, h), plan.bom.filter((l) => keys.has(`${l.item_id}_${l.site_id}`)), h);
  const totals = weeklyTotals(series, h);
  return horizonWeeks(h).map((date, k) => ({ date, value: totals[k] }));
}
