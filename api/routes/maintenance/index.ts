import {
  bomLines, deleteEvent, deleteScenario, eventNamed, existingIds, getEvent, getMaintenanceScenario, insertEvent, insertScenario, listEvents,
  listScenarios, loadPlan, namesOf, replaceBom, replaceDateOverrides, replaceSchedule, scenarioNamed, scheduleEntries, dateOverrides,
  updateEvent, type BomLineView, type EventRow, type EventValues,
} from '../../../db/maintenance';
import { withTenant, type Tx } from '../../../db/pool';
import {
  allOccurrences, effectiveRecurrence, expandOccurrences, horizonWeeks, isScheduledDate, occurrencesPerWeek, partsForWeek, recurrenceProblem,
  weeklyDemand, weeklyTotals, type Horizon, type ScheduleEntry,
} from '../../../domain/maintenance/engine';
import { mondayOf } from '../../../domain/time/weeks';
import type { AppContext } from '../../context';
import { badRequest, conflict, notFound } from '../../errors';
import { defineRoute, type RouteTable } from '../define';
import { errors } from '../schemas';
import { checkDate, horizonOf, scenarioOf } from './demand';
import * as s from './schemas';

/*
 * Maintenance demand (spec §4.10 "Maintenance"; docs/MAINTENANCE.md). The spec lists the routes and no record fields;
 * the model is this service's: events with a recurrence and a BOM, maintenance scenarios holding per-event schedule
 * entries and date overrides, and the pure engine of domain/maintenance/engine.ts expanding them over a horizon.
 * The spec lists no route that creates an event or a scenario, and import staging has no maintenance table, so
 * POST/PUT/DELETE /api/maintenance/events and POST/DELETE /api/maintenance/scenarios are documented extras.
 * Reading is open to every user; writing needs an admin role.
 */

const MODEL = 'Model (docs/MAINTENANCE.md): an event recurs every `interval_weeks` from `start_date` up to `end_date` and/or on explicit `dates`; its BOM says the parts one occurrence consumes (item, site, qty_per_occurrence). A maintenance scenario may switch an event off, shift all its occurrences by whole weeks, replace its interval, start or end (schedule entry), and move or cancel single occurrences (date overrides). Without `scenario_id` the events are read as defined.';
const HORIZON = 'The horizon: `horizon_weeks` Mondays from `start_week` (its Monday; default the Monday of the planning today). An occurrence counts in the week (Monday) of the date it finally happens.';
const WRITE = 'Needs an admin role (403 otherwise). Invalid input: 400 naming the field, nothing written.';

const setAudit = (ctx: AppContext, note: { entityId?: number | null; oldValue?: unknown; newValue?: unknown }) => {
  ctx.state.audit = { ...ctx.state.audit, ...note };
};

const uid = (itemId: number, siteId: number) => `${itemId}_${siteId}`;
const lineView = (l: BomLineView) => ({
  item_id: l.item_id, item_xuid: l.item_xuid, item_name: l.item_name, site_id: l.site_id, site_xuid: l.site_xuid, site_name: l.site_name,
  unique_id: uid(l.item_id, l.site_id), qty_per_occurrence: l.qty_per_occurrence,
});
const eventView = (e: EventRow, bom: readonly BomLineView[]) => ({ ...e, bom: bom.filter((l) => l.event_id === e.id).map(lineView) });

async function eventOr404(tx: Tx, id: number): Promise<EventRow> {
  const e = await getEvent(tx, id);
  if (!e) throw notFound(`Maintenance event ${id} not found`);
  return e;
}

async function scenarioOr404(tx: Tx, id: number) {
  const sc = await getMaintenanceScenario(tx, id);
  if (!sc) throw notFound(`Maintenance scenario ${id} not found`);
  return sc;
}

async function eventWithBom(tx: Tx, id: number) {
  return eventView(await eventOr404(tx, id), await bomLines(tx, [id]));
}

type LineIn = { item_id: number; site_id: number; qty_per_occurrence: number };

