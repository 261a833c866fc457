/**
 * A few maintenance events in the demo tenant (docs/MAINTENANCE.md, "Demo data"), so the /api/maintenance/* views and
 * `forecast_maint` show something: an A-check every 8 weeks, a C-check every 26 weeks and a one-off plant shutdown,
 * their parts taken from the first series, and two scenarios, "Baseline" (no changes) and "Deferred 4 weeks" (the
 * A-check 4 weeks later, the shutdown moved a week). The events start from the planning date of `pipelineId` (the demo
 * pipeline: the week after the last week of history), so they fall inside the horizon of its supply plan, which plans
 * their parts (docs/SUPPLY.md "Which demand a plan covers"). Idempotent: a tenant that has any maintenance event is left
 * as is.
 */
import { resolvePlanningDate } from '../../db/planningDate';
import {
  eventCount, firstSeries, insertEvent, insertScenario, replaceBom, replaceDateOverrides, replaceSchedule,
} from '../../db/maintenance';
import type { Tx } from '../../db/pool';
import { addWeeks, mondayOf } from '../../domain/time/weeks';

export async function seedDemoMaintenance(tx: Tx, pipelineId: number): Promise<{ events: number; scenarios: number }> {
  if ((await eventCount(tx)) > 0) return { events: 0, scenarios: 0 };
  const parts = await firstSeries(tx, 6);
  if (parts.length === 0) return { events: 0, scenarios: 0 };
  const part = (k: number) => parts[k % parts.length];
  // from the week the pipeline's supply plan starts, so every event falls inside its 52 weeks and its parts are ordered
  const start = mondayOf((await resolvePlanningDate(tx, pipelineId)).date);
  const shutdown = addWeeks(start, 10);
  const base = { description: null, end_date: null, dates: [] as string[] };
  const aCheck = await insertEvent(tx, { ...base, name: 'A-check A320 fleet', event_type: 'A-check', asset: 'A320 fleet', start_date: addWeeks(start, 1), interval_weeks: 8 });
  const cCheck = await insertEvent(tx, { ...base, name: 'C-check MSN 1234', event_type: 'C-check', asset: 'MSN 1234', start_date: addWeeks(start, 6), interval_weeks: 26 });
  const stop = await insertEvent(tx, { ...base, name: 'Plant 2 shutdown', event_type: 'shutdown', asset: 'Plant 2', start_date: null, interval_weeks: null, dates: [shutdown] });
  const line = (k: number, qty: number) => ({ ...part(k), qty_per_occurrence: qty });
  // one line per series, however few series the tenant has
  const uniq = (ls: Array<ReturnType<typeof line>>) => ls.filter((l, i) => ls.findIndex((x) => x.item_id === l.item_id && x.site_id === l.site_id) === i);
  await replaceBom(tx, aCheck, uniq([line(0, 4), line(1, 2)]));
  await replaceBom(tx, cCheck, uniq([line(0, 10), line(2, 6), line(3, 1)]));
  await replaceBom(tx, stop, uniq([line(4, 20), line(5, 8)]));
  await insertScenario(tx, { name: 'Baseline', description: 'The events as defined' });
  const deferred = await insertScenario(tx, { name: 'Deferred 4 weeks', description: 'A-check 4 weeks later, shutdown one week later' });
  await replaceSchedule(tx, deferred, [{ event_id: aCheck, active: true, shift_weeks: 4, interval_weeks: null, start_date: null, end_date: null }]);
  await replaceDateOverrides(tx, deferred, stop, [{ date: shutdown, new_date: addWeeks(shutdown, 1) }]);
  return { events: 3, scenarios: 2 };
}
