import {
  ASSET_RECORD, ASSET_TYPE_RECORD, BOM_RECORD, bomEdges, bomTwin, COVERAGE_RECORD, coverageTwin, customerByCode, DEPLOYMENT_RECORD, exists,
  FAILURE_RATE_RECORD, FLEET_PLAN_RECORD, rateTwin, USAGE_RECORD, type RefTable,
} from '../../../db/causal';
import type { Tx } from '../../../db/pool';
import type { RecordRow } from '../../../db/records';
import { bomCycle } from '../../../domain/causal/bom';
import { isValidDate } from '../../../domain/import/validate';
import { badRequest, conflict } from '../../errors';
import type { RouteTable } from '../define';
import { defineResource } from '../resource';
import * as s from './schemas';

/*
 * The causal model's master data (core-service.md §4.10; docs/CAUSAL.md): asset types, assets, deployments, coverage,
 * bill of materials, fleet plan, usage and failure rates. Each is a plain record resource (api/routes/resource.ts) with
 * the checks a single table cannot make in its hooks: referenced rows exist, dates are real and ordered, natural keys
 * are free, the BOM stays a tree. Reading is open to every user; writing needs an admin role, as for all master data.
 * A check that fails answers 400 (409 for a taken natural key) naming the field, and nothing is written.
 */

export const TAG = 'causal';
const BASE = '/api/causal';

const REF_NOUN: Record<RefTable, string> = {
  items: 'item', sites: 'site', causal_asset_types: 'asset type', causal_assets: 'asset', causal_customers: 'customer',
  causal_usage_types: 'usage type', causal_scenarios: 'causal scenario',
};

/** 400 naming the field when a referenced row does not exist (null values are not checked). */
export async function checkRefs(tx: Tx, values: RecordRow, refs: Record<string, RefTable>): Promise<void> {
  for (const [field, table] of Object.entries(refs)) {
    const v = values[field];
    if (v === null || v === undefined) continue;
    if (!(await exists(tx, table, v as number))) throw badRequest(`body.${field}: ${REF_NOUN[table]} ${v} does not exist`);
  }
}

/** 400 naming the field for a date that is not one (2026-02-30), or an end before the start. */
export function checkDates(values: RecordRow, start: string, end: string): void {
  for (const f of [start, end]) {
    const v = values[f];
    if (typeof v === 'string' && !isValidDate(v)) throw badRequest(`body.${f}: '${v}' is not a valid date (YYYY-MM-DD)`);
  }
  const a = values[start];
  const b = values[end];
  if (typeof a === 'string' && typeof b === 'string' && b < a) throw badRequest(`body.${end}: ${b} is before ${start} ${a}`);
}

/**
 * The customer of a create body: `customer_id` (must exist) or `customer_code` (created when new); `required` says
 * whether one of them must be given. Writes the id into `values` and drops the code fields.
 */
export async function resolveCustomer(tx: Tx, values: RecordRow, required: boolean): Promise<void> {
  const code = values.customer_code as string | undefined;
  const name = values.customer_name as string | undefined;
  delete values.customer_code;
  delete values.customer_name;
  if (code !== undefined && values.customer_id !== undefined && values.customer_id !== null) throw badRequest('body.customer_code: give customer_id or customer_code, not both');
  if (code !== undefined) {
    values.customer_id = await customerByCode(tx, code, name);
    return;
  }
  if (values.customer_id === undefined || values.customer_id === null) {
    if (required) throw badRequest('body.customer_id: required (or customer_code)');
    return;
  }
  await checkRefs(tx, values, { customer_id: 'causal_customers' });
}

const list = (what: string) => `${what} Filtered and paged with \`skip\` and \`limit\`; the total count of matching rows is in the \`X-Total-Count\` header.`;
const idFilter = (description: string) => ({ schema: s.id(description) });

