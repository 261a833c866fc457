import bodyParser from '@koa/bodyparser';
import cors from '@koa/cors';
import Router from '@koa/router';
import Koa from 'koa';
import helmet from 'koa-helmet';
import ratelimit from 'koa-ratelimit';
import type { AppDeps } from './context';
import { auditMiddleware } from './middleware/audit';
import { deferBodyError } from './middleware/body';
import { authMiddleware } from './middleware/auth';
import { errorMiddleware } from './middleware/errors';
import { registerDocsRoutes } from './openapi';
import { registerAbcRoutes } from './routes/abc';
import { registerAnalyticsRoutes } from './routes/analytics';
import { registerForecastRoutes } from './routes/forecasts';
import { registerAuditRoutes } from './routes/audit';
import { registerAuthRoutes } from './routes/auth';
import { registerCalendarRoutes } from './routes/calendars';
import { registerImportRoutes } from './routes/import';
import { registerKcurveRoutes } from './routes/kcurve';
import { registerMasterDataRoutes } from './routes/masterData';
import { registerNettingRoutes } from './routes/netting';
import { registerMeioConfigRoutes } from './routes/meio/config';
import { registerMeioResultRoutes } from './routes/meio/results';
import { registerInventoryNetworkRoutes } from './routes/inventory/network';
import { registerRouteRoutes } from './routes/inventory/routes';
import { registerNpiRoutes } from './routes/npi';
import { registerParameterRoutes } from './routes/parameters';
import { eventStreamPaths, type RouteTable } from './routes/define';
import { registerHistoryRoutes } from './routes/history';
import { registerAlertRoutes } from './routes/alerts';
import { registerHyperparamRoutes } from './routes/hyperparams';
import { registerPipelineControlRoutes } from './routes/pipeline';
import { registerPipelineRoutes } from './routes/pipelines';
import { registerProcessLogRoutes } from './routes/processLog';
import { registerProcessWorkflowRoutes } from './routes/processWorkflows';
import { registerScenarioRoutes } from './routes/scenarios';
import { registerSegmentRoutes } from './routes/segments';
import { registerSeriesRoutes } from './routes/series';
import { registerSeriesDetailRoutes } from './routes/seriesDetail';
import { registerSupplyRoutes } from './routes/supply';
import { registerSupersessionRoutes } from './routes/supersession';
import { registerCausalRoutes } from './routes/causal';
import { registerSystemRoutes } from './routes/system';
import { registerExceptionRoutes } from './routes/exceptions';
import { registerSeriesExceptionRoutes } from './routes/exceptions/series';
import { registerAssistantRoutes } from './routes/assistant';
import { registerMaintenanceRoutes } from './routes/maintenance';
import { registerAdminRoutes } from './routes/admin';
import { ApiMetrics } from './metrics';
import { readinessMiddleware, type Lifecycle } from './readiness';
import { registerServiceBacktestRoutes } from './routes/serviceBacktest';
import { webAppMiddleware } from './webApp';

/** Every area registers its routes here; the order only matters for the OpenAPI listing. */
const AREAS: Array<(table: RouteTable) => void> = [registerSystemRoutes, registerAuthRoutes, registerAuditRoutes, registerPipelineControlRoutes, registerProcessLogRoutes, registerDocsRoutes,
  registerScenarioRoutes, registerPipelineRoutes, registerProcessWorkflowRoutes,
  registerImportRoutes,
  registerParameterRoutes, registerHyperparamRoutes, registerCalendarRoutes,
  registerMasterDataRoutes, registerSeriesRoutes, registerSeriesDetailRoutes, registerSegmentRoutes, registerAbcRoutes, registerNpiRoutes,
  registerForecastRoutes, registerAnalyticsRoutes, registerNettingRoutes,
  registerRouteRoutes, registerMeioConfigRoutes, registerMeioResultRoutes, registerInventoryNetworkRoutes,
  registerKcurveRoutes,
  registerSupplyRoutes,
  registerSupersessionRoutes,
  registerHistoryRoutes,
  registerAlertRoutes,
  registerExceptionRoutes,
  registerSeriesExceptionRoutes,
  registerCausalRoutes,
  registerAssistantRoutes,
  registerMaintenanceRoutes,
  registerServiceBacktestRoutes,
  registerAdminRoutes,
];

const LOGIN_PATHS = ['/api/auth/login', '/api/auth/microsoft', '/api/auth/google'];

export interface AppOptions {
  /**
   * The process's own metrics on /metrics (CPU, memory, event-loop delay, garbage collection; prom-client's
   * defaults). On by default. They register a garbage-collection observer and an event-loop monitor in the process
   * that nothing can remove, so a process that builds many apps (a test worker, one per test file) turns them off.
   */
  processMetrics?: boolean;
}

/** Builds the Koa app from its dependencies; nothing here touches the network or database until a request comes. */
export function createApp(deps: AppDeps, extraAreas: Array<(table: RouteTable) => void> = [], options: AppOptions = {}): { app: Koa; table: RouteTable; metrics: ApiMetrics; lifecycle: Lifecycle } {
  const app = new Koa({ proxy: process.env.TRUST_PROXY === '1' });
  (app.context as any).deps = deps;
  const table: RouteTable = { router: new Router(), routes: [] };
  for (const register of [...AREAS, ...extraAreas]) register(table);
  let streams: RegExp[] | undefined;
  const metrics = new ApiMetrics(deps.db, deps.cache, { defaultMetrics: options.processMetrics ?? true });

  app.use(metrics.middleware((path, method) => {
    const layer = table.router.match(path, method).pathAndMethod[0];
    return typeof layer?.path === 'string' ? layer.path : undefined;
  }));
  app.use(errorMiddleware());
  app.use(metrics.endpoint(process.env.METRICS_TOKEN || undefined));
  const lifecycle: Lifecycle = { stopping: false };
  app.use(readinessMiddleware(deps, lifecycle));
  app.use(helmet({ contentSecurityPolicy: false }));
  app.use(
    cors({
      origin: (ctx) => {
        const origin = ctx.get('Origin');
        return deps.env.corsOrigins.includes(origin) ? origin : '';
      },
      credentials: true,
    }),
  );
  app.use(webAppMiddleware());
  app.use(bodyParser({ enableTypes: ['json'], jsonLimit: deps.env.bodyLimit, encoding: 'utf-8', onError: deferBodyError }));
  app.use(
    ratelimit({
      driver: 'memory',
      db: new Map(),
      duration: 60_000,
      max: deps.env.loginRateLimit,
      throw: true,
      errorMessage: 'Too many sign-in attempts; wait a minute and try again',
      id: (ctx) => `${ctx.ip}:${String((ctx.request as any).body?.email ?? '').toLowerCase()}`,
      whitelist: (ctx) => !(ctx.method === 'POST' && LOGIN_PATHS.includes(ctx.path)),
    }),
  );
  for (const mw of authMiddleware(deps.db, deps.env.databaseUrl!, deps.auth, () => (streams ??= eventStreamPaths(table)))) app.use(mw);
  app.use(auditMiddleware(deps.db));
  app.use(table.router.routes());
  app.use(table.router.allowedMethods());
  return { app, table, metrics, lifecycle };
}