/** BOM lines: items and sites exist, one line per (item, site). `field`: where the lines sit in the body. */
async function checkLines(tx: Tx, lines: readonly LineIn[], field: string): Promise<void> {
  const seen = new Map<string, number>();
  lines.forEach((l, i) => {
    const k = uid(l.item_id, l.site_id);
    if (seen.has(k)) throw badRequest(`${field}[${i}]: item ${l.item_id} at site ${l.site_id} is already line ${seen.get(k)}; one line per item and site`);
    seen.set(k, i);
  });
  const items = await existingIds(tx, 'items', lines.map((l) => l.item_id));
  const sites = await existingIds(tx, 'sites', lines.map((l) => l.site_id));
  lines.forEach((l, i) => {
    if (!items.has(l.item_id)) throw badRequest(`${field}[${i}].item_id: item ${l.item_id} does not exist`);
    if (!sites.has(l.site_id)) throw badRequest(`${field}[${i}].site_id: site ${l.site_id} does not exist`);
  });
}

/** An event as it would be stored: calendar dates, the recurrence rules, a unique name (409). */
async function checkEvent(tx: Tx, v: EventValues, exceptId: number): Promise<void> {
  for (const k of ['start_date', 'end_date'] as const) if (v[k] !== null) checkDate(`body.${k}`, v[k]!);
  const seen = new Set<string>();
  v.dates.forEach((d, i) => {
    checkDate(`body.dates[${i}]`, d);
    if (seen.has(d)) throw badRequest(`body.dates[${i}]: ${d} is listed twice`);
    seen.add(d);
  });
  const problem = recurrenceProblem(v);
  if (problem) throw badRequest(`body.${problem.field}: ${problem.message}`);
  const twin = await eventNamed(tx, v.name, exceptId);
  if (twin !== null) throw conflict(`maintenance event ${twin} is already named '${v.name}'; choose another name`);
}

const eventValues = (e: EventRow): EventValues => ({
  name: e.name, description: e.description, event_type: e.event_type, asset: e.asset,
  start_date: e.start_date, interval_weeks: e.interval_weeks, end_date: e.end_date, dates: e.dates,
});

async function scheduleView(tx: Tx, scenarioId: number) {
  const sc = await scenarioOr404(tx, scenarioId);
  const events = await listEvents(tx);
  const entryOf = new Map((await scheduleEntries(tx, scenarioId)).map((e) => [e.event_id, e]));
  const overrides = await dateOverrides(tx, scenarioId);
  return {
    scenario_id: sc.id, scenario_name: sc.name,
    entries: events.map((e) => {
      const en = entryOf.get(e.id);
      const r = effectiveRecurrence(e, en);
      return {
        event_id: e.id, name: e.name, has_entry: en !== undefined,
        active: en?.active ?? true, shift_weeks: en?.shift_weeks ?? 0,
        interval_weeks: en?.interval_weeks ?? null, start_date: en?.start_date ?? null, end_date: en?.end_date ?? null,
        effective: { start_date: r.start_date, interval_weeks: r.interval_weeks, end_date: r.end_date, dates: r.dates },
        date_overrides: overrides.filter((o) => o.event_id === e.id).map((o) => ({ date: o.date, new_date: o.new_date })),
      };
    }),
  };
}

/** Everything read over one horizon in one scenario: events, BOM, occurrences. */
async function planOver(tx: Tx, scenarioId: number | null, h: Horizon) {
  const plan = await loadPlan(tx, scenarioId);
  return { ...plan, occurrences: allOccurrences(plan.events, plan.entries, plan.overrides, h) };
}

const horizonEcho = (scenarioId: number | null, h: Horizon) => ({ scenario_id: scenarioId, start_week: h.start, horizon_weeks: h.weeks });

/** Codes and names of the series, for the views. */
async function seriesNames(tx: Tx, keys: ReadonlyArray<{ item_id: number; site_id: number }>) {
  const items = await namesOf(tx, 'items', keys.map((k) => k.item_id));
  const sites = await namesOf(tx, 'sites', keys.map((k) => k.site_id));
  return (k: { item_id: number; site_id: number }) => ({
    unique_id: uid(k.item_id, k.site_id), item_id: k.item_id, item_xuid: items.get(k.item_id)!.xuid, item_name: items.get(k.item_id)!.name,
    site_id: k.site_id, site_xuid: sites.get(k.site_id)!.xuid, site_name: sites.get(k.site_id)!.name,
  });
}

