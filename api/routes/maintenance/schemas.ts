import { int4, nullable, obj, out, sent } from '../schemas';
import type { JsonSchema } from '../validation';

export const MAX_HORIZON_WEEKS = 520;
export const DEFAULT_HORIZON_WEEKS = 52;
export const MAX_SHIFT_WEEKS = 520;
export const MAX_LINES = 1000;
export const MAX_DATES = 1000;

const str = { type: 'string' };
const id = { type: 'integer' };
const dateOut = { type: 'string', format: 'date' };
const date = (description: string): JsonSchema => ({ type: 'string', format: 'date', description, examples: ['2026-03-02'] });
const text = (max: number, description: string): JsonSchema => ({ ...nullable({ type: 'string', maxLength: max }), description });

// ---------------------------------------------------------------------------------------------------- queries

const horizonFields = {
  scenario_id: int4(1, { description: 'maintenance scenario whose schedule entries and date overrides apply (404 when unknown); omitted: the events as defined, with no scenario changes' }),
  start_week: date('first week of the horizon (any date; its Monday is used); default the Monday of the planning today (the tenant\'s stored planning date, else today UTC)'),
  horizon_weeks: int4(1, { maximum: MAX_HORIZON_WEEKS, default: DEFAULT_HORIZON_WEEKS, description: `weeks in the horizon, 1 to ${MAX_HORIZON_WEEKS}; default ${DEFAULT_HORIZON_WEEKS}` }),
};

export const horizonQuery = obj(horizonFields);
export const horizonNoScenarioQuery = obj({ start_week: horizonFields.start_week, horizon_weeks: horizonFields.horizon_weeks });
export const seriesQuery = obj({
  ...horizonFields,
  item_id: int4(1, { description: 'only the series of this item' }),
  site_id: int4(1, { description: 'only the series of this site' }),
});
export const weekQuery = obj({
  week: date('the week (any date of it; its Monday is used)'),
  scenario_id: horizonFields.scenario_id,
}, ['week']);

export const idPath = obj({ id: int4(1) }, ['id']);
export const eventPath = obj({ event_id: int4(1) }, ['event_id']);
export const eventScenarioPath = obj({ event_id: int4(1), id: int4(1) }, ['event_id', 'id']);

// ---------------------------------------------------------------------------------------------------- bodies

const bomLine = obj({
  item_id: int4(1, { description: 'the part; must exist' }),
  site_id: int4(1, { description: 'the site where it is consumed; must exist' }),
  qty_per_occurrence: { type: 'number', exclusiveMinimum: 0, maximum: 1e12, description: 'units consumed by one occurrence, > 0' },
}, ['item_id', 'site_id', 'qty_per_occurrence']);

const bomLines = (description: string): JsonSchema => ({ type: 'array', maxItems: MAX_LINES, items: bomLine, description });

export const bomBody = obj({
  lines: bomLines(`the whole BOM of the event, at most ${MAX_LINES} lines, one per (item_id, site_id); [] empties it`),
}, ['lines']);

function eventFields(withDefaults: boolean): Record<string, JsonSchema> {
  const dflt = (value: unknown) => (withDefaults ? { default: value } : {});
  return {
    name: { type: 'string', minLength: 1, maxLength: 200, description: 'unique among the tenant\'s events' },
    description: { ...text(2000, 'free text'), ...dflt(null) },
    event_type: { ...text(100, 'kind of event, free text: "A-check", "C-check", "shutdown", ...'), ...dflt(null) },
    asset: { ...text(200, 'the asset or fleet maintained, free text: "MSN 1234", "A320 fleet", "Plant 2"'), ...dflt(null) },
    start_date: { ...nullable(date('first occurrence (YYYY-MM-DD)')), ...dflt(null), description: 'first occurrence of the recurrence; required when interval_weeks is set' },
    interval_weeks: { ...nullable(int4(1, { maximum: MAX_HORIZON_WEEKS })), ...dflt(null), description: `weeks between occurrences, 1 to ${MAX_HORIZON_WEEKS}; null: no recurrence, only the explicit dates` },
    end_date: { ...nullable(date('last possible occurrence')), ...dflt(null), description: 'no recurring occurrence after this date (inclusive); null: open-ended; not before start_date' },
    dates: { type: 'array', maxItems: MAX_DATES, items: date('an explicit occurrence'), ...dflt([]), description: 'explicit occurrences, besides the recurrence; at least one when interval_weeks is null' },
  };
}

