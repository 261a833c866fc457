import type { Client } from '@temporalio/client';
import type Koa from 'koa';
import type { Db } from '../db/pool';
import type { Env } from '../lib/env';
import type { DataCache } from './cache';
import type { AuthSettings } from './auth/settings';
import type { JobLogNotifications } from '../db/notifications';

export type Role = 'admin' | 'user' | 'superadmin';

/** The caller, as verified from the token and refreshed from the database on every request. */
export interface AuthUser {
  id: string;
  email: string;
  name: string;
  role: Role;
  authProvider: 'local' | 'microsoft' | 'google';
  isSuperadmin: boolean;
  accountId: string;
  accountName: string;
  canRunProcess: boolean;
  canCreateOverride: boolean;
  allowedSegments: number[];
  allowedSegmentsEdit: number[];
  jti: string;
  exp: number;
}

export interface AuditNote {
  entityType?: string;
  entityId?: string | number | null;
  action?: string;
  oldValue?: unknown;
  newValue?: unknown;
  /** set by public routes (login) once they know which tenant the attempt belongs to */
  accountId?: string;
  changedBy?: string;
}

export interface SsoSettings {
  microsoftProfileUrl: string;
  googleJwksUrl: string;
  googleClientId?: string;
  /** where the workbench sends a browser to sign in (GET /api/auth/login/providers); unset client id: not offered */
  microsoftClientId?: string;
  microsoftAuthorizeUrl?: string;
  googleAuthorizeUrl?: string;
}

/** Where the API starts and finds workflows; absent when the API runs without Temporal (routes that need it answer 503). */
export interface TemporalDeps {
  client: Client;
  taskQueue: string;
}

export interface AppDeps {
  temporal?: TemporalDeps;
  db: Db;
  env: Env;
  cache: DataCache;
  auth: AuthSettings;
  sso: SsoSettings;
  notifications: JobLogNotifications;
}

export interface AppState {
  user?: AuthUser;
  audit?: AuditNote;
  /** the decoded token, as koa-jwt leaves it */
  token?: Record<string, unknown>;
  /** the tenant's data version (migration 011) read with the user: whether the in-memory reads (api/readCache.ts) are current */
  dataVersion?: number;
  /** the tenant's plan version (migration 033) read with the user: whether the work lists the API holds (api/planReads.ts) are current */
  planVersion?: number;
}

export type AppContext = Koa.ParameterizedContext<AppState> & { deps: AppDeps };
