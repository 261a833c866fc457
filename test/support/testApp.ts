import crypto from 'node:crypto';
import type http from 'node:http';
import request from 'supertest';
import { createApp } from '../../api/app';
import { AuthSettings } from '../../api/auth/settings';
import { hashPassword } from '../../api/auth/passwords';
import { DataCache, type CacheLoader } from '../../api/cache';
import type { SsoSettings, TemporalDeps } from '../../api/context';
import type { RouteTable } from '../../api/routes/define';
import { compileResponse } from '../../api/routes/validation';
import { indexEmail } from '../../db/accounts';
import { loadTenantData } from '../../db/masterData';
import { openPool, withTenant, type Db } from '../../db/pool';
import { closePreparedReadPools } from '../../db/preparedReads';
import { insertUser, upsertSuperadmin } from '../../db/users';
import { readEnv } from '../../lib/env';
import { JobLogNotifications } from '../../db/notifications';
import { createTestAccount } from './tenantPool';

export interface TestUser {
  id: number;
  email: string;
  password: string;
}

export interface TestTenant {
  accountId: string;
  name: string;
  admin: TestUser;
  planner: TestUser;
}

export interface CallOptions {
  token?: string;
  body?: unknown;
  query?: Record<string, unknown>;
  headers?: Record<string, string>;
}

export interface TestApp {
  db: Db;
  server: http.Server;
  table: RouteTable;
  cache: DataCache;
  auth: AuthSettings;
  call(method: string, path: string, opts?: CallOptions): Promise<request.Response>;
  newTenant(label?: string): Promise<TestTenant>;
  addUser(accountId: string, fields?: Partial<{ role: 'admin' | 'user'; can_run_process: boolean; can_create_override: boolean; allowed_segments: number[]; email: string; password: string }>): Promise<TestUser>;
  login(user: TestUser, accountId?: string): Promise<string>;
  addSuperadmin(): Promise<TestUser>;
  close(): Promise<void>;
}

const uniq = () => crypto.randomBytes(4).toString('hex');

/**
 * A real app on real PostgreSQL, called through HTTP. Every response is checked against the schema its route
 * publishes in /openapi.json, and a status the route does not document fails the test.
 */
export async function startTestApp(opts: { temporal?: TemporalDeps; loginRateLimit?: number; extraAreas?: Array<(table: RouteTable) => void>; cacheLoader?: (db: Db) => CacheLoader; sso?: Partial<SsoSettings>; /** a database of the test's own instead of the run's */ databaseUrl?: string; /** environment variables this app reads beside the process's (lib/env.ts) */ vars?: Record<string, string>; /** the process's own metrics on /metrics (api/app.ts AppOptions): off, since each would stay registered in the jest worker after the file */ processMetrics?: boolean } = {}): Promise<TestApp> {
  const env = { ...readEnv({ ...process.env, ...opts.vars }), loginRateLimit: opts.loginRateLimit ?? 1000, ...(opts.databaseUrl ? { databaseUrl: opts.databaseUrl } : {}) };
  const db = await openPool(env.databaseUrl!, 5);
  // production's cache time: the config route invalidates it on a change, as a replica's own update does
  const auth = new AuthSettings(db);
  await auth.ensureDefaults();
  const cache = new DataCache(opts.cacheLoader ? opts.cacheLoader(db) : (id) => loadTenantData(db, id));
  const notifications = new JobLogNotifications(env.databaseUrl!);
  const { app, table } = createApp({
    db, env, cache, auth, temporal: opts.temporal, notifications,
    sso: {
      ...opts.sso,
      microsoftProfileUrl: opts.sso?.microsoftProfileUrl ?? 'http://127.0.0.1:9/unreachable',
      googleJwksUrl: opts.sso?.googleJwksUrl ?? 'http://127.0.0.1:9/unreachable',
      googleClientId: opts.sso?.googleClientId,
    },
  }, opts.extraAreas, { processMetrics: opts.processMetrics ?? false });
  const server = app.listen(0);
  const validators = new Map<string, (body: unknown) => string | undefined>();
  // compiled once: a regular expression per route on every call was a visible share of the API suites' CPU
  const matchers = table.routes.map((r) => ({ route: r, pattern: new RegExp(`^${r.path.replace(/\{\w+\}/g, '[^/]+')}$`) }));

  function checkResponse(method: string, path: string, res: request.Response): void {
    const route = matchers.find((m) => m.route.method === method && m.pattern.test(path))?.route;
    if (!route) return; // unknown route: the 404 body is checked by the test itself
    const spec = route.responses[res.status];
    if (!spec) throw new Error(`${method.toUpperCase()} ${route.path} answered ${res.status}, which its OpenAPI entry does not document: ${JSON.stringify(res.body)}`);
    if (!spec.schema || (spec.contentType && spec.contentType !== 'application/json')) return;
    const key = `${method} ${route.path} ${res.status}`;
    if (!validators.has(key)) {
      const v = compileResponse(spec.schema);
      validators.set(key, (b) => (v(b) ? undefined : JSON.stringify(v.errors)));
    }
    const problem = validators.get(key)!(res.body);
    if (problem) throw new Error(`${key}: response does not match its schema: ${problem}\nbody: ${JSON.stringify(res.body).slice(0, 500)}`);
  }

  const t: TestApp = {
    db, server, table, cache, auth,
    async call(method, path, o = {}) {
      const m = method.toLowerCase();
      let req = (request(server) as any)[m](path) as request.Test;
      if (o.token) req = req.set('Authorization', `Bearer ${o.token}`);
      for (const [k, v] of Object.entries(o.headers ?? {})) req = req.set(k, v);
      if (o.query) req = req.query(o.query);
      if (o.body !== undefined) req = req.send(o.body as object);
      const res = await req;
      checkResponse(m, path.split('?')[0], res);
      return res;
    },
    async addUser(accountId, f = {}) {
      const email = f.email ?? `user-${uniq()}@example.com`;
      const password = f.password ?? `pw-${uniq()}-secret`;
      const row = await withTenant(db, accountId, async (tx) => {
        const u = await insertUser(tx, {
          email, name: email.split('@')[0], password_hash: await hashPassword(password), role: f.role ?? 'user', auth_provider: 'local',
          can_run_process: f.can_run_process ?? false, can_create_override: f.can_create_override ?? false,
          allowed_segments: f.allowed_segments ?? [], allowed_segments_edit: [],
        });
        await indexEmail(tx, email, accountId);
        return u;
      });
      return { id: row.id, email, password };
    },
    async addSuperadmin() {
      const email = `root-${uniq()}@example.com`;
      const password = `root-${uniq()}-secret`;
      const row = await upsertSuperadmin(db, email, 'Root', await hashPassword(password));
      return { id: row.id, email, password };
    },
    async newTenant(label = 'tenant') {
      const account = await createTestAccount(db, env.databaseUrl!, `${label}-${uniq()}`);
      const admin = await t.addUser(account.id, { role: 'admin' });
      const planner = await t.addUser(account.id, { role: 'user', can_run_process: true, can_create_override: true });
      return { accountId: account.id, name: account.name, admin, planner };
    },
    async login(user, accountId) {
      const res = await t.call('post', '/api/auth/login', { body: { email: user.email, password: user.password, ...(accountId ? { account_id: accountId } : {}) } });
      if (res.status !== 200 || !res.body.access_token) throw new Error(`login failed: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body.access_token as string;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await notifications.close();
      await closePreparedReadPools();
      await db.end();
    },
  };
  return t;
}