export const createEventBody = obj({
  ...eventFields(true),
  bom: { ...bomLines('the BOM, as PUT /api/maintenance/events/{event_id}/bom takes it'), default: [] },
}, ['name'], {
  // domain/maintenance/engine.ts recurrenceProblem, said where a client reads it; a partial update is checked merged
  // with the stored event, so only the create body can state them
  allOf: [
    { if: sent('interval_weeks'), then: { ...sent('start_date'), 'x-refusal': 'a recurring event (interval_weeks set) needs a start_date', 'x-field': 'start_date' } },
    { if: { not: sent('interval_weeks') }, then: { required: ['dates'], properties: { dates: { minItems: 1 } }, 'x-refusal': 'an event without interval_weeks needs at least one date', 'x-field': 'dates' } },
  ],
});
export const updateEventBody = obj(eventFields(false), [], { minProperties: 1 });

export const createScenarioBody = obj({
  name: { type: 'string', minLength: 1, maxLength: 200, description: 'unique among the tenant\'s maintenance scenarios' },
  description: { ...text(2000, 'free text'), default: null },
}, ['name']);

const scheduleEntry = obj({
  event_id: int4(1, { description: 'the event; must exist, once per body' }),
  active: { type: 'boolean', default: true, description: 'false: the event does not happen in this scenario' },
  shift_weeks: { type: 'integer', minimum: -MAX_SHIFT_WEEKS, maximum: MAX_SHIFT_WEEKS, default: 0, description: 'every occurrence moved by whole weeks (> 0 defers, < 0 advances)' },
  interval_weeks: { ...nullable(int4(1, { maximum: MAX_HORIZON_WEEKS })), default: null, description: 'replaces the event\'s interval; null: the event\'s own' },
  start_date: { ...nullable(date('replaces the event\'s start_date')), default: null, description: 'replaces the event\'s start_date; null: the event\'s own' },
  end_date: { ...nullable(date('replaces the event\'s end_date')), default: null, description: 'replaces the event\'s end_date; null: the event\'s own' },
}, ['event_id']);

export const scheduleBody = obj({
  entries: { type: 'array', maxItems: MAX_LINES, items: scheduleEntry, description: 'the whole schedule of the scenario: events not listed follow their own recurrence; [] clears it' },
}, ['entries']);

const override = obj({
  date: date('a date the scenario\'s schedule gives the event (recurrence and entry, before overrides)'),
  new_date: { ...nullable(date('the date it moves to')), description: 'the date the occurrence moves to; null cancels it' },
}, ['date', 'new_date']);

export const datesBody = obj({
  overrides: { type: 'array', maxItems: MAX_DATES, items: override, description: 'every date override of the event in the scenario; [] removes them' },
}, ['overrides']);

// ---------------------------------------------------------------------------------------------------- responses

export const bomLineSchema = out({
  item_id: id, item_xuid: str, item_name: str, site_id: id, site_xuid: str, site_name: str,
  unique_id: { type: 'string', description: '<item_id>_<site_id>' },
  qty_per_occurrence: { type: 'number' },
});

export const eventSchema = out({
  id, name: str, description: nullable(str), event_type: nullable(str), asset: nullable(str),
  start_date: nullable(dateOut), interval_weeks: nullable(id), end_date: nullable(dateOut),
  dates: { type: 'array', items: dateOut },
  bom: { type: 'array', items: bomLineSchema },
  created_at: { type: 'string', format: 'date-time' }, updated_at: { type: 'string', format: 'date-time' },
});

export const scenarioSchema = out({
  id, name: str, description: nullable(str),
  scheduled_events: { type: 'integer', description: 'events with a schedule entry in the scenario' },
  date_overrides: { type: 'integer', description: 'date overrides in the scenario' },
  created_at: { type: 'string', format: 'date-time' }, updated_at: { type: 'string', format: 'date-time' },
});

const horizonOut = {
  scenario_id: { ...nullable(id), description: 'null: the events as defined' },
  start_week: dateOut,
  horizon_weeks: id,
};

export const occurrenceSchema = out({
  date: { ...nullable(dateOut), description: 'when it happens; null when cancelled' },
  week: { ...dateOut, description: 'Monday of date (of scheduled_date when cancelled)' },
  scheduled_date: { ...dateOut, description: 'the date the recurrence and schedule entry give it, before date overrides' },
  status: { type: 'string', enum: ['scheduled', 'moved', 'cancelled'] },
});

