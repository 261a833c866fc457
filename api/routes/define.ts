import type Router from '@koa/router';
import type { ValidateFunction } from 'ajv';
import type { AppContext, AuthUser } from '../context';
import { ADMIN_REQUIRED, badRequest, forbidden, unavailable } from '../errors';
import { errors } from './schemas';
import { checkInputText, compile, describeError, type JsonSchema, type Where } from './validation';

/** Who may call a route (spec §5.12). `public` routes skip the token check entirely (the list is fixed in auth.ts). */
export type Permission = 'public' | 'user' | 'admin' | 'superadmin' | 'run_process' | 'create_override';

export interface ResponseSpec {
  description: string;
  schema?: JsonSchema;
  contentType?: string;
  /** OpenAPI links: the operations a client calls next with values of this answer (published in /openapi.json) */
  links?: Record<string, LinkSpec>;
}

/**
 * One OpenAPI link, naming its target as `METHOD /path` (api/openapi.ts turns that into the operationId and refuses
 * a target or parameter that does not exist). Parameters are runtime expressions, e.g. `$response.body#/id`.
 */
export interface LinkSpec {
  operation: string;
  parameters?: Record<string, unknown>;
  requestBody?: unknown;
  description?: string;
}

export interface RouteInput<P = any, Q = any, B = any> {
  params: P;
  query: Q;
  body: B;
  user: AuthUser;
}

export interface RouteSpec<P = any, Q = any, B = any> {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** OpenAPI-style path: `/api/auth/users/{id}` */
  path: string;
  tag: string;
  summary: string;
  description?: string;
  permission?: Permission;
  params?: JsonSchema;
  query?: JsonSchema;
  body?: JsonSchema;
  /** status code of a successful answer (200 unless set) */
  status?: number;
  responses: Record<number, ResponseSpec>;
  /** entity written to the audit log for mutating routes; derived from the path when omitted */
  audit?: { entityType: string; action?: string };
  /** false for routes that must answer while the tenant's data cache loads (auth, log level) */
  needsCache?: boolean;
  /** pipeline-scoped: `pipeline_id` missing or 0 in query or body answers 400 */
  pipelineScoped?: boolean;
  /** Server-Sent Events route: the token may come in `?token=` */
  eventStream?: boolean;
  handler: (ctx: AppContext, input: RouteInput<P, Q, B>) => unknown | Promise<unknown>;
}

/** The routes of one app: the Koa router plus the specs that /openapi.json and the auth middleware read. */
export interface RouteTable {
  router: Router<any, any>;
  routes: RouteSpec[];
}

export const koaPath = (path: string) => path.replace(/\{(\w+)\}/g, ':$1');

/** Paths whose token may be given in `?token=` (browsers cannot set headers on EventSource). */
export const eventStreamPaths = (table: RouteTable): RegExp[] =>
  table.routes.filter((r) => r.eventStream).map((r) => new RegExp(`^${r.path.replace(/\{\w+\}/g, '[^/]+')}$`));

function checkPermission(permission: Permission, user: AuthUser | undefined): void {
  if (permission === 'public') return;
  if (!user) throw forbidden('Authentication required');
  const isAdmin = user.role === 'admin' || user.role === 'superadmin';
  switch (permission) {
    case 'admin':
      if (!isAdmin) throw forbidden(ADMIN_REQUIRED);
      return;
    case 'superadmin':
      if (!user.isSuperadmin) throw forbidden('Superadmin privileges required');
      return;
    case 'run_process':
      if (!isAdmin && !user.canRunProcess) throw forbidden('Permission can_run_process (or an admin role) required to start runs');
      return;
    case 'create_override':
      if (!user.canCreateOverride && !isAdmin) throw forbidden('Permission can_create_override required for overrides and locked methods');
      return;
    default:
      return;
  }
}

/** Text, key and depth checks first (validation.ts checkInputText), then the route's schema. */
function validator(where: Where, schema: JsonSchema | undefined): (value: unknown) => void {
  const checkSchema = schemaValidator(where, schema);
  return (value) => {
    const problem = checkInputText(where, value);
    if (problem) throw badRequest(problem);
    checkSchema(value);
  };
}

