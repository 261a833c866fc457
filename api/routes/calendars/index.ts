import {
  calendarEntries, clearDefaultCalendar, deleteCalendar, findCalendarByName, getCalendar, insertCalendar, listCalendars, lockCalendars,
  replaceCalendarEntries, setCalendarSites, unknownSiteIds, updateCalendar, type CalendarEntry, type CalendarRow,
} from '../../../db/calendars';
import { withTenant, type Tx } from '../../../db/pool';
import { dayNumber, mondayOf } from '../../../domain/time/weeks';
import type { AppContext } from '../../context';
import { badRequest, conflict, notFound } from '../../errors';
import { defineRoute, type RouteTable } from '../define';
import { errors } from '../schemas';
import * as s from './schemas';

const DAY_NAMES = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

export const calendarView = (r: CalendarRow) => ({
  id: r.id, name: r.name, description: r.description, is_default: r.is_default, site_ids: [...r.site_ids], entry_count: r.entry_count,
  created_at: r.created_at, updated_at: r.updated_at,
});

const detailView = (r: CalendarRow, entries: CalendarEntry[]) => ({ ...calendarView(r), entries: entries.map((e) => ({ ds: e.ds, factor: e.factor, description: e.description })) });

/** Entries are weekly: each ds a Monday (a real date), each week once. 400 naming the entry otherwise. */
function checkEntries(entries: CalendarEntry[]): CalendarEntry[] {
  const seen = new Map<string, number>();
  entries.forEach((e, i) => {
    const day = dayNumber(e.ds);
    if (!Number.isFinite(day) || new Date(day * 86_400_000).toISOString().slice(0, 10) !== e.ds) throw badRequest(`body.entries[${i}].ds: ${e.ds} is not a calendar date`);
    const monday = mondayOf(e.ds);
    if (monday !== e.ds) throw badRequest(`body.entries[${i}].ds: ${e.ds} is a ${DAY_NAMES[(((day + 4) % 7) + 7) % 7]}; weeks are keyed by their Monday (${monday})`);
    const twin = seen.get(e.ds);
    if (twin !== undefined) throw badRequest(`body.entries[${i}].ds: the week of ${e.ds} is already listed at body.entries[${twin}]`);
    seen.set(e.ds, i);
  });
  return entries.map((e) => ({ ds: e.ds, factor: e.factor, description: e.description ?? null }));
}

async function calendarOr404(tx: Tx, id: number): Promise<CalendarRow> {
  const row = await getCalendar(tx, id);
  if (!row) throw notFound(`Calendar ${id} not found`);
  return row;
}

async function checkNameFree(tx: Tx, name: string, exceptId?: number): Promise<void> {
  const clash = await findCalendarByName(tx, name, exceptId);
  if (clash) throw conflict(`body.name: calendar ${clash.id} is already named '${clash.name}'`);
}

async function checkSites(tx: Tx, ids: readonly number[] | undefined): Promise<void> {
  if (!ids?.length) return;
  const unknown = await unknownSiteIds(tx, ids);
  if (unknown.length) throw badRequest(`body.site_ids: site${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')} ${unknown.length > 1 ? 'do' : 'does'} not exist`);
}

const setAudit = (ctx: AppContext, note: { entityId?: number | null; oldValue?: unknown; newValue?: unknown }) => {
  ctx.state.audit = { ...ctx.state.audit, ...note };
};

