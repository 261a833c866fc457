import type Koa from 'koa';
import { insertAudit } from '../../db/audit';
import { withTenant, type Db } from '../../db/pool';
import { logger } from '../../lib/logger';
import type { AppContext } from '../context';
import { HttpError } from '../errors';

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const SECRET_FIELD = /(password|secret|token|credential|api_key)/i;

/** Request bodies go into the audit trail without passwords, tokens or keys. */
export function redact(value: unknown, depth = 0): unknown {
  if (depth > 6 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, SECRET_FIELD.test(k) && k !== 'token_expiry_minutes' ? '***' : redact(v, depth + 1)]),
  );
}

const ACTIONS: Record<string, string> = { POST: 'create', PUT: 'update', PATCH: 'update', DELETE: 'delete' };

/** `/api/auth/users/7` → entity `auth.users`, id `7`: the default when a route does not say better. */
function deriveEntity(path: string): { entityType: string; entityId: string | null } {
  const parts = path.replace(/^\/api\//, '').split('/').filter(Boolean);
  const names = parts.filter((p) => !/^\d+$/.test(p) && !/^[0-9a-f-]{36}$/i.test(p));
  const ids = parts.filter((p) => /^\d+$/.test(p) || /^[0-9a-f-]{36}$/i.test(p));
  return { entityType: names.join('.') || 'root', entityId: ids[0] ?? null };
}

/**
 * Writes one audit row per mutating request, after the response is decided, in its own transaction: a failed
 * request rolls back its own changes but its audit row (outcome failure or denied) stays.
 */
export function auditMiddleware(db: Db): Koa.Middleware {
  return async (rawCtx, next) => {
    const ctx = rawCtx as unknown as AppContext;
    if (!MUTATING.has(ctx.method) || !ctx.path.startsWith('/api/')) return next();
    let error: unknown;
    try {
      await next();
    } catch (err) {
      error = err;
    }
    const status = error instanceof HttpError ? error.status : error ? Number((error as any).status ?? 500) : ctx.status;
    const user = ctx.state.user;
    const note = ctx.state.audit ?? {};
    const accountId = user?.accountId ?? note.accountId;
    if (accountId) {
      const derived = deriveEntity(ctx.path);
      const outcome = status < 400 ? 'success' : status === 401 || status === 403 ? 'denied' : 'failure';
      const detail = error instanceof HttpError ? error.detail : error ? 'internal error' : null;
      try {
        await withTenant(db, accountId, (tx) =>
          insertAudit(tx, {
            entity_type: note.entityType ?? derived.entityType,
            entity_id: note.entityId === undefined ? derived.entityId : note.entityId === null ? null : String(note.entityId),
            action: note.action ?? ACTIONS[ctx.method],
            old_value: note.oldValue ?? null,
            new_value: redact(note.newValue !== undefined ? note.newValue : (ctx.request as any).body ?? null),
            changed_by: user?.email ?? note.changedBy ?? null,
            user_id: user?.id ?? null,
            ip: ctx.ip,
            outcome,
            method: ctx.method,
            path: ctx.path,
            status_code: status,
            detail,
          }),
        );
      } catch (err) {
        logger.error({ err }, 'audit write failed');
      }
    }
    if (error) throw error;
  };
}