/** Maintenance events, scenarios and demand (spec §4.10). */
export function registerMaintenanceRoutes(table: RouteTable): void {
  const tag = 'maintenance';
  const base = '/api/maintenance';

  // ------------------------------------------------------------------------------------------------ events

  defineRoute(table, {
    method: 'get', path: `${base}/events`, tag,
    summary: 'Maintenance events with their recurrence and BOM',
    description: `Every maintenance event of the tenant, by id, with its BOM lines (item, site, qty_per_occurrence, codes and names). ${MODEL}`,
    responses: { 200: { description: 'events', schema: { type: 'array', items: s.eventSchema } }, ...errors(401) },
    handler: async (ctx, { user }) => withTenant(ctx.deps.db, user.accountId, async (tx) => {
      const events = await listEvents(tx);
      const bom = await bomLines(tx);
      return events.map((e) => eventView(e, bom));
    }),
  });

  defineRoute(table, {
    method: 'post', path: `${base}/events`, tag, permission: 'admin', status: 201,
    summary: 'Create a maintenance event (extra: not in the spec)',
    description: `Not in the spec, which lists no way to create an event (docs/MAINTENANCE.md). A recurring event needs start_date and interval_weeks; a one-off or irregular one lists its dates (both may be given: the dates add to the recurrence). end_date not before start_date; dates are calendar dates, each once; the BOM as PUT .../bom checks it. 409 when another event has the name. ${WRITE} ${MODEL}`,
    body: s.createEventBody, audit: { entityType: 'maintenance_event', action: 'create' },
    responses: { 201: { description: 'the stored event', schema: s.eventSchema }, ...errors(400, 401, 403, 409) },
    handler: async (ctx, { body, user }) => {
      const row = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const v: EventValues = {
          name: body.name, description: body.description, event_type: body.event_type, asset: body.asset,
          start_date: body.start_date, interval_weeks: body.interval_weeks, end_date: body.end_date, dates: body.dates,
        };
        await checkEvent(tx, v, 0);
        await checkLines(tx, body.bom, 'body.bom');
        const id = await insertEvent(tx, v);
        await replaceBom(tx, id, body.bom);
        return eventWithBom(tx, id);
      });
      setAudit(ctx, { entityId: row.id, newValue: row });
      return row;
    },
  });

  defineRoute(table, {
    method: 'put', path: `${base}/events/{event_id}`, tag, permission: 'admin',
    summary: 'Update a maintenance event (extra: not in the spec)',
    description: `Any of the event fields; only those sent change (null clears a nullable one). The event as it would be stored is checked as on create. The BOM changes through PUT .../bom. 404 unknown event, 409 name taken. ${WRITE}`,
    params: s.eventPath, body: s.updateEventBody, audit: { entityType: 'maintenance_event', action: 'update' },
    responses: { 200: { description: 'the updated event', schema: s.eventSchema }, ...errors(400, 401, 403, 404, 409) },
    handler: async (ctx, { params, body, user }) => {
      const { old, row } = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const old = await eventWithBom(tx, params.event_id);
        const v = eventValues(old);
        for (const k of Object.keys(v) as Array<keyof EventValues>) if (body[k] !== undefined) (v as any)[k] = body[k];
        await checkEvent(tx, v, params.event_id);
        await updateEvent(tx, params.event_id, v);
        return { old, row: await eventWithBom(tx, params.event_id) };
      });
      setAudit(ctx, { entityId: params.event_id, oldValue: old, newValue: row });
      return row;
    },
  });

  defineRoute(table, {
    method: 'delete', path: `${base}/events/{event_id}`, tag, permission: 'admin',
    summary: 'Delete a maintenance event (extra: not in the spec)',
    description: 'The event goes with its BOM, its schedule entries and date overrides in every scenario. 404 unknown event. Needs an admin role (403 otherwise).',
    params: s.eventPath, audit: { entityType: 'maintenance_event', action: 'delete' },
    responses: { 200: { description: 'deleted', schema: s.deletedSchema }, ...errors(400, 401, 403, 404) },
    handler: async (ctx, { params, user }) => {
      const old = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const row = await eventWithBom(tx, params.event_id);
        await deleteEvent(tx, params.event_id);
        return row;
      });
      setAudit(ctx, { entityId: params.event_id, oldValue: old, newValue: { deleted: true } });
      return { status: 'deleted', id: params.event_id };
    },
  });

  defineRoute(table, {
    method: 'put', path: `${base}/events/{event_id}/bom`, tag, permission: 'admin',
    summary: 'Replace the BOM of a maintenance event',
    description: `The body is the whole BOM: lines not sent are removed, [] empties it. Each line: item_id and site_id that exist (400 \`body.lines[i].item_id\` / \`.site_id\`), qty_per_occurrence > 0, one line per (item, site). 404 unknown event. Answers the event with its new BOM. ${WRITE}`,
    params: s.eventPath, body: s.bomBody, audit: { entityType: 'maintenance_event', action: 'update_bom' },
    responses: { 200: { description: 'the event with its BOM', schema: s.eventSchema }, ...errors(400, 401, 403, 404) },
    handler: async (ctx, { params, body, user }) => {
      const { old, row } = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const old = await eventWithBom(tx, params.event_id);
        await checkLines(tx, body.lines, 'body.lines');
        await replaceBom(tx, params.event_id, body.lines);
        return { old, row: await eventWithBom(tx, params.event_id) };
      });
      setAudit(ctx, { entityId: params.event_id, oldValue: old.bom, newValue: row.bom });
      return row;
    },
  });

  defineRoute(table, {
    method: 'get', path: `${base}/events/{event_id}/occurrences`, tag,
    summary: 'Occurrences of one event over the horizon',
    description: `The dates the event happens in the horizon, in the scenario: \`scheduled_date\` is the date its recurrence and the scenario's schedule entry give it, \`date\` where a date override moved it (status moved) or null where one cancelled it (status cancelled, listed when its scheduled date is in the horizon). An occurrence moved into the horizon from outside counts; one moved out does not. ${HORIZON} 404 unknown event or scenario. ${MODEL}`,
    params: s.eventPath, query: s.horizonQuery,
    responses: { 200: { description: 'occurrences', schema: s.occurrencesSchema }, ...errors(400, 401, 404) },
    handler: async (ctx, { params, query, user }) => withTenant(ctx.deps.db, user.accountId, async (tx) => {
      const e = await eventOr404(tx, params.event_id);
      const scenarioId = await scenarioOf(tx, query.scenario_id);
      const h = await horizonOf(tx, query);
      const entry = scenarioId === null ? undefined : (await scheduleEntries(tx, scenarioId)).find((x) => x.event_id === e.id);
      const overrides = scenarioId === null ? [] : await dateOverrides(tx, scenarioId, e.id);
      const occ = expandOccurrences(e, entry, overrides, h);
      return {
        event_id: e.id, name: e.name, ...horizonEcho(scenarioId, h),
        occurrences: occ.map((o) => ({ date: o.date, week: o.week, scheduled_date: o.scheduled_date, status: o.status })),
      };
    }),
  });

  defineRoute(table, {
    method: 'put', path: `${base}/events/{event_id}/scenario/{id}/dates`, tag, permission: 'admin',
    summary: 'Move or cancel occurrences of an event in a scenario',
    description: `The body is every date override of the event in the scenario (those not sent are removed; [] removes them all). \`date\` must be a date the scenario's schedule gives the event (its recurrence and the scenario's entry, before overrides; 400 \`body.overrides[i].date\` otherwise), each once; \`new_date\` moves the occurrence there, null cancels it. An override whose date stops being scheduled (the schedule or event changed later) is kept but does nothing. 404 unknown event or scenario. ${WRITE}`,
    params: s.eventScenarioPath, body: s.datesBody, audit: { entityType: 'maintenance_scenario', action: 'update_dates' },
    responses: { 200: { description: 'the overrides now stored', schema: s.datesSchema }, ...errors(400, 401, 403, 404) },
    handler: async (ctx, { params, body, user }) => {
      const { old, row } = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const e = await eventOr404(tx, params.event_id);
        await scenarioOr404(tx, params.id);
        const entry = (await scheduleEntries(tx, params.id)).find((x) => x.event_id === e.id);
        const seen = new Set<string>();
        body.overrides.forEach((o: { date: string; new_date: string | null }, i: number) => {
          checkDate(`body.overrides[${i}].date`, o.date);
          if (o.new_date !== null) checkDate(`body.overrides[${i}].new_date`, o.new_date);
          if (seen.has(o.date)) throw badRequest(`body.overrides[${i}].date: ${o.date} is listed twice`);
          seen.add(o.date);
          if (!isScheduledDate(e, entry, o.date)) throw badRequest(`body.overrides[${i}].date: ${o.date} is not a scheduled occurrence of maintenance event ${e.id} ('${e.name}') in scenario ${params.id}`);
        });
        const old = await dateOverrides(tx, params.id, e.id);
        await replaceDateOverrides(tx, params.id, e.id, body.overrides);
        const now = await dateOverrides(tx, params.id, e.id);
        return { old, row: { event_id: e.id, scenario_id: params.id, overrides: now.map((o) => ({ date: o.date, new_date: o.new_date })) } };
      });
      setAudit(ctx, { entityId: params.id, oldValue: { event_id: params.event_id, overrides: old }, newValue: row });
      return row;
    },
  });

  defineRoute(table, {
    method: 'get', path: `${base}/events-summary`, tag,
    summary: 'Per event: occurrences and parts over the horizon',
    description: `One row per event, by id: whether the scenario keeps it active and its shift, the occurrences that happen in the horizon (moved ones included) with the moved and cancelled counts, first and last date, its BOM lines and total_qty = occurrence_count × Σ qty_per_occurrence. ${HORIZON} 404 unknown scenario. ${MODEL}`,
    query: s.horizonQuery,
    responses: { 200: { description: 'summary', schema: s.eventsSummarySchema }, ...errors(400, 401, 404) },
    handler: async (ctx, { query, user }) => withTenant(ctx.deps.db, user.accountId, async (tx) => {
      const scenarioId = await scenarioOf(tx, query.scenario_id);
      const h = await horizonOf(tx, query);
      const p = await planOver(tx, scenarioId, h);
      const entryOf = new Map(p.entries.map((x) => [x.event_id, x]));
      const events = p.events.map((e) => {
        const occ = p.occurrences.filter((o) => o.event_id === e.id);
        const happening = occ.filter((o) => o.date !== null).map((o) => o.date!).sort();
        const lines = p.bom.filter((l) => l.event_id === e.id);
        const perOcc = lines.reduce((a, l) => a + l.qty_per_occurrence, 0);
        const r = effectiveRecurrence(e, entryOf.get(e.id));
        return {
          event_id: e.id, name: e.name, event_type: e.event_type, asset: e.asset, active: r.active, shift_weeks: r.shift_weeks,
          occurrence_count: happening.length, moved_count: occ.filter((o) => o.status === 'moved').length,
          cancelled_count: occ.filter((o) => o.status === 'cancelled').length,
          first_date: happening[0] ?? null, last_date: happening[happening.length - 1] ?? null,
          bom_lines: lines.length, total_qty: happening.length * perOcc,
        };
      });
      return {
        ...horizonEcho(scenarioId, h), events,
        total_occurrences: events.reduce((a, e) => a + e.occurrence_count, 0), total_qty: events.reduce((a, e) => a + e.total_qty, 0),
      };
    }),
  });

  defineRoute(table, {
    method: 'get', path: `${base}/events-weekly`, tag,
    summary: 'Maintenance events per week',
    description: `Every week of the horizon, in order, with the occurrences that happen in it (cancelled ones do not), how many, and how many distinct events. ${HORIZON} 404 unknown scenario. ${MODEL}`,
    query: s.horizonQuery,
    responses: { 200: { description: 'weeks', schema: s.eventsWeeklySchema }, ...errors(400, 401, 404) },
    handler: async (ctx, { query, user }) => withTenant(ctx.deps.db, user.accountId, async (tx) => {
      const scenarioId = await scenarioOf(tx, query.scenario_id);
      const h = await horizonOf(tx, query);
      const p = await planOver(tx, scenarioId, h);
      const name = new Map(p.events.map((e) => [e.id, e.name]));
      return {
        ...horizonEcho(scenarioId, h),
        weeks: occurrencesPerWeek(p.occurrences, h).map((w) => ({
          week: w.week, occurrence_count: w.occurrences.length, event_count: new Set(w.occurrences.map((o) => o.event_id)).size,
          events: w.occurrences.map((o) => ({ event_id: o.event_id, name: name.get(o.event_id)!, date: o.date! })),
        })),
      };
    }),
  });

  defineRoute(table, {
    method: 'get', path: `${base}/items-for-week`, tag,
    summary: 'Parts needed in one week',
    description: `The parts the occurrences of \`week\` (its Monday) consume, per series (item × site): qty = Σ over the week's occurrences of their BOM line's qty_per_occurrence, with the occurrences it comes from; by item id, then site id. 404 unknown scenario. ${MODEL}`,
    query: s.weekQuery,
    responses: { 200: { description: 'parts', schema: s.itemsForWeekSchema }, ...errors(400, 401, 404) },
    handler: async (ctx, { query, user }) => withTenant(ctx.deps.db, user.accountId, async (tx) => {
      const week = mondayOf(checkDate('query.week', query.week));
      const scenarioId = await scenarioOf(tx, query.scenario_id);
      const p = await planOver(tx, scenarioId, { start: week, weeks: 1 });
      const name = new Map(p.events.map((e) => [e.id, e.name]));
      const parts = partsForWeek(p.occurrences, p.bom, week);
      const named = await seriesNames(tx, parts);
      return {
        week, scenario_id: scenarioId,
        items: parts.map((x) => ({ ...named(x), qty: x.qty, events: x.events.map((e) => ({ event_id: e.event_id, name: name.get(e.event_id)!, date: e.date, qty: e.qty })) })),
        total_qty: parts.reduce((a, x) => a + x.qty, 0),
      };
    }),
  });

  // ------------------------------------------------------------------------------------------------ demand

  defineRoute(table, {
    method: 'get', path: `${base}/demand/series`, tag,
    summary: 'Weekly maintenance demand per series',
    description: `BOM × occurrences: every occurrence that happens in week k adds each line's qty_per_occurrence to that line's series (item × site) in week k. One row per series with demand in the horizon (by item id, then site id), values dense over \`weeks\`, and its total. \`item_id\` and \`site_id\` narrow the rows. ${HORIZON} 404 unknown scenario. ${MODEL}`,
    query: s.seriesQuery,
    responses: { 200: { description: 'series', schema: s.demandSeriesSchema }, ...errors(400, 401, 404) },
    handler: async (ctx, { query, user }) => withTenant(ctx.deps.db, user.accountId, async (tx) => {
      const scenarioId = await scenarioOf(tx, query.scenario_id);
      const h = await horizonOf(tx, query);
      const p = await planOver(tx, scenarioId, h);
      const bom = p.bom.filter((l) => (query.item_id === undefined || l.item_id === query.item_id) && (query.site_id === undefined || l.site_id === query.site_id));
      const series = weeklyDemand(p.occurrences, bom, h);
      const named = await seriesNames(tx, series);
      return { ...horizonEcho(scenarioId, h), weeks: horizonWeeks(h), series: series.map((x) => ({ ...named(x), total: x.total, values: x.values })) };
    }),
  });

  defineRoute(table, {
    method: 'get', path: `${base}/demand/summary`, tag,
    summary: 'Maintenance demand summed over the series',
    description: `The demand of GET /api/maintenance/demand/series summed: \`weekly\` is Σ over the series per week (every week of the horizon), total_qty its sum; counts of series, items, sites, events with an occurrence and occurrences that happen. ${HORIZON} 404 unknown scenario.`,
    query: s.horizonQuery,
    responses: { 200: { description: 'summary', schema: s.demandSummarySchema }, ...errors(400, 401, 404) },
    handler: async (ctx, { query, user }) => withTenant(ctx.deps.db, user.accountId, async (tx) => {
      const scenarioId = await scenarioOf(tx, query.scenario_id);
      const h = await horizonOf(tx, query);
      const p = await planOver(tx, scenarioId, h);
      const series = weeklyDemand(p.occurrences, p.bom, h);
      const totals = weeklyTotals(series, h);
      const happening = p.occurrences.filter((o) => o.date !== null);
      return {
        ...horizonEcho(scenarioId, h),
        total_qty: totals.reduce((a, v) => a + v, 0),
        series_count: series.length, item_count: new Set(series.map((x) => x.item_id)).size, site_count: new Set(series.map((x) => x.site_id)).size,
        event_count: new Set(happening.map((o) => o.event_id)).size, occurrence_count: happening.length,
        weekly: horizonWeeks(h).map((date, k) => ({ date, value: totals[k] })),
      };
    }),
  });

  // ------------------------------------------------------------------------------------------------ scenarios

  defineRoute(table, {
    method: 'get', path: `${base}/scenarios`, tag,
    summary: 'Maintenance scenarios',
    description: `Every maintenance scenario, by id, with how many events it has a schedule entry for and how many date overrides it holds. ${MODEL}`,
    responses: { 200: { description: 'scenarios', schema: { type: 'array', items: s.scenarioSchema } }, ...errors(401) },
    handler: async (ctx, { user }) => withTenant(ctx.deps.db, user.accountId, (tx) => listScenarios(tx)),
  });

  defineRoute(table, {
    method: 'post', path: `${base}/scenarios`, tag, permission: 'admin', status: 201,
    summary: 'Create a maintenance scenario (extra: not in the spec)',
    description: `Not in the spec, which lists no way to create one (docs/MAINTENANCE.md). A new scenario has no schedule entries: every event follows its own recurrence until PUT .../schedule and .../dates change it. 409 when another scenario has the name. ${WRITE}`,
    body: s.createScenarioBody, audit: { entityType: 'maintenance_scenario', action: 'create' },
    responses: { 201: { description: 'the stored scenario', schema: s.scenarioSchema }, ...errors(400, 401, 403, 409) },
    handler: async (ctx, { body, user }) => {
      const row = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const twin = await scenarioNamed(tx, body.name);
        if (twin !== null) throw conflict(`maintenance scenario ${twin} is already named '${body.name}'; choose another name`);
        const id = await insertScenario(tx, { name: body.name, description: body.description });
        return (await listScenarios(tx)).find((x) => x.id === id)!;
      });
      setAudit(ctx, { entityId: row.id, newValue: row });
      return row;
    },
  });

  defineRoute(table, {
    method: 'delete', path: `${base}/scenarios/{id}`, tag, permission: 'admin',
    summary: 'Delete a maintenance scenario (extra: not in the spec)',
    description: 'The scenario goes with its schedule entries and date overrides; the events stay. 404 unknown scenario. Needs an admin role (403 otherwise).',
    params: s.idPath, audit: { entityType: 'maintenance_scenario', action: 'delete' },
    responses: { 200: { description: 'deleted', schema: s.deletedSchema }, ...errors(400, 401, 403, 404) },
    handler: async (ctx, { params, user }) => {
      const old = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const row = await scheduleView(tx, params.id);
        await deleteScenario(tx, params.id);
        return row;
      });
      setAudit(ctx, { entityId: params.id, oldValue: old, newValue: { deleted: true } });
      return { status: 'deleted', id: params.id };
    },
  });

  defineRoute(table, {
    method: 'get', path: `${base}/scenario/{id}/schedule`, tag,
    summary: 'The schedule of a maintenance scenario',
    description: `Every event, by id, with the scenario's entry for it (has_entry false: none, the event follows its own recurrence): active, shift_weeks and the interval, start and end that replace the event's (null: the event's own); \`effective\`: the recurrence that results (before the shift); and the event's date overrides in the scenario. 404 unknown scenario. ${MODEL}`,
    params: s.idPath,
    responses: { 200: { description: 'schedule', schema: s.scheduleSchema }, ...errors(400, 401, 404) },
    handler: async (ctx, { params, user }) => withTenant(ctx.deps.db, user.accountId, (tx) => scheduleView(tx, params.id)),
  });

  defineRoute(table, {
    method: 'put', path: `${base}/scenario/{id}/schedule`, tag, permission: 'admin',
    summary: 'Replace the schedule of a maintenance scenario',
    description: `The body is the whole schedule: one entry per event at most (events not listed follow their own recurrence; [] clears it). An entry: active (default true), shift_weeks (default 0, every occurrence moved by whole weeks: "Deferred 4 weeks" is 4), and interval_weeks, start_date, end_date replacing the event's (null: the event's own). 400 \`body.entries[i].event_id\` for an unknown or repeated event, \`body.entries[i].start_date\` when a recurrence results without a start, \`.end_date\` before the start. Date overrides stay; those whose date stops being scheduled do nothing. 404 unknown scenario. Answers the schedule as GET. ${WRITE}`,
    params: s.idPath, body: s.scheduleBody, audit: { entityType: 'maintenance_scenario', action: 'update_schedule' },
    responses: { 200: { description: 'the schedule now stored', schema: s.scheduleSchema }, ...errors(400, 401, 403, 404) },
    handler: async (ctx, { params, body, user }) => {
      const { old, row } = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const old = await scheduleView(tx, params.id);
        const events = new Map((await listEvents(tx)).map((e) => [e.id, e]));
        const seen = new Set<number>();
        const entries: ScheduleEntry[] = body.entries.map((x: ScheduleEntry, i: number) => {
          const e = events.get(x.event_id);
          if (!e) throw badRequest(`body.entries[${i}].event_id: maintenance event ${x.event_id} does not exist`);
          if (seen.has(x.event_id)) throw badRequest(`body.entries[${i}].event_id: event ${x.event_id} is listed twice`);
          seen.add(x.event_id);
          for (const k of ['start_date', 'end_date'] as const) if (x[k] !== null) checkDate(`body.entries[${i}].${k}`, x[k]!);
          const entry: ScheduleEntry = { event_id: x.event_id, active: x.active, shift_weeks: x.shift_weeks, interval_weeks: x.interval_weeks, start_date: x.start_date, end_date: x.end_date };
          const problem = recurrenceProblem(effectiveRecurrence(e, entry));
          if (problem) throw badRequest(`body.entries[${i}].${problem.field}: ${problem.message}`);
          return entry;
        });
        await replaceSchedule(tx, params.id, entries);
        return { old, row: await scheduleView(tx, params.id) };
      });
      setAudit(ctx, { entityId: params.id, oldValue: old, newValue: row });
      return row;
    },
  });

  defineRoute(table, {
    method: 'get', path: `${base}/scenario/{id}/item-breakdown`, tag,
    summary: 'Maintenance demand of a scenario per item',
    description: `Per item with demand in the horizon (by id): its total, split by site and by event (the event's occurrences that happen and the qty they take). Σ of the items' totals = total_qty = the total of GET /api/maintenance/demand/summary for the scenario. ${HORIZON} 404 unknown scenario.`,
    params: s.idPath, query: s.horizonNoScenarioQuery,
    responses: { 200: { description: 'items', schema: s.itemBreakdownSchema }, ...errors(400, 401, 404) },
    handler: async (ctx, { params, query, user }) => withTenant(ctx.deps.db, user.accountId, async (tx) => {
      const sc = await scenarioOr404(tx, params.id);
      const h = await horizonOf(tx, query);
      const p = await planOver(tx, sc.id, h);
      const eventName = new Map(p.events.map((e) => [e.id, e.name]));
      const inWeeks = p.occurrences.filter((o) => o.date !== null);
      const countOf = new Map<number, number>();
      for (const o of inWeeks) countOf.set(o.event_id, (countOf.get(o.event_id) ?? 0) + 1);
      const items = new Map<number, { total: number; sites: Map<number, number>; events: Map<number, number> }>();
      for (const l of p.bom) {
        const n = countOf.get(l.event_id) ?? 0;
        if (!n) continue;
        const q = n * l.qty_per_occurrence;
        let it = items.get(l.item_id);
        if (!it) items.set(l.item_id, (it = { total: 0, sites: new Map(), events: new Map() }));
        it.total += q;
        it.sites.set(l.site_id, (it.sites.get(l.site_id) ?? 0) + q);
        it.events.set(l.event_id, (it.events.get(l.event_id) ?? 0) + q);
      }
      const ids = [...items.keys()].sort((a, b) => a - b);
      const itemNames = await namesOf(tx, 'items', ids);
      const siteNames = await namesOf(tx, 'sites', [...items.values()].flatMap((x) => [...x.sites.keys()]));
      const rows = ids.map((id) => {
        const it = items.get(id)!;
        return {
          item_id: id, item_xuid: itemNames.get(id)!.xuid, item_name: itemNames.get(id)!.name, total: it.total,
          sites: [...it.sites].sort((a, b) => a[0] - b[0]).map(([site, qty]) => ({ site_id: site, site_xuid: siteNames.get(site)!.xuid, site_name: siteNames.get(site)!.name, qty })),
          events: [...it.events].sort((a, b) => a[0] - b[0]).map(([ev, qty]) => ({ event_id: ev, name: eventName.get(ev)!, occurrences: countOf.get(ev)!, qty })),
        };
      });
      return { ...horizonEcho(sc.id, h), scenario_name: sc.name, items: rows, total_qty: rows.reduce((a, r) => a + r.total, 0) };
    }),
  });
}