/** Calendars (spec §4.11): weekly capacity factors per site that the etl and forecast steps honour. */
export function registerCalendarRoutes(table: RouteTable): void {
  const tag = 'calendars';
  const entityType = 'calendar';

  defineRoute(table, {
    method: 'get', path: '/api/calendars', tag,
    summary: 'List calendars',
    description: 'Ordered by id, without their entries (`entry_count`). The total count is in the `X-Total-Count` header.',
    query: s.pageQuery,
    responses: { 200: { description: 'calendars', schema: { type: 'array', items: s.calendarSchema } }, ...errors(400, 401) },
    handler: async (ctx, { query, user }) => {
      const { rows, total } = await withTenant(ctx.deps.db, user.accountId, (tx) => listCalendars(tx, query));
      ctx.set('X-Total-Count', String(total));
      return rows.map(calendarView);
    },
  });

  defineRoute(table, {
    method: 'post', path: '/api/calendars', tag, permission: 'run_process', status: 201,
    summary: 'Create a calendar',
    description:
      'A calendar is a list of weeks (keyed by their Monday) with a capacity factor; weeks it does not list have factor 1. `site_ids` are the sites that follow it; `is_default` makes it the calendar of every site without its own. Names are unique ignoring case.',
    body: s.createCalendarBody, audit: { entityType, action: 'create' },
    responses: { 201: { description: 'created calendar with its entries', schema: s.calendarDetailSchema }, ...errors(400, 401, 403, 409) },
    handler: async (ctx, { body, user }) => {
      const name = body.name.trim();
      const entries = checkEntries(body.entries);
      const { row, saved } = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        await lockCalendars(tx);
        await checkNameFree(tx, name);
        await checkSites(tx, body.site_ids);
        if (body.is_default) await clearDefaultCalendar(tx);
        const id = await insertCalendar(tx, { name, description: body.description, is_default: body.is_default });
        await setCalendarSites(tx, id, body.site_ids);
        await replaceCalendarEntries(tx, id, entries);
        return { row: (await getCalendar(tx, id))!, saved: await calendarEntries(tx, id) };
      });
      const view = detailView(row, saved);
      setAudit(ctx, { entityId: row.id, newValue: view });
      return view;
    },
  });

  defineRoute(table, {
    method: 'get', path: '/api/calendars/{id}', tag,
    summary: 'One calendar with its entries',
    params: s.idParams('id'),
    responses: { 200: { description: 'calendar', schema: s.calendarDetailSchema }, ...errors(400, 401, 404) },
    handler: async (ctx, { params, user }) =>
      withTenant(ctx.deps.db, user.accountId, async (tx) => detailView(await calendarOr404(tx, params.id), await calendarEntries(tx, params.id))),
  });

  defineRoute(table, {
    method: 'put', path: '/api/calendars/{id}', tag, permission: 'run_process',
    summary: 'Update a calendar',
    description: 'Partial: only the fields sent change; `site_ids` is replaced as a whole (sites left out stop following it). Entries: PUT /api/calendars/{id}/entries.',
    params: s.idParams('id'), body: s.updateCalendarBody, audit: { entityType, action: 'update' },
    responses: { 200: { description: 'updated calendar with its entries', schema: s.calendarDetailSchema }, ...errors(400, 401, 403, 404, 409) },
    handler: async (ctx, { params, body, user }) => {
      const name = body.name?.trim();
      const { old, row, saved } = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        await lockCalendars(tx);
        const old = await calendarOr404(tx, params.id);
        if (name !== undefined) await checkNameFree(tx, name, params.id);
        await checkSites(tx, body.site_ids);
        if (body.is_default) await clearDefaultCalendar(tx, params.id);
        await updateCalendar(tx, params.id, { name, description: body.description, is_default: body.is_default });
        if (body.site_ids) await setCalendarSites(tx, params.id, body.site_ids);
        return { old, row: (await getCalendar(tx, params.id))!, saved: await calendarEntries(tx, params.id) };
      });
      const view = detailView(row, saved);
      setAudit(ctx, { entityId: row.id, oldValue: calendarView(old), newValue: calendarView(row) });
      return view;
    },
  });

  defineRoute(table, {
    method: 'delete', path: '/api/calendars/{id}', tag, permission: 'run_process',
    summary: 'Delete a calendar',
    description: 'Its entries go with it; its sites are detached (they follow the default calendar, if any, from the next etl run).',
    params: s.idParams('id'), audit: { entityType, action: 'delete' },
    responses: { 200: { description: 'deleted', schema: s.deleteCalendarResponse }, ...errors(400, 401, 403, 404) },
    handler: async (ctx, { params, user }) => {
      const old = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        await lockCalendars(tx);
        const old = await calendarOr404(tx, params.id);
        await deleteCalendar(tx, params.id);
        return old;
      });
      setAudit(ctx, { entityId: params.id, oldValue: calendarView(old), newValue: { deleted: true } });
      return { status: 'deleted', id: params.id, detached_site_ids: [...old.site_ids] };
    },
  });

  defineRoute(table, {
    method: 'put', path: '/api/calendars/{id}/entries', tag, permission: 'run_process',
    summary: "Replace a calendar's entries",
    description:
      'Every entry at once: `{entries: [{ds, factor, description}]}`, `ds` the Monday of the week (another day is a 400 naming the entry and its Monday), each week once, `factor` from 0 (closed) up. An empty list clears the calendar. The etl step applies it at its next run (docs/PARAMETERS.md#calendars).',
    params: s.idParams('id'), body: s.entriesBody, audit: { entityType: 'calendar.entries', action: 'replace' },
    responses: { 200: { description: 'calendar with its new entries', schema: s.calendarDetailSchema }, ...errors(400, 401, 403, 404) },
    handler: async (ctx, { params, body, user }) => {
      const entries = checkEntries(body.entries);
      const { before, row, saved } = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        await lockCalendars(tx);
        await calendarOr404(tx, params.id);
        const before = await calendarEntries(tx, params.id);
        await replaceCalendarEntries(tx, params.id, entries);
        return { before, row: (await getCalendar(tx, params.id))!, saved: await calendarEntries(tx, params.id) };
      });
      setAudit(ctx, { entityId: params.id, oldValue: { entry_count: before.length }, newValue: { entry_count: saved.length, entries: saved } });
      return detailView(row, saved);
    },
  });
}
