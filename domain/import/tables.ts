/**
 * The staging tables of import (spec §4.7): their columns, which are required, how each value is read and which
 * columns form the natural key of the target. Plain data, shared by the api (schemas, docs), the staging SQL, the
 * validation and the run; nothing here touches the database or Temporal.
 */
import { refusedRouteType, ROUTE_TYPE_ALIASES } from '../supply/routeTypes';

export type ColumnType = 'text' | 'number' | 'integer' | 'date' | 'timestamp' | 'boolean' | 'json' | 'enum' | 'item' | 'site';

export interface ColumnDef {
  name: string;
  type: ColumnType;
  required?: boolean;
  description: string;
  /** numbers: smallest allowed value, and whether it is excluded */
  min?: number;
  exclusiveMin?: boolean;
  /** enum: allowed values (compared case-insensitively, stored as written here) */
  values?: string[];
  /** enum: further accepted names (upper case; compared case-insensitively) and the allowed value each is stored as */
  aliases?: Readonly<Record<string, string>>;
  /** enum: for a value not accepted, a reason that says what to use instead, when there is a better answer than the list */
  refusal?: (value: string) => string | null;
  /** value stored when the cell is empty (documentation; applied by the run) */
  default?: string;
  maxLength?: number;
}

export type TableName = 'items' | 'sites' | 'item_site' | 'routes' | 'calendars' | 'demand_history' | 'firm_orders' | 'supersession';

export interface TableDef {
  name: TableName;
  /** the master table(s) a run writes */
  target: string;
  description: string;
  columns: ColumnDef[];
  /** staging column names whose values identify one target row */
  key: string[];
  /** `attr_<name>` columns are collected into the item's or site's attributes */
  attrColumns?: boolean;
}

/** Dependency order: a run always applies tables in this order, so references made by later tables exist. */
export const TABLE_ORDER: TableName[] = ['items', 'sites', 'item_site', 'routes', 'calendars', 'demand_history', 'firm_orders', 'supersession'];

/**
 * Route types: REPLENISHMENT, RETURN and REPAIR (spec §2.4) and the sourcing types of supply planning. A route without
 * a type is a BUY route.
 */
export const ROUTE_TYPES = ['REPLENISHMENT', 'RETURN', 'REPAIR', 'BUY', 'BUILD', 'TRANSFER', 'BALANCING'];
export const DEFAULT_ROUTE_TYPE = 'BUY';
export const ORDER_TYPES = ['BUY', 'BUILD', 'REPAIR', 'TRANSFER', 'BALANCING', 'REPLENISH', 'RETURN'];
export const ERP_STATUSES = ['firm', 'released', 'in_transit', 'received'];

const attributes: ColumnDef = {
  name: 'attributes', type: 'json', default: '{}',
  description: 'JSON object of free attributes; `attr_<name>` columns are added to it (they win on equal names)',
};

