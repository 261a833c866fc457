import { queryAudit } from '../../../db/audit';
import { withTenant } from '../../../db/pool';
import { defineRoute, type RouteTable } from '../define';
import { errors, nullable, obj, out, skipParam } from '../schemas';

const date = { type: 'string', format: 'date' };

export const auditItemSchema = out(
  {
    id: { type: 'integer' },
    entity_type: { type: 'string' },
    entity_id: nullable({ type: 'string' }),
    action: { type: 'string' },
    old_value: {},
    new_value: {},
    changed_by: nullable({ type: 'string' }),
    user_id: nullable({ type: 'string' }),
    ip: nullable({ type: 'string' }),
    outcome: { type: 'string', enum: ['success', 'failure', 'denied'] },
    method: nullable({ type: 'string' }),
    path: nullable({ type: 'string' }),
    status_code: nullable({ type: 'integer' }),
    detail: nullable({ type: 'string' }),
    created_at: { type: 'string' },
  },
  ['id', 'entity_type', 'entity_id', 'action', 'changed_by', 'ip', 'outcome', 'created_at'],
);

export function registerAuditRoutes(table: RouteTable): void {
  defineRoute(table, {
    method: 'get', path: '/api/audit-log', tag: 'audit', permission: 'admin', needsCache: false,
    summary: 'Audit trail of every mutating request',
    description:
      'Fields after `ip`: user_id, outcome, method, path, status_code, detail (the error message of a failed or denied request), created_at. `changed_by` matches part of the e-mail; `date_to` includes the whole day. Admins only: the trail shows every user\'s changes.',
    query: obj({
      entity_type: { type: 'string', maxLength: 100 },
      entity_id: { type: 'string', maxLength: 100, pattern: '^[A-Za-z0-9:_-]+$', description: 'an integer id (or the string id of entities keyed by strings)' },
      action: { type: 'string', maxLength: 100 },
      changed_by: { type: 'string', maxLength: 200 },
      outcome: { type: 'string', enum: ['success', 'failure', 'denied'] },
      date_from: date,
      date_to: date,
      sort_by: { type: 'string', enum: ['id', 'entity_type', 'entity_id', 'action', 'changed_by', 'created_at'], default: 'created_at' },
      sort_dir: { type: 'string', enum: ['asc', 'desc'], default: 'desc' },
      limit: { type: 'integer', minimum: 1, maximum: 1000, default: 50 },
      offset: skipParam,
    }),
    responses: {
      200: { description: 'page of entries', schema: out({ items: { type: 'array', items: auditItemSchema }, total: { type: 'integer' }, limit: { type: 'integer' }, offset: { type: 'integer' } }) },
      ...errors(400, 401, 403),
    },
    handler: async (ctx, { query, user }) => {
      const { items, total } = await withTenant(ctx.deps.db, user.accountId, (tx) => queryAudit(tx, query));
      return { items, total, limit: query.limit, offset: query.offset };
    },
  });
}
