import { mondayDate, nullable, obj, out } from '../schemas';
import { id32, nameSchema } from '../scenarios/schemas';
import type { JsonSchema } from '../validation';

export { idParams, pageQuery } from '../scenarios/schemas';

export const MAX_FACTOR = 100;

const description: JsonSchema = nullable({ type: 'string', maxLength: 2000 });
const isDefault: JsonSchema = { type: 'boolean', description: "the tenant's default calendar, followed by every site without its own; at most one (marking one unmarks the other)" };
const siteIds: JsonSchema = {
  type: 'array', items: id32, uniqueItems: true, maxItems: 100000,
  description: 'sites that follow this calendar (a site follows one calendar: listing it here moves it from its previous one); replaced as a whole on update',
};

export const entrySchema: JsonSchema = obj(
  {
    ds: mondayDate('the Monday of the week (weeks are keyed by their Monday); another weekday is a 400 naming that Monday', '2026-01-05'),
    factor: { type: 'number', minimum: 0, maximum: MAX_FACTOR, description: 'capacity factor of the week: 1 normal, 0 closed, 0.6 a short week, above 1 extra capacity' },
    description: { ...nullable({ type: 'string', maxLength: 500 }), default: null, description: 'e.g. the holiday' },
  },
  ['ds', 'factor'],
);

const entries: JsonSchema = { type: 'array', items: entrySchema, maxItems: 10000, description: 'every entry of the calendar, one per week' };

const entryOut: JsonSchema = out({ ds: { type: 'string', format: 'date' }, factor: { type: 'number' }, description: nullable({ type: 'string' }) });

const calendarFields = {
  id: { type: 'integer' },
  name: { type: 'string' },
  description: nullable({ type: 'string' }),
  is_default: { type: 'boolean' },
  site_ids: { type: 'array', items: { type: 'integer' }, description: 'sites with this calendar set (sites without one follow the default calendar)' },
  entry_count: { type: 'integer' },
  created_at: { type: 'string', format: 'date-time' },
  updated_at: { type: 'string', format: 'date-time' },
};

export const calendarSchema: JsonSchema = out(calendarFields);
export const calendarDetailSchema: JsonSchema = out({ ...calendarFields, entries: { type: 'array', items: entryOut } });

export const createCalendarBody = obj(
  {
    name: nameSchema,
    description: { ...description, default: null },
    is_default: { ...isDefault, default: false },
    site_ids: { ...siteIds, default: [] },
    entries: { ...entries, default: [] },
  },
  ['name'],
);

export const updateCalendarBody = obj({ name: nameSchema, description, is_default: isDefault, site_ids: siteIds }, [], {
  minProperties: 1, description: 'partial; entries are replaced with PUT /api/calendars/{id}/entries',
});

export const entriesBody = obj({ entries }, ['entries']);

export const deleteCalendarResponse = out({
  status: { type: 'string', const: 'deleted' },
  id: { type: 'integer' },
  detached_site_ids: { type: 'array', items: { type: 'integer' }, description: 'sites that followed it and now follow the default calendar, if any' },
});
