import { listMasterParameters, listTenantParameters, setMasterParameter, setTenantParameter, syncMasterDefaults, syncTenantDefaults } from '../../../db/parameters';
import { withTenant } from '../../../db/pool';
import { LOG_LEVELS, setSpecLevel, specLevel, type SpecLogLevel } from '../../../lib/logger';
import { isSecretKey, MASTER_SECTIONS, TENANT_SECTIONS, type Section } from '../../../domain/parameters/catalogue';
import { cacheSizes } from '../../cache';
import type { AuthUser } from '../../context';
import { badRequest, forbidden } from '../../errors';
import { defineRoute, type RouteTable } from '../define';
import { errors, obj, out } from '../schemas';
import { compile, describeError, type JsonSchema } from '../validation';

const VERSION = '0.1.0';

function redactSection(section: Section | undefined, values: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(values).map(([k, v]) => [k, isSecretKey(section, k) ? (v === '' ? '' : '********') : v]));
}

function group(rows: Array<{ parameter_type: string; key: string; value: unknown }>): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const r of rows) (out[r.parameter_type] ??= {})[r.key] = r.value;
  return out;
}

interface Update {
  path: string;
  value: unknown;
}

/** Checks one dotted path against the catalogue; a bad path or value is a 400 that names it. */
function checkUpdate(u: Update, index: number, user: AuthUser): { scope: 'master' | 'tenant'; type: string; key: string } {
  const where = index < 0 ? 'body' : `body.updates[${index}]`;
  const parts = u.path.split('.');
  if (parts.length !== 2) throw badRequest(`${where}.path '${u.path}' must be '<section>.<key>'`);
  const [type, key] = parts;
  const scope = MASTER_SECTIONS[type] ? 'master' : TENANT_SECTIONS[type] ? 'tenant' : undefined;
  if (!scope) throw badRequest(`${where}.path '${u.path}': unknown section '${type}' (known: ${[...Object.keys(MASTER_SECTIONS), ...Object.keys(TENANT_SECTIONS)].join(', ')})`);
  const section = (scope === 'master' ? MASTER_SECTIONS : TENANT_SECTIONS)[type];
  const def = section[key];
  if (!def) throw badRequest(`${where}.path '${u.path}': unknown key '${key}' (known in ${type}: ${Object.keys(section).join(', ')})`);
  if (scope === 'master' && !user.isSuperadmin) throw forbidden(`${where}.path '${u.path}': platform-wide settings can only be changed by a superadmin`);
  const validate = compile('body', def.schema);
  if (!validate(u.value)) throw badRequest(`${where}.value for '${u.path}': ${describeError('body', validate.errors![0]).replace(/^body /, '')}`);
  return { scope, type, key };
}

/**
 * One `{path, value}`, the path one of the catalogue's settings, so a client generated from /openapi.json knows them.
 * Each value's type is in the operation's description and checked by the handler: published per path as JSON Schema
 * (eleven `if`/`then`), it overflowed the fuzzer's schema compiler. Platform-wide (master) paths are listed too; the
 * handler answers 403 to an admin who is not a superadmin.
 */
function configUpdateItem(): JsonSchema {
  const paths = [...Object.entries(MASTER_SECTIONS), ...Object.entries(TENANT_SECTIONS)].flatMap(([type, section]) => Object.keys(section).map((key) => `${type}.${key}`));
  return {
    type: 'object', additionalProperties: false, required: ['path', 'value'],
    properties: {
      path: { type: 'string', enum: paths, 'x-refusal': `'{value}' is not a setting: a <section>.<key> of GET /api/config (${paths.join(', ')})` },
      value: { description: 'of the type the path\'s setting takes (see the operation\'s description)' },
    },
  };
}

/** Each setting's value type, for the operation's description. */
const settingTypes = () =>
  [...Object.entries(MASTER_SECTIONS), ...Object.entries(TENANT_SECTIONS)]
    .flatMap(([type, section]) => Object.entries(section).map(([key, def]) => `\`${type}.${key}\` ${JSON.stringify(def.schema)}`))
    .join('; ');

