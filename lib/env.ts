import path from 'node:path';

/** Every process reads its settings here, so the local stack, tests and docker-compose share one vocabulary. */
export interface Env {
  appEnv: string;
  port: number;
  databaseUrl: string | undefined;
  dataDir: string;
  temporalAddress: string | undefined;
  temporalNamespace: string;
  taskQueue: string;
  microsoftProfileUrl: string;
  googleJwksUrl: string;
  googleClientId: string | undefined;
  /** the workbench's sign-in buttons: a provider is offered when its client id is set */
  microsoftClientId: string | undefined;
  microsoftAuthorizeUrl: string;
  googleAuthorizeUrl: string;
  corsOrigins: string[];
  bodyLimit: string;
  loginRateLimit: number;
  /** bytes of work-list answers the API keeps (api/planReads.ts); 0 keeps none */
  planReadCacheBytes: number;
  /** the assistant's statements running at once, over every tenant and per tenant, and waiting (domain/assistant/admission.ts) */
  assistantConcurrency: number;
  assistantConcurrencyPerTenant: number;
  assistantQueue: number;
  /** how long one assistant statement may run in PostgreSQL before it is cancelled (spec: 8 s by default) */
  assistantStatementTimeoutMs: number;
}

export const REPO_ROOT = path.resolve(__dirname, '..');

/** Spec §8: the assistant's query time-out, 8 seconds by default (ASSISTANT_STATEMENT_TIMEOUT_MS). */
export const DEFAULT_ASSISTANT_STATEMENT_TIMEOUT_MS = 8000;

/** Megabytes of work-list answers the API keeps unless PLAN_READ_CACHE_MB says otherwise (api/planReads.ts). */
export const DEFAULT_PLAN_READ_CACHE_MB = 128;

export function readEnv(source: NodeJS.ProcessEnv = process.env): Env {
  return {
    appEnv: source.APP_ENV ?? source.NODE_ENV ?? 'development',
    port: Number(source.PORT ?? 8002),
    databaseUrl: source.DATABASE_URL || undefined,
    dataDir: path.resolve(source.DATA_DIR ?? path.join(REPO_ROOT, '.data')),
    temporalAddress: source.TEMPORAL_ADDRESS || undefined,
    temporalNamespace: source.TEMPORAL_NAMESPACE ?? 'default',
    taskQueue: source.TEMPORAL_TASK_QUEUE ?? 'planning',
    microsoftProfileUrl: source.MICROSOFT_PROFILE_URL ?? 'https://graph.microsoft.com/v1.0/me',
    googleJwksUrl: source.GOOGLE_JWKS_URL ?? 'https://www.googleapis.com/oauth2/v3/certs',
    googleClientId: source.GOOGLE_CLIENT_ID || undefined,
    microsoftClientId: source.MICROSOFT_CLIENT_ID || undefined,
    microsoftAuthorizeUrl: source.MICROSOFT_AUTHORIZE_URL || 'https://login.microsoftonline.com/common/oauth2/v2.0/authorize',
    googleAuthorizeUrl: source.GOOGLE_AUTHORIZE_URL || 'https://accounts.google.com/o/oauth2/v2/auth',
    corsOrigins: (source.CORS_ORIGINS ?? 'http://localhost:3000,http://localhost:5173,http://127.0.0.1:3000,http://127.0.0.1:5173,http://localhost:8002')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    bodyLimit: source.BODY_LIMIT ?? '5mb',
    loginRateLimit: Number(source.LOGIN_RATE_LIMIT ?? 30),
    planReadCacheBytes: Math.max(0, Number(source.PLAN_READ_CACHE_MB ?? DEFAULT_PLAN_READ_CACHE_MB)) * 1024 * 1024,
    assistantConcurrency: wholeNumber(source, 'ASSISTANT_CONCURRENCY', 4, 1),
    assistantConcurrencyPerTenant: wholeNumber(source, 'ASSISTANT_CONCURRENCY_PER_TENANT', 2, 1),
    assistantQueue: wholeNumber(source, 'ASSISTANT_QUEUE', 8, 0),
    assistantStatementTimeoutMs: wholeNumber(source, 'ASSISTANT_STATEMENT_TIMEOUT_MS', DEFAULT_ASSISTANT_STATEMENT_TIMEOUT_MS, 100),
  };
}

/** A whole number of at least `min` from the environment; anything else stops the process, as a typo would go unseen. */
function wholeNumber(source: NodeJS.ProcessEnv, name: string, fallback: number, min: number): number {
  const raw = source[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be a whole number >= ${min}, got ${JSON.stringify(raw)}`);
  return n;
}

export const isDevelopment = (env: Env): boolean => ['development', 'dev', 'test'].includes(env.appEnv);