export function registerCausalMasterDataRoutes(table: RouteTable): void {
  const permissions = { read: 'user', write: 'admin' } as const;

  defineResource(table, {
    path: `${BASE}/asset-types`, tag: TAG, noun: 'Asset type', entityType: 'causal_asset_type', record: ASSET_TYPE_RECORD, permissions,
    operations: ['list', 'create'],
    schemas: { row: s.assetTypeRow, create: s.assetTypeCreate },
    filters: { search: { schema: { type: 'string', maxLength: 200, description: 'text in the code or name' }, column: 'name', op: 'ilike' } },
    sortable: ['id', 'code', 'name', 'created_at'],
    descriptions: {
      list: list('Kinds of asset whose use causes part demand (a truck model, an aircraft type), ordered by code.'),
      create: 'A new asset type. 409 when the code is taken (case-insensitive). The spec lists no PUT or DELETE for asset types: a type stays once its assets, BOM and rates refer to it. Admins only.',
    },
    hooks: {
      prepare: (b) => {
        const v = { ...b, code: String(b.code).trim(), name: String(b.name).trim() };
        for (const f of ['code', 'name'] as const) if (!v[f]) throw badRequest(`body.${f}: must not be blank`);
        return v;
      },
    },
  });

  defineResource(table, {
    path: `${BASE}/assets`, tag: TAG, noun: 'Asset', entityType: 'causal_asset', record: ASSET_RECORD, permissions,
    operations: ['list', 'create', 'update', 'delete'],
    schemas: { row: s.assetRow, create: s.assetCreate, update: s.assetUpdate },
    filters: {
      asset_type_id: idFilter('only assets of this type'),
      status: { schema: { type: 'string', enum: ['active', 'inactive', 'retired'] } },
      search: { schema: { type: 'string', maxLength: 200, description: 'text in the serial number' }, column: 'serial_number', op: 'ilike' },
    },
    sortable: ['id', 'serial_number', 'asset_type_id', 'status', 'in_service_date'],
    descriptions: {
      list: list('Individual assets (by serial number) of the fleet.'),
      create: 'An asset of an existing type; 400 naming the field when the type does not exist, 409 when the serial number is taken. Retired assets are left out of fleet counts. Admins only.',
      update: 'Partial: only the fields sent change; the same checks as on create.',
      delete: 'Deletes the asset and its deployments.',
    },
    hooks: { beforeWrite: async ({ tx, values }) => checkRefs(tx, values!, { asset_type_id: 'causal_asset_types' }) },
  });

  defineResource(table, {
    path: `${BASE}/asset-deployments`, tag: TAG, noun: 'Asset deployment', entityType: 'causal_asset_deployment', record: DEPLOYMENT_RECORD, permissions,
    operations: ['list', 'create', 'update', 'delete'],
    schemas: { row: s.deploymentRow, create: s.deploymentCreate, update: s.deploymentUpdate },
    filters: {
      asset_id: idFilter('only this asset'), customer_id: idFilter('only this customer'), site_id: idFilter('only this site'),
      active_on: { schema: s.date('deployments that started on or before this date'), column: 'start_date', op: 'lte' },
    },
    sortable: ['id', 'start_date', 'end_date', 'asset_id', 'customer_id', 'site_id'],
    descriptions: {
      list: list('Where each asset works: asset × customer × site over time.'),
      create: 'An asset at a customer\'s site from start_date to end_date (null: still there). The customer is `customer_id`, or `customer_code` (with an optional `customer_name`), created when new. A deployment counts in asset_qty (and, without a fleet plan, in fleet_qty) for every week whose Monday it covers. 400 naming the field for an asset, customer or site that does not exist or an end before the start. Admins only.',
      update: 'Partial (customer by customer_id only); the same checks as on create.',
      delete: 'Deletes the deployment.',
    },
    hooks: {
      beforeWrite: async ({ tx, values, operation }) => {
        if (operation === 'create') await resolveCustomer(tx, values!, true);
        checkDates(values!, 'start_date', 'end_date');
        await checkRefs(tx, values!, { asset_id: 'causal_assets', customer_id: 'causal_customers', site_id: 'sites' });
      },
    },
  });

  defineResource(table, {
    path: `${BASE}/coverage`, tag: TAG, noun: 'Coverage row', entityType: 'causal_coverage', record: COVERAGE_RECORD, permissions,
    operations: ['list', 'create', 'delete'],
    schemas: { row: s.coverageRow, create: s.coverageCreate },
    filters: { asset_type_id: idFilter('only this asset type'), customer_id: idFilter('only this customer'), site_id: idFilter('only this site') },
    sortable: ['id', 'asset_type_id', 'customer_id', 'site_id', 'coverage_pct'],
    descriptions: {
      list: list('Which sites serve which customer\'s fleet of an asset type, and with what share.'),
      create: 'Document 2 §4.6 rule 3: the shares are read per customer (rows with customer null are the fallback of customers with none of their own) and normalised so each customer\'s sites sum to 1; a part\'s demand at a site is the customer\'s demand times that site\'s share. An asset type with no coverage at all causes no site demand (rule 6). The customer is `customer_id`, `customer_code` (created when new) or neither (the global fallback). 409 when (asset type, customer, site) already has a row: delete it first (the spec lists no PUT). Admins only.',
      delete: 'Deletes the coverage row.',
    },
    hooks: {
      beforeWrite: async ({ tx, values }) => {
        await resolveCustomer(tx, values!, false);
        await checkRefs(tx, values!, { asset_type_id: 'causal_asset_types', site_id: 'sites' });
        const twin = await coverageTwin(tx, values as { asset_type_id: number; customer_id: number | null; site_id: number });
        if (twin !== null) throw conflict(`body.site_id: coverage row ${twin} already covers this asset type, customer and site`);
      },
    },
  });

  defineResource(table, {
    path: `${BASE}/bom`, tag: TAG, noun: 'BOM line', entityType: 'causal_bom', record: BOM_RECORD, permissions,
    operations: ['list', 'create', 'update', 'delete'],
    schemas: { row: s.bomRow, create: s.bomCreate, update: s.bomUpdate },
    filters: {
      asset_type_id: idFilter('level-1 lines of this asset type'), parent_item_id: idFilter('sub-parts of this part'), item_id: idFilter('lines of this part'),
    },
    sortable: ['id', 'asset_type_id', 'parent_item_id', 'item_id', 'qty_per_asset'],
    descriptions: {
      list: list('Bill of materials lines: an asset type\'s parts (asset_type_id set) and parts\' sub-parts (parent_item_id set). GET /api/causal/bom/explosion walks the levels.'),
      create: 'Exactly one of asset_type_id (a part of the asset type) and parent_item_id (a sub-part of a part) is set; 400 naming the field otherwise, for a reference that does not exist, or for a sub-part line that would close a cycle (the parts along it are named). 409 when the same (asset type or parent, part) line exists: update it instead. Admins only.',
      update: 'Partial: only the fields sent change; the same checks as on create.',
      delete: 'Deletes the line; a sub-tree under it stays (it is keyed by the part, which other lines may hold).',
    },
    hooks: {
      beforeWrite: async ({ tx, values, old }) => {
        const v = values as { asset_type_id: number | null; parent_item_id: number | null; item_id: number };
        if ((v.asset_type_id ?? null) === null && (v.parent_item_id ?? null) === null) throw badRequest('body.asset_type_id: give asset_type_id (a level-1 part) or parent_item_id (a sub-part)');
        if ((v.asset_type_id ?? null) !== null && (v.parent_item_id ?? null) !== null) throw badRequest('body.parent_item_id: give asset_type_id or parent_item_id, not both');
        await checkRefs(tx, values!, { asset_type_id: 'causal_asset_types', parent_item_id: 'items', item_id: 'items' });
        const id = (old?.id as number | undefined) ?? 0;
        const twin = await bomTwin(tx, v, id);
        if (twin !== null) throw conflict(`body.item_id: BOM line ${twin} already holds this part there; update it instead`);
        if (v.parent_item_id !== null && v.parent_item_id !== undefined) {
          const cycle = bomCycle((await bomEdges(tx)).filter((e) => e.id !== id), v.parent_item_id, v.item_id);
          if (cycle) throw badRequest(`body.item_id: the line would close a cycle of parts ${cycle.join(' → ')}`);
        }
      },
    },
  });

  defineResource(table, {
    path: `${BASE}/fleet-plan`, tag: TAG, noun: 'Fleet plan row', entityType: 'causal_fleet_plan', record: FLEET_PLAN_RECORD, permissions,
    operations: ['list', 'create', 'update', 'delete'],
    schemas: { row: s.fleetPlanRow, create: s.fleetPlanCreate, update: s.fleetPlanUpdate },
    filters: { asset_type_id: idFilter('only this asset type'), customer_id: idFilter('only this customer') },
    sortable: ['id', 'asset_type_id', 'customer_id', 'start_date', 'quantity'],
    descriptions: {
      list: list('Future deployments: the planned fleet of an asset type at a customer over time.'),
      create: 'The planned number of assets of a type at a customer from start_date to end_date (null: open). In a week covered by plan rows their quantities are summed and replace the deployed count as fleet_qty (per_asset scenarios multiply demand by it). The customer is `customer_id` or `customer_code` (created when new). 400 naming the field for a missing reference or an end before the start. Bulk: POST /api/causal/fleet-plan/import. Admins only.',
      update: 'Partial (customer by customer_id only); the same checks as on create.',
      delete: 'Deletes the plan row.',
    },
    hooks: {
      beforeWrite: async ({ tx, values, operation }) => {
        if (operation === 'create') await resolveCustomer(tx, values!, true);
        checkDates(values!, 'start_date', 'end_date');
        await checkRefs(tx, values!, { asset_type_id: 'causal_asset_types', customer_id: 'causal_customers' });
      },
    },
  });

  defineResource(table, {
    path: `${BASE}/asset-usage`, tag: TAG, noun: 'Usage row', entityType: 'causal_asset_usage', record: USAGE_RECORD, permissions,
    operations: ['list', 'create', 'update', 'delete'],
    schemas: { row: s.usageRow, create: s.usageCreate, update: s.usageUpdate },
    filters: {
      asset_type_id: idFilter('only this asset type'), customer_id: idFilter('only this customer'), usage_type_id: idFilter('only this usage type'),
      date_from: { schema: s.date('periods ending on or after this date'), column: 'period_end', op: 'gte' },
      date_to: { schema: s.date('periods starting on or before this date'), column: 'period_start', op: 'lte' },
    },
    sortable: ['id', 'period_start', 'period_end', 'total_usage', 'asset_type_id', 'customer_id'],
    descriptions: {
      list: list('Recorded usage (hours, cycles, km) per asset type, customer and period.'),
      create: 'Usage of a customer\'s fleet of an asset type over a period (both ends inclusive). Document 2 §4.6 rule 2: the engine reads it as weekly usage = total × 7 / days of the period; a week uses the period containing its Monday, else the last period before it (the run rate carried forward). The customer is `customer_id` or `customer_code` (created when new). 400 naming the field for a missing reference or an end before the start. Admins only.',
      update: 'Partial (customer by customer_id only); the same checks as on create.',
      delete: 'Deletes the usage row.',
    },
    hooks: {
      beforeWrite: async ({ tx, values, operation }) => {
        if (operation === 'create') await resolveCustomer(tx, values!, true);
        checkDates(values!, 'period_start', 'period_end');
        await checkRefs(tx, values!, { asset_type_id: 'causal_asset_types', customer_id: 'causal_customers', usage_type_id: 'causal_usage_types' });
      },
    },
  });

  defineResource(table, {
    path: `${BASE}/failure-rate`, tag: TAG, noun: 'Failure rate', entityType: 'causal_failure_rate', record: FAILURE_RATE_RECORD, permissions,
    operations: ['list', 'create', 'update', 'delete'],
    schemas: { row: s.rateRow, create: s.rateCreate, update: s.rateUpdate },
    filters: {
      asset_type_id: idFilter('only this asset type'), item_id: idFilter('only this part'), usage_type_id: idFilter('only this usage type'),
      source: { schema: { type: 'string', enum: ['manual', 'fit'] } },
    },
    sortable: ['id', 'asset_type_id', 'item_id', 'rate', 'updated_at'],
    descriptions: {
      list: list('Failure rates: parts demanded per installed part per unit of usage, per asset type, part and usage type.'),
      create: 'A manual rate (source manual). 409 when the (asset type, part, usage type) already has one: update it, or refit it with POST /api/causal/failure-rate/fit. 400 naming the field for a missing reference or ci_lower above ci_upper. Admins only.',
      update: 'Partial; an update by hand makes the rate manual again.',
      delete: 'Deletes the rate; the part no longer gets causal demand from that asset type and usage.',
    },
    hooks: {
      prepare: (b) => ({ ...b, source: 'manual' }),
      beforeWrite: async ({ tx, values, old }) => {
        const v = values as { asset_type_id: number; item_id: number; usage_type_id: number; ci_lower: number | null; ci_upper: number | null };
        await checkRefs(tx, values!, { asset_type_id: 'causal_asset_types', item_id: 'items', usage_type_id: 'causal_usage_types' });
        if (v.ci_lower !== null && v.ci_upper !== null && v.ci_lower !== undefined && v.ci_upper !== undefined && v.ci_lower > v.ci_upper) {
          throw badRequest(`body.ci_lower: ${v.ci_lower} is above ci_upper ${v.ci_upper}`);
        }
        const twin = await rateTwin(tx, v, (old?.id as number | undefined) ?? 0);
        if (twin !== null) throw conflict(`body.item_id: failure rate ${twin} already holds this asset type, part and usage type; update it instead`);
      },
    },
  });
}
