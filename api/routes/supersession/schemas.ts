import { PLANNING_DATE_SOURCES } from '../../../db/planningDate';
import { EDGE_SORTS } from '../../../db/supersession';
import { DEFAULT_DEMAND_FACTOR, DEFAULT_STOCK_ROLLABLE, NOTES_MAX_LENGTH } from '../../../domain/supersession/edges';
import { int4, nullable, obj, out, skipParam } from '../schemas';
import type { JsonSchema } from '../validation';

const str = { type: 'string' };

/** Where the spec is silent on a date inside a week (docs/SUPERSESSION.md "Dates within a week"). */
const EFFECTIVE_DATE_NOTE = 'Rule 1 compares the date as it is with the reference date (GET /api/supersession/active, the supply step: active from that very day, a Wednesday date is not active on its Monday); only the forecast step, which moves whole weeks, starts at the Monday of the week holding it, that whole week included.';
const date = (description: string): JsonSchema => ({ type: 'string', format: 'date', description, examples: ['2026-03-02'] });

/** The edge fields of document 2 §2.4; `withDefaults` for create, where a field left out takes its default. */
function edgeFields(withDefaults: boolean): Record<string, JsonSchema> {
  const dflt = (value: unknown) => (withDefaults ? { default: value } : {});
  return {
    from_item_id: int4(1, { description: 'the replaced item; must exist' }),
    to_item_id: int4(1, { description: 'its successor; must exist and differ from from_item_id' }),
    site_id: { ...nullable(int4(1, { description: 'the site the edge acts at; must exist' })), ...dflt(null), description: 'null (the default): a global edge, acting at every site' },
    effective_date: { ...nullable(date('YYYY-MM-DD')), ...dflt(null), description: `the date the replacement takes effect (YYYY-MM-DD); null (the default): immediately. ${EFFECTIVE_DATE_NOTE}` },
    demand_factor: { type: 'number', exclusiveMinimum: 0, ...dflt(DEFAULT_DEMAND_FACTOR), description: `successor demand per unit of the replaced item's demand, > 0; default ${DEFAULT_DEMAND_FACTOR}` },
    stock_rollable: { type: 'boolean', ...dflt(DEFAULT_STOCK_ROLLABLE), description: `the replaced item's stock may serve the successor's demand; default ${DEFAULT_STOCK_ROLLABLE}` },
    notes: { ...nullable({ type: 'string', maxLength: NOTES_MAX_LENGTH }), ...dflt(null), description: `free text, at most ${NOTES_MAX_LENGTH} characters` },
  };
}

export const createBody = obj(edgeFields(true), ['from_item_id', 'to_item_id']);
export const updateBody = obj(edgeFields(false), [], { minProperties: 1 });

export const edgeSchema: JsonSchema = out({
  id: { type: 'integer' },
  from_item_id: { type: 'integer' }, from_item_xuid: str, from_item_name: str,
  to_item_id: { type: 'integer' }, to_item_xuid: str, to_item_name: str,
  site_id: nullable({ type: 'integer' }), site_xuid: nullable(str), site_name: nullable(str),
  effective_date: { ...nullable({ type: 'string', format: 'date' }), description: `null: in effect immediately. ${EFFECTIVE_DATE_NOTE}` },
  demand_factor: { type: 'number' },
  stock_rollable: { type: 'boolean' },
  notes: nullable(str),
  created_at: { type: 'string', format: 'date-time' },
  updated_at: { type: 'string', format: 'date-time' },
});

const AS_OF_SOURCES = ['query', ...PLANNING_DATE_SOURCES];
const pipelineParam = int4(1, { description: 'without `as_of`, take the planning today of this pipeline (the date its supply step used for rule 1); default the tenant\'s' });

export const listQuery = obj({
  skip: skipParam,
  limit: { type: 'integer', minimum: 1, maximum: 1000, default: 200, description: 'rows to return (at most 1000)' },
  item_id: int4(1, { description: 'edges with this item at either end' }),
  from_item_id: int4(1, { description: 'edges replacing this item' }),
  to_item_id: int4(1, { description: 'edges whose successor is this item' }),
  site_id: int4(1, { description: 'edges of this site (global edges have site_id null; see `global`)' }),
  global: { type: 'boolean', description: 'true: only global edges; false: only site-scoped ones' },
  active: { type: 'boolean', description: 'true: only the edges active on `as_of` (effective_date null or not later); false: only those not active yet' },
  as_of: date('reference date of `active` (YYYY-MM-DD); default the planning today. Given alone it means active=true'),
  pipeline_id: pipelineParam,
  search: { type: 'string', maxLength: 200, description: 'case-insensitive text in the code or name of either item or the site, or in the notes' },
  sort: { type: 'string', enum: [...EDGE_SORTS], default: 'id', description: 'sort column; ties are broken by id' },
  order: { type: 'string', enum: ['asc', 'desc'], default: 'asc' },
});

export const activeQuery = obj({
  as_of: date('the reference date (YYYY-MM-DD); default the planning today: of `pipeline_id` when given, else the tenant\'s stored planning date, else today (UTC)'),
  pipeline_id: pipelineParam,
});

export const chainQuery = obj({
  site_id: int4(1, { description: 'read the chain at this site: global edges and this site\'s (default: every edge)' }),
  as_of: date('only the edges active on this date (default: every edge, future ones included)'),
});

export const itemParam = obj({ item_id: int4(1) }, ['item_id']);

export const activeSchema: JsonSchema = out({
  as_of: { type: 'string', format: 'date', description: 'the reference date used' },
  as_of_source: { type: 'string', enum: AS_OF_SOURCES, description: 'query: as given; otherwise where the planning today came from: override (PLANNING_DATE_OVERRIDE), pipeline (stored for pipeline_id), pipeline_setting (its settings.planning_date), global (the tenant\'s, pipeline id −1), forecast (its first forecast week), history (the Monday after the last history week), today (the UTC date: nothing else says)' },
  total: { type: 'integer' },
  edges: { type: 'array', items: edgeSchema },
});

const reached = out({
  item_id: { type: 'integer' }, item_xuid: str, item_name: str,
  depth: { type: 'integer', minimum: 1, description: 'edges between the item and this one along the shortest way' },
});

export const chainSchema: JsonSchema = out({
  item_id: { type: 'integer' }, item_xuid: str, item_name: str,
  role: { type: 'string', enum: ['replaced', 'middle', 'top'], description: 'replaced: outgoing edges and no incoming; middle: both; top: no outgoing edge (also an item with no edge at all)' },
  in_chain: { type: 'boolean', description: 'false when the item takes part in no edge (its role is then top)' },
  site_id: nullable({ type: 'integer' }),
  as_of: nullable({ type: 'string', format: 'date' }),
  upstream: { type: 'array', items: reached, description: 'predecessors over every generation, nearest first: the items whose demand moves onto this one' },
  downstream: { type: 'array', items: reached, description: 'successors over every generation, nearest first: where this item\'s demand moves' },
  edges: { type: 'array', items: edgeSchema, description: 'the edges walked, by id' },
});

export const deletedSchema: JsonSchema = out({ status: { type: 'string', const: 'deleted' }, id: { type: 'integer' } });