function schemaValidator(where: Where, schema: JsonSchema | undefined): (value: unknown) => void {
  if (!schema) {
    return (value) => {
      const keys = value && typeof value === 'object' ? Object.keys(value) : [];
      if (where === 'query' && keys.length) throw badRequest(`query: unknown parameter '${keys[0]}'`);
      if (where === 'body' && value !== undefined && keys.length) throw badRequest(`body: this endpoint takes no body (got '${keys[0]}')`);
    };
  }
  // Compiled at the route's first request, not when the app is built: ajv's code generation for every operation was
  // most of createApp's CPU (about 1 s), paid by each process and each test file that then uses a handful of routes.
  // test/api/openapi.test.ts compiles them all, so a schema ajv refuses still fails the test command.
  let fn: ValidateFunction | undefined;
  return (value) => {
    fn ??= compile(where, schema);
    if (!fn(value)) throw badRequest(describeError(where, fn.errors![0], fn.schema));
  };
}

function requirePipelineId(query: Record<string, unknown>, body: unknown): void {
  const fromBody = body && typeof body === 'object' ? (body as Record<string, unknown>).pipeline_id : undefined;
  const value = query.pipeline_id ?? fromBody;
  if (value === undefined || value === null || value === '' || Number(value) === 0) {
    throw badRequest('pipeline_id is required (a positive pipeline id; 0 is not a pipeline)');
  }
}

/** Registers the Koa route, its validation and its OpenAPI entry in one place, so none can exist without the others. */
export function defineRoute<P = any, Q = any, B = any>(table: RouteTable, spec: RouteSpec<P, Q, B>): void {
  const permission = spec.permission ?? 'user';
  const checkParams = validator('path', spec.params);
  const querySchema = spec.eventStream && spec.query ? withTokenParam(spec.query) : spec.query ?? (spec.eventStream ? withTokenParam({ type: 'object', properties: {}, additionalProperties: false }) : undefined);
  const checkQuery = validator('query', querySchema);
  const checkBody = validator('body', spec.body);
  // Answers every route can give, so no route documents less than it may send.
  const common = errors(
    500,
    ...(permission === 'public' ? [] : [401]),
    ...(spec.body || spec.query || spec.params || spec.pipelineScoped ? [400] : []),
    ...(spec.body ? [413, 415] : []),
    // the cache-loading 503, and on every route the one of a database that cannot be reached (api/middleware/errors.ts)
    503,
  );
  table.routes.push({ ...spec, query: querySchema, permission, responses: { ...common, ...spec.responses } } as RouteSpec);

  table.router.register(koaPath(spec.path), [spec.method.toUpperCase()], async (rawCtx: any) => {
    const ctx = rawCtx as unknown as AppContext;
    const user = ctx.state.user;
    if (spec.audit) ctx.state.audit = { entityType: spec.audit.entityType, action: spec.audit.action, ...ctx.state.audit };
    checkPermission(permission, user);
    const params = { ...(rawCtx as any).params };
    const query = { ...ctx.query } as Record<string, unknown>;
    const rawBody = (ctx.request as any).body;
    const body = spec.body && (rawBody === undefined || rawBody === null) ? {} : rawBody;
    if (spec.pipelineScoped) requirePipelineId(query, body);
    checkParams(params);
    checkQuery(query);
    checkBody(body);
    if (user && spec.needsCache !== false) {
      const ready = await ctx.deps.cache.whenReady(user.accountId, 2000);
      if (!ready) throw unavailable('The data cache is loading; retry in a few seconds', 10);
    }
    const result = await spec.handler(ctx, { params: params as P, query: query as Q, body: (body ?? {}) as B, user: user as AuthUser });
    if (result !== undefined) {
      ctx.body = result;
      ctx.status = spec.status ?? 200;
    }
  });
}

function withTokenParam(schema: JsonSchema): JsonSchema {
  const props = { ...((schema.properties as object) ?? {}), token: { type: 'string', description: 'Access token, for EventSource clients that cannot send headers; the Authorization header wins.' } };
  return { ...schema, properties: props };
}