export function registerSystemRoutes(table: RouteTable): void {
  const tag = 'system';

  defineRoute(table, {
    method: 'get', path: '/', tag, permission: 'public', needsCache: false,
    summary: 'API root and liveness check',
    responses: { 200: { description: 'service description', schema: out({ name: { type: 'string' }, version: { type: 'string' }, status: { type: 'string' }, docs: { type: 'string' }, redoc: { type: 'string' }, openapi: { type: 'string' } }) } },
    handler: () => ({ name: 'Planning Platform API', version: VERSION, status: 'ok', docs: '/docs', redoc: '/redoc', openapi: '/openapi.json' }),
  });

  defineRoute(table, {
    method: 'get', path: '/api/config', tag,
    summary: 'Effective configuration, secrets redacted',
    description: 'Platform-wide sections (auth) and the tenant sections from the parameters table. Answers 503 while the data cache loads, so it doubles as a readiness check.',
    responses: { 200: { description: 'configuration', schema: out({ config: { type: 'object' } }) }, ...errors(401, 503) },
    handler: async (ctx, { user }) => {
      const master = group(await listMasterParameters(ctx.deps.db));
      const tenant = group(await withTenant(ctx.deps.db, user.accountId, listTenantParameters));
      const config: Record<string, unknown> = {};
      for (const [type, values] of Object.entries({ ...tenant, ...master })) {
        config[type] = redactSection(MASTER_SECTIONS[type] ?? TENANT_SECTIONS[type], values);
      }
      return { config };
    },
  });

  const updateItem = configUpdateItem();
  defineRoute(table, {
    method: 'post', path: '/api/config/update', tag, permission: 'admin',
    summary: 'Change configuration values by dotted path',
    description: `Either \`{path, value}\` or \`{updates: [{path, value}]}\`. Paths are \`<section>.<key>\` from the catalogue (see GET /api/config); values are checked against the setting's schema: ${settingTypes()}. A batch applies all or nothing. \`auth.*\` is platform-wide and needs a superadmin.`,
    body: {
      // if/then rather than oneOf: a bad batch entry is answered by the batch's schema, not by the single form's
      if: { type: 'object', required: ['updates'] },
      then: obj({ updates: { type: 'array', minItems: 1, maxItems: 200, items: updateItem } }, ['updates']),
      else: updateItem,
    },
    audit: { entityType: 'config', action: 'update' },
    responses: { 200: { description: 'applied', schema: out({ status: { type: 'string' }, updated: { type: 'array', items: out({ path: { type: 'string' }, value: {} }, ['path']) } }) }, ...errors(400, 401, 403) },
    handler: async (ctx, { body, user }) => {
      const updates: Update[] = 'updates' in body ? body.updates : [body as Update];
      const checked = updates.map((u, i) => ({ ...u, ...checkUpdate(u, 'updates' in body ? i : -1, user) }));
      const old: Record<string, unknown> = {};
      await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        for (const u of checked) {
          old[u.path] = u.scope === 'master' ? await setMasterParameter(tx, u.type, u.key, u.value) : await setTenantParameter(tx, u.type, u.key, u.value);
        }
      });
      if (checked.some((u) => u.scope === 'master')) ctx.deps.auth.invalidate();
      const shown = checked.map((u) => ({ path: u.path, value: isSecretKey((MASTER_SECTIONS[u.type] ?? TENANT_SECTIONS[u.type]), u.key) ? '********' : u.value }));
      ctx.state.audit = { ...ctx.state.audit, entityId: null, oldValue: Object.fromEntries(Object.entries(old).map(([k, v]) => [k, /secret|api_key/.test(k) ? '********' : v])), newValue: shown };
      return { status: 'updated', updated: shown };
    },
  });

  defineRoute(table, {
    method: 'post', path: '/api/reload', tag,
    summary: "Reload the tenant's data cache",
    description: 'Adds catalogue parameter keys missing from the database (never overwriting), clears the cached data and reads it again. Call after restoring a backup or finishing a run.',
    audit: { entityType: 'cache', action: 'reload' }, needsCache: false,
    responses: { 200: { description: 'reloaded', schema: out({ status: { type: 'string', const: 'reloaded' }, synced_parameters: { type: 'integer' }, cache_sizes: { type: 'object', additionalProperties: { type: 'integer' } } }) }, ...errors(401) },
    handler: async (ctx, { user }) => {
      const synced = (await syncMasterDefaults(ctx.deps.db)) + (await withTenant(ctx.deps.db, user.accountId, syncTenantDefaults));
      const data = await ctx.deps.cache.reload(user.accountId);
      ctx.state.audit = { ...ctx.state.audit, entityId: null, newValue: { synced_parameters: synced, cache_sizes: cacheSizes(data) } };
      return { status: 'reloaded', synced_parameters: synced, cache_sizes: cacheSizes(data) };
    },
  });

  const levelSchema = { type: 'string', enum: Object.keys(LOG_LEVELS) };
  defineRoute(table, {
    method: 'get', path: '/api/log-level', tag, needsCache: false,
    summary: "The API process's log level",
    responses: { 200: { description: 'level', schema: out({ level: { type: 'string' } }) }, ...errors(401) },
    handler: () => ({ level: specLevel() }),
  });

  defineRoute(table, {
    method: 'put', path: '/api/log-level', tag, permission: 'admin', needsCache: false,
    summary: "Set the API process's log level", description: 'One of DEBUG, INFO, WARNING, ERROR. Applies to this API process until it restarts.',
    body: obj({ level: levelSchema }, ['level']), audit: { entityType: 'log_level', action: 'update' },
    responses: { 200: { description: 'new level', schema: out({ level: { type: 'string' }, previous: { type: 'string' } }) }, ...errors(400, 401, 403) },
    handler: (ctx, { body }) => {
      const previous = specLevel();
      setSpecLevel(body.level as SpecLogLevel);
      ctx.state.audit = { ...ctx.state.audit, entityId: null, oldValue: { level: previous }, newValue: { level: body.level } };
      return { level: body.level, previous };
    },
  });
}
