import { withTenant, type Tx } from '../../db/pool';
import {
  clearExclusiveFlag, deleteRecord, findClash, getRecord, insertRecord, listRecords, lockRecords, updateRecord,
  type Filter, type FilterOp, type RecordRow, type RecordTable,
} from '../../db/records';
import type { AppContext, AuthUser } from '../context';
import { conflict, notFound } from '../errors';
import { defineRoute, type Permission, type ResponseSpec, type RouteTable } from './define';
import { onItem, withLinks } from './links';
import { errors, obj, out } from './schemas';
import type { JsonSchema } from './validation';

/**
 * One declaration per plain record resource (a table the planner edits as rows): list with filters, sorting and
 * paging, get, create, update, delete, each validated, permission-checked, audited and documented by defineRoute.
 * Behaviour beyond rows (cycle checks, referenced ids, cascades) goes in the hooks, which run inside the same
 * transaction as the write, after the table lock: a hook that throws leaves nothing changed.
 */
export type Operation = 'list' | 'get' | 'create' | 'update' | 'delete';

export interface FilterDecl {
  /** query parameter schema (documented in /openapi.json) */
  schema: JsonSchema;
  /** declared column; default the parameter's own name */
  column?: string;
  op?: FilterOp;
}

export interface HookInput {
  tx: Tx;
  user: AuthUser;
  /** the stored row before the write (update, delete) */
  old?: RecordRow;
  /** the values about to be written (create: the full body with defaults; update: the merged row) */
  values?: RecordRow;
}

export interface ResourceSpec {
  /** collection path, e.g. `/api/routes`; the item path is `${path}/{${idParam}}` */
  path: string;
  idParam?: string;
  tag: string;
  /** human noun for messages: "Route 12 not found" */
  noun: string;
  /** audit entity type */
  entityType: string;
  record: RecordTable;
  /** the API view of a row (output schema `row`); default the row's declared columns */
  view?: (row: RecordRow) => Record<string, unknown>;
  schemas: { row: JsonSchema; create?: JsonSchema; update?: JsonSchema };
  filters?: Record<string, FilterDecl>;
  /** columns a client may sort by (query `sort`, `order`) */
  sortable?: string[];
  permissions?: { read?: Permission; write?: Permission };
  operations?: Operation[];
  descriptions?: Partial<Record<Operation, string>>;
  hooks?: {
    /** body → the values to store (trim names, apply defaults the schema cannot express) */
    prepare?: (body: RecordRow, input: { user: AuthUser; old?: RecordRow }) => RecordRow;
    beforeWrite?: (h: HookInput & { operation: 'create' | 'update' }) => Promise<void>;
    beforeDelete?: (h: HookInput & { query: Record<string, unknown> }) => Promise<void>;
  };
  /** extra query parameters of DELETE (e.g. force), passed to beforeDelete */
  deleteQuery?: JsonSchema;
}

const PAGE = {
  skip: { type: 'integer', minimum: 0, maximum: 2147483647, default: 0, description: 'rows to skip' },
  limit: { type: 'integer', minimum: 1, maximum: 1000, default: 200, description: 'rows to return (at most 1000)' },
};

const setAudit = (ctx: AppContext, note: { entityId?: number | null; oldValue?: unknown; newValue?: unknown }) => {
  ctx.state.audit = { ...ctx.state.audit, ...note };
};

