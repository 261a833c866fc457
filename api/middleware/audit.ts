import type Koa from 'koa';
import { insertAudit } from '../../db/audit';
import { isDatabaseUnavailable, withTenant, type Db } from '../../db/pool';
import { logger } from '../../lib/logger';
import type { AppContext } from '../context';
import { rethrowBodyError } from './body';
import { errorAnswer } from './errors';

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const SECRET_FIELD = /(password|secret|token|credential|api_key)/i;

/** Deeper than any value a route records; what lies below is replaced so the row stays writable. */
const MAX_AUDIT_DEPTH = 32;

/**
 * PostgreSQL refuses NUL in text and jsonb and lone surrogates in jsonb, so one such character in a refused body
 * would cost the request its audit row. They are written out as the escape a reader recognises (`\\u0000`).
 */
export function storableText(s: string): string {
  return s.replace(/\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * What a value becomes in a jsonb column: text PostgreSQL can store, nesting cut at MAX_AUDIT_DEPTH, and (unless
 * `secrets` is 'keep') passwords, tokens and keys replaced, since request bodies go into the audit trail.
 */
export function redact(value: unknown, secrets: 'redact' | 'keep' = 'redact', depth = 0): unknown {
  if (value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function') value = (value as { toJSON: () => unknown }).toJSON();
  if (typeof value === 'string') return storableText(value);
  // slonik's JSON encoding is strict: a NaN or Infinity a route noted (e.g. an unbounded result) would cost the row
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'function' || typeof value === 'symbol' || value === undefined) return null;
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_AUDIT_DEPTH) return '[nested too deeply]';
  if (Array.isArray(value)) return value.map((v) => redact(v, secrets, depth + 1));
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>).map(([k, v]) => [
      storableText(k),
      secrets === 'redact' && SECRET_FIELD.test(k) && k !== 'token_expiry_minutes' ? '***' : redact(v, secrets, depth + 1),
    ]),
  );
}

const text = (v: unknown): string | null => (v === null || v === undefined ? null : storableText(String(v)));

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
    if (!MUTATING.has(ctx.method) || !ctx.path.startsWith('/api/')) {
      rethrowBodyError(rawCtx);
      return next();
    }
    let error: unknown;
    try {
      rethrowBodyError(rawCtx);
      await next();
    } catch (err) {
      error = err;
    }
    const answer = error === undefined ? undefined : errorAnswer(error);
    const status = answer?.status ?? ctx.status;
    const user = ctx.state.user;
    const note = ctx.state.audit ?? {};
    const accountId = user?.accountId ?? note.accountId;
    if (accountId) {
      const derived = deriveEntity(ctx.path);
      const outcome = status < 400 ? 'success' : status === 401 || status === 403 ? 'denied' : 'failure';
      const detail = answer ? (answer.status >= 500 ? 'internal error' : answer.detail) : null;
      try {
        await withTenant(db, accountId, (tx) =>
          insertAudit(tx, {
            entity_type: text(note.entityType ?? derived.entityType)!,
            entity_id: note.entityId === undefined ? text(derived.entityId) : text(note.entityId),
            action: text(note.action ?? ACTIONS[ctx.method])!,
            old_value: redact(note.oldValue ?? null, 'keep'),
            new_value: redact(note.newValue !== undefined ? note.newValue : (ctx.request as any).body ?? null),
            changed_by: text(user?.email ?? note.changedBy ?? null),
            user_id: text(user?.id ?? null),
            ip: text(ctx.ip),
            outcome,
            method: ctx.method,
            path: text(ctx.path)!,
            status_code: status,
            detail: text(detail),
          }),
        );
      } catch (err) {
        // the request's own answer stands: a database that went away after the work was done is no reason for a 500
        if (isDatabaseUnavailable(err)) logger.warn({ err, method: ctx.method, path: ctx.path }, 'audit row not written: database unavailable');
        else logger.error({ err }, 'audit write failed');
      }
    }
    if (error) throw error;
  };
}