export const TABLES: Record<TableName, TableDef> = {
  items: {
    name: 'items', target: 'items', key: ['xuid'], attrColumns: true,
    description: 'Items (parts, products) by their external code.',
    columns: [
      { name: 'xuid', type: 'text', required: true, maxLength: 200, description: 'external item code (natural key)' },
      { name: 'name', type: 'text', maxLength: 500, description: 'display name; a new item without one is named by its code', default: 'xuid' },
      { name: 'avg_unit_cost', type: 'number', min: 0, default: '0', description: 'average unit cost' },
      { name: 'unit_price', type: 'number', min: 0, default: '0', description: 'unit sales price' },
      { name: 'image_url', type: 'text', maxLength: 2000, description: 'picture of the item' },
      attributes,
    ],
  },
  sites: {
    name: 'sites', target: 'sites', key: ['xuid'], attrColumns: true,
    description: 'Sites (warehouses, plants, repair shops) by their external code.',
    columns: [
      { name: 'xuid', type: 'text', required: true, maxLength: 200, description: 'external site code (natural key)' },
      { name: 'name', type: 'text', maxLength: 500, description: 'display name; a new site without one is named by its code', default: 'xuid' },
      { name: 'site_type', type: 'text', maxLength: 100, description: 'free classification, e.g. DC, PLANT, STORE' },
      attributes,
    ],
  },
  item_site: {
    name: 'item_site', target: 'item_site', key: ['item_xuid', 'site_xuid'],
    description: 'Per item and site: costs, lead time, on-hand stock and ordering rules.',
    columns: [
      { name: 'item_xuid', type: 'item', required: true, description: 'item code; must exist in items (or in the items staging of the same run)' },
      { name: 'site_xuid', type: 'site', required: true, description: 'site code; must exist in sites' },
      { name: 'unit_cost', type: 'number', min: 0, description: 'unit cost at this site' },
      { name: 'lead_time_weeks', type: 'number', min: 0, description: 'replenishment lead time in weeks' },
      { name: 'on_hand', type: 'number', min: 0, default: '0', description: 'stock on hand' },
      { name: 'safety_stock', type: 'number', min: 0, default: '0', description: 'safety stock' },
      { name: 'moq', type: 'number', min: 0, default: '0', description: 'minimum order quantity' },
      { name: 'order_multiple', type: 'number', min: 0, default: '1', description: 'order quantities are multiples of this' },
    ],
  },
  routes: {
    name: 'routes', target: 'routes', key: ['item_xuid', 'from_site_xuid', 'to_site_xuid', 'route_type'],
    description: 'Supply routes between sites, for one item or (item empty) for all items.',
    columns: [
      { name: 'item_xuid', type: 'item', description: 'item code; empty means the route serves every item' },
      { name: 'from_site_xuid', type: 'site', required: true, description: 'source site code' },
      { name: 'to_site_xuid', type: 'site', required: true, description: 'destination site code' },
      {
        name: 'route_type', type: 'enum', values: ROUTE_TYPES, aliases: ROUTE_TYPE_ALIASES, refusal: refusedRouteType, default: DEFAULT_ROUTE_TYPE,
        description: 'one of the route types (any case); empty means BUY; MAKE is stored as BUILD; USE and ZONE_BALANCING are refused with the type to use',
      },
      { name: 'lead_time', type: 'number', min: 0, required: true, description: 'lead time in weeks' },
      { name: 'priority', type: 'integer', min: 0, default: '1', description: 'lower is preferred' },
    ],
  },
  calendars: {
    name: 'calendars', target: 'calendars, calendar_entries', key: ['calendar', 'ds'],
    description: 'Working calendars: one row per calendar and date with a capacity factor (0 = closed). Calendars are created by name.',
    columns: [
      { name: 'calendar', type: 'text', required: true, maxLength: 200, description: 'calendar name; created when new' },
      { name: 'ds', type: 'date', required: true, description: 'date (YYYY-MM-DD), usually the Monday of a week' },
      { name: 'factor', type: 'number', min: 0, required: true, description: 'capacity factor: 1 normal, 0 closed, 0.5 half' },
      { name: 'description', type: 'text', maxLength: 500, description: 'e.g. the holiday name' },
    ],
  },
  demand_history: {
    name: 'demand_history', target: 'demand_history', key: ['item_xuid', 'site_xuid', 'ds'],
    description: 'Observed demand per item, site and date (any date; the etl step makes weekly series).',
    columns: [
      { name: 'item_xuid', type: 'item', required: true, description: 'item code' },
      { name: 'site_xuid', type: 'site', required: true, description: 'site code' },
      { name: 'ds', type: 'date', required: true, description: 'date of the demand (YYYY-MM-DD)' },
      { name: 'qty', type: 'number', min: 0, required: true, description: 'quantity demanded; negative or non-numeric values are rejected' },
    ],
  },
  firm_orders: {
    name: 'firm_orders', target: 'firm_orders', key: ['external_id', 'source_system'],
    description: 'Firm supply orders committed in an external system (document 2 §2.1).',
    columns: [
      { name: 'external_id', type: 'text', required: true, maxLength: 200, description: 'order reference in the source system (natural key with source_system)' },
      { name: 'source_system', type: 'text', maxLength: 100, default: 'manual_upload', description: 'system the order comes from' },
      { name: 'item_xuid', type: 'item', required: true, description: 'item code' },
      { name: 'site_xuid', type: 'site', required: true, description: 'receiving site code' },
      { name: 'source_site_xuid', type: 'site', description: 'shipping site code, for transfers' },
      { name: 'order_type', type: 'enum', required: true, values: ORDER_TYPES, description: 'BUY, BUILD, REPAIR, TRANSFER, BALANCING, REPLENISH or RETURN (any case)' },
      { name: 'qty', type: 'number', min: 0, exclusiveMin: true, required: true, description: 'ordered quantity, > 0' },
      { name: 'release_dt', type: 'timestamp', required: true, description: 'release date or ISO 8601 timestamp' },
      { name: 'arrival_dt', type: 'timestamp', required: true, description: 'due (arrival) date or ISO 8601 timestamp' },
      { name: 'unit_cost', type: 'number', min: 0, description: 'unit cost' },
      { name: 'order_cost', type: 'number', min: 0, description: 'fixed order cost' },
      { name: 'total_cost', type: 'number', min: 0, description: 'total cost' },
      { name: 'erp_status', type: 'enum', values: ERP_STATUSES, default: 'firm', description: 'firm, released, in_transit or received' },
      { name: 'received_qty', type: 'number', min: 0, default: '0', description: 'quantity already received' },
      { name: 'expiry_date', type: 'date', description: 'date after which the order no longer counts' },
      attributes,
    ],
  },
  supersession: {
    name: 'supersession', target: 'supersession', key: ['from_item_xuid', 'to_item_xuid', 'site_xuid', 'effective_date'],
    description: 'Item replacement edges: from an old item to its successor (document 2 §2.4).',
    columns: [
      { name: 'from_item_xuid', type: 'item', required: true, description: 'replaced item code' },
      { name: 'to_item_xuid', type: 'item', required: true, description: 'successor item code; must differ from from_item_xuid' },
      { name: 'site_xuid', type: 'site', description: 'site code; empty means a global edge' },
      { name: 'effective_date', type: 'date', description: 'date the replacement takes effect; empty means immediately' },
      { name: 'demand_factor', type: 'number', min: 0, exclusiveMin: true, default: '1', description: 'new-item demand per old-item demand' },
      { name: 'stock_rollable', type: 'boolean', default: 'true', description: 'old stock may serve new demand (true/false, yes/no, 1/0)' },
      { name: 'notes', type: 'text', maxLength: 2000, description: 'free text' },
    ],
  },
};

/** Sorted known names, for messages. */
export const TABLE_NAMES: TableName[] = [...TABLE_ORDER];

export const isTableName = (name: string): name is TableName => Object.prototype.hasOwnProperty.call(TABLES, name);

export const ATTR_PREFIX = 'attr_';