/** Declares the routes of one plain record resource. */
export function defineResource(table: RouteTable, spec: ResourceSpec): void {
  const idParam = spec.idParam ?? 'id';
  const itemPath = `${spec.path}/{${idParam}}`;
  const ops = new Set<Operation>(spec.operations ?? ['list', 'get', 'create', 'update', 'delete']);
  const read = spec.permissions?.read ?? 'user';
  const write = spec.permissions?.write ?? 'admin';
  const t = spec.record;
  const view = spec.view ?? ((r: RecordRow) => r);
  const params: JsonSchema = obj({ [idParam]: { type: 'integer', minimum: 1, maximum: 2147483647 } }, [idParam]);
  const { tag, noun, entityType } = spec;
  const writeErrors = write === 'user' ? errors(400, 401, 404, 409) : errors(400, 401, 403, 404, 409);
  // The created row's id, and the first listed one's, lead to every operation on the row: a client (or a stateful
  // fuzz) reaches them with ids that exist instead of guessed ones.
  const keyField = (spec.schemas.row.properties as Record<string, unknown> | undefined)?.[t.key] ? t.key : 'id';
  const itemLinks = (expression: string) => (response: ResponseSpec) => withLinks(table, response, onItem(itemPath, idParam, expression));

  const rowOr404 = async (tx: Tx, id: number) => {
    const row = await getRecord(tx, t, id);
    if (!row) throw notFound(`${noun} ${id} not found`);
    return row;
  };

  const checkUnique = async (tx: Tx, values: RecordRow, exceptId?: number) => {
    const col = t.uniqueIgnoringCase;
    if (!col || typeof values[col] !== 'string') return;
    const clash = await findClash(tx, t, values[col] as string, exceptId);
    if (clash) throw conflict(`body.${col}: ${noun.toLowerCase()} ${clash[t.key]} is already named '${clash[col]}'`);
  };

  if (ops.has('list')) {
    const filters = spec.filters ?? {};
    const sortable = spec.sortable ?? [];
    const query = obj({
      ...PAGE,
      ...Object.fromEntries(Object.entries(filters).map(([k, f]) => [k, f.schema])),
      ...(sortable.length ? {
        sort: { type: 'string', enum: sortable, description: `sort column (default ${(t.orderBy ?? [t.key]).join(', ')})` },
        order: { type: 'string', enum: ['asc', 'desc'], default: 'asc' },
      } : {}),
    });
    defineRoute(table, {
      method: 'get', path: spec.path, tag, permission: read,
      summary: `List ${tag}`,
      description: spec.descriptions?.list ?? `Filtered and paged; the total count of matching rows is in the \`X-Total-Count\` header.`,
      query,
      responses: { 200: itemLinks(`$response.body#/0/${keyField}`)({ description: tag, schema: { type: 'array', items: spec.schemas.row } }), ...errors(400, 401) },
      handler: async (ctx, { query: q, user }) => {
        const where: Filter[] = Object.entries(filters)
          .filter(([k]) => q[k] !== undefined)
          .map(([k, f]) => ({ column: f.column ?? k, op: f.op ?? 'eq', value: q[k] }));
        const { rows, total } = await withTenant(ctx.deps.db, user.accountId, (tx) =>
          listRecords(tx, t, where, { skip: q.skip, limit: q.limit, sort: q.sort, order: q.order }));
        ctx.set('X-Total-Count', String(total));
        return rows.map(view);
      },
    });
  }

  if (ops.has('get')) {
    defineRoute(table, {
      method: 'get', path: itemPath, tag, permission: read,
      summary: `One ${noun.toLowerCase()}`,
      description: spec.descriptions?.get,
      params,
      responses: { 200: { description: noun, schema: spec.schemas.row }, ...errors(400, 401, 404) },
      handler: async (ctx, { params: p, user }) => view(await withTenant(ctx.deps.db, user.accountId, (tx) => rowOr404(tx, p[idParam]))),
    });
  }

  if (ops.has('create')) {
    defineRoute(table, {
      method: 'post', path: spec.path, tag, permission: write, status: 201,
      summary: `Create a ${noun.toLowerCase()}`,
      description: spec.descriptions?.create,
      body: spec.schemas.create, audit: { entityType, action: 'create' },
      responses: { 201: itemLinks(`$response.body#/${keyField}`)({ description: `created ${noun.toLowerCase()}`, schema: spec.schemas.row }), ...writeErrors },
      handler: async (ctx, { body, user }) => {
        const values = spec.hooks?.prepare ? spec.hooks.prepare(body, { user }) : body;
        const row = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
          await lockRecords(tx, t);
          await checkUnique(tx, values);
          await spec.hooks?.beforeWrite?.({ tx, user, values, operation: 'create' });
          if (t.exclusiveFlag && values[t.exclusiveFlag]) await clearExclusiveFlag(tx, t);
          return insertRecord(tx, t, values);
        });
        const v = view(row);
        setAudit(ctx, { entityId: row[t.key] as number, newValue: v });
        return v;
      },
    });
  }

  if (ops.has('update')) {
    defineRoute(table, {
      method: 'put', path: itemPath, tag, permission: write,
      summary: `Update a ${noun.toLowerCase()}`,
      description: spec.descriptions?.update ?? 'Partial: only the fields sent change.',
      params, body: spec.schemas.update, audit: { entityType, action: 'update' },
      responses: { 200: { description: `updated ${noun.toLowerCase()}`, schema: spec.schemas.row }, ...writeErrors },
      handler: async (ctx, { params: p, body, user }) => {
        const id = p[idParam];
        const { old, row } = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
          await lockRecords(tx, t);
          const old = await rowOr404(tx, id);
          const changes = spec.hooks?.prepare ? spec.hooks.prepare(body, { user, old }) : body;
          await checkUnique(tx, changes, id);
          await spec.hooks?.beforeWrite?.({ tx, user, old, values: { ...old, ...changes }, operation: 'update' });
          if (t.exclusiveFlag && changes[t.exclusiveFlag]) await clearExclusiveFlag(tx, t, id);
          return { old, row: (await updateRecord(tx, t, id, changes))! };
        });
        const v = view(row);
        setAudit(ctx, { entityId: id, oldValue: view(old), newValue: v });
        return v;
      },
    });
  }

  if (ops.has('delete')) {
    defineRoute(table, {
      method: 'delete', path: itemPath, tag, permission: write,
      summary: `Delete a ${noun.toLowerCase()}`,
      description: spec.descriptions?.delete,
      params, query: spec.deleteQuery, audit: { entityType, action: 'delete' },
      responses: {
        200: { description: 'deleted', schema: out({ status: { type: 'string', const: 'deleted' }, id: { type: 'integer' } }) },
        ...writeErrors,
      },
      handler: async (ctx, { params: p, query, user }) => {
        const id = p[idParam];
        const old = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
          await lockRecords(tx, t);
          const old = await rowOr404(tx, id);
          await spec.hooks?.beforeDelete?.({ tx, user, old, query });
          await deleteRecord(tx, t, id);
          return old;
        });
        setAudit(ctx, { entityId: id, oldValue: view(old), newValue: { deleted: true } });
        return { status: 'deleted', id };
      },
    });
  }
}