export const occurrencesSchema = out({ event_id: id, name: str, ...horizonOut, occurrences: { type: 'array', items: occurrenceSchema } });

export const eventsWeeklySchema = out({
  ...horizonOut,
  weeks: {
    type: 'array',
    items: out({
      week: dateOut,
      occurrence_count: { type: 'integer' },
      event_count: { type: 'integer', description: 'distinct events' },
      events: { type: 'array', items: out({ event_id: id, name: str, date: dateOut }) },
    }),
    description: 'every week of the horizon, in order',
  },
});

export const eventsSummarySchema = out({
  ...horizonOut,
  events: {
    type: 'array',
    items: out({
      event_id: id, name: str, event_type: nullable(str), asset: nullable(str),
      active: { type: 'boolean', description: 'false when the scenario switches the event off' },
      shift_weeks: { type: 'integer' },
      occurrence_count: { type: 'integer', description: 'occurrences that happen in the horizon' },
      moved_count: { type: 'integer' }, cancelled_count: { type: 'integer' },
      first_date: nullable(dateOut), last_date: nullable(dateOut),
      bom_lines: { type: 'integer' },
      total_qty: { type: 'number', description: 'occurrence_count × Σ qty_per_occurrence of the BOM' },
    }),
  },
  total_occurrences: { type: 'integer' },
  total_qty: { type: 'number' },
});

const seriesNames = { unique_id: str, item_id: id, item_xuid: str, item_name: str, site_id: id, site_xuid: str, site_name: str };

export const itemsForWeekSchema = out({
  week: dateOut,
  scenario_id: nullable(id),
  items: {
    type: 'array',
    items: out({ ...seriesNames, qty: { type: 'number' }, events: { type: 'array', items: out({ event_id: id, name: str, date: dateOut, qty: { type: 'number' } }) } }),
  },
  total_qty: { type: 'number' },
});

export const demandSeriesSchema = out({
  ...horizonOut,
  weeks: { type: 'array', items: dateOut, description: 'the Mondays of the horizon; values[k] is week weeks[k]' },
  series: { type: 'array', items: out({ ...seriesNames, total: { type: 'number' }, values: { type: 'array', items: { type: 'number' } } }) },
});

export const demandSummarySchema = out({
  ...horizonOut,
  total_qty: { type: 'number', description: 'Σ over weekly, = Σ of every series\' total' },
  series_count: { type: 'integer' }, item_count: { type: 'integer' }, site_count: { type: 'integer' },
  event_count: { type: 'integer', description: 'events with at least one occurrence in the horizon' },
  occurrence_count: { type: 'integer' },
  weekly: { type: 'array', items: out({ date: dateOut, value: { type: 'number' } }), description: 'Σ over the series per week, every week of the horizon' },
});

export const itemBreakdownSchema = out({
  ...horizonOut,
  scenario_name: str,
  items: {
    type: 'array',
    items: out({
      item_id: id, item_xuid: str, item_name: str, total: { type: 'number' },
      sites: { type: 'array', items: out({ site_id: id, site_xuid: str, site_name: str, qty: { type: 'number' } }) },
      events: { type: 'array', items: out({ event_id: id, name: str, occurrences: { type: 'integer' }, qty: { type: 'number' } }) },
    }),
  },
  total_qty: { type: 'number' },
});

export const scheduleSchema = out({
  scenario_id: id, scenario_name: str,
  entries: {
    type: 'array',
    description: 'every event, with its entry in the scenario (has_entry false: the event follows its own recurrence)',
    items: out({
      event_id: id, name: str, has_entry: { type: 'boolean' },
      active: { type: 'boolean' }, shift_weeks: { type: 'integer' },
      interval_weeks: nullable(id), start_date: nullable(dateOut), end_date: nullable(dateOut),
      effective: out({ start_date: nullable(dateOut), interval_weeks: nullable(id), end_date: nullable(dateOut), dates: { type: 'array', items: dateOut } }),
      date_overrides: { type: 'array', items: out({ date: dateOut, new_date: nullable(dateOut) }) },
    }),
  },
});

export const datesSchema = out({
  event_id: id, scenario_id: id,
  overrides: { type: 'array', items: out({ date: dateOut, new_date: nullable(dateOut) }) },
});

export const deletedSchema = out({ status: { type: 'string', const: 'deleted' }, id });
