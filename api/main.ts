import net from 'node:net';
import { AuthSettings } from './auth/settings';
import { createApp } from './app';
import { DataCache } from './cache';
import { listAccounts } from '../db/accounts';
import { loadTenantData } from '../db/masterData';
import { migrateAll } from '../db/migrate';
import { openPool } from '../db/pool';
import { closePreparedReadPools } from '../db/preparedReads';
import { JobLogNotifications } from '../db/notifications';
import { Client, Connection } from '@temporalio/client';
import { isDevelopment, readEnv } from '../lib/env';
import { logger } from '../lib/logger';

/** API process: migrate, check the signing secret, warm every tenant's cache in the background, listen. */
export async function startApi(): Promise<{ close(): Promise<void> }> {
  const env = readEnv();
  if (!env.databaseUrl) throw new Error('DATABASE_URL is required (npm start provides the embedded database)');
  await migrateAll(env.databaseUrl);
  const db = await openPool(env.databaseUrl);
  const auth = new AuthSettings(db);
  await auth.ensureDefaults(process.env.JWT_SECRET);
  if ((await auth.usesPlaceholder()) && !isDevelopment(env)) {
    await db.end();
    throw new Error(
      `Refusing to start in ${env.appEnv}: auth.jwt_secret is still the placeholder. Set JWT_SECRET (at least 32 random bytes) on first start, or POST /api/config/update {path: "auth.jwt_secret"} as superadmin.`,
    );
  }
  const cache = new DataCache((accountId) => loadTenantData(db, accountId), env.planReadCacheBytes);
  // Lazy: the API answers (and reports 503 on job routes) even while Temporal is still starting or briefly down.
  const connection = Connection.lazy({ address: env.temporalAddress ?? '127.0.0.1:7233' });
  const temporal = { client: new Client({ connection, namespace: env.temporalNamespace }), taskQueue: env.taskQueue };
  const notifications = new JobLogNotifications(env.databaseUrl);
  const { app, metrics, lifecycle } = createApp({
    db, env, cache, auth, temporal, notifications,
    sso: {
      microsoftProfileUrl: env.microsoftProfileUrl, googleJwksUrl: env.googleJwksUrl, googleClientId: env.googleClientId,
      microsoftClientId: env.microsoftClientId, microsoftAuthorizeUrl: env.microsoftAuthorizeUrl, googleAuthorizeUrl: env.googleAuthorizeUrl,
    },
  });
  for (const a of await listAccounts(db)) cache.warm(a.id);
  const server = app.listen(env.port);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  logger.info({ port: env.port }, 'API listening');
  const metricsPort = process.env.METRICS_PORT ? Number(process.env.METRICS_PORT) : undefined;
  const metricsServer = metricsPort ? await metrics.listen(metricsPort, process.env.METRICS_HOST || '0.0.0.0') : undefined;
  if (metricsServer) logger.info({ port: metricsPort }, 'API metrics at /metrics');
  return {
    close: async () => {
      // Draining (SHUTDOWN_DRAIN_MS): /ready answers 503 so the orchestrator stops sending, while the requests that
      // still come are answered. Then the listener closes; the requests in flight, and any accepted connection whose
      // request is still arriving, are answered (http.Server#close would drop those as idle: net.Server#close does not),
      // up to SHUTDOWN_TIMEOUT_MS, after which their sockets are cut (an event stream never ends by itself).
      lifecycle.stopping = true;
      await new Promise((r) => setTimeout(r, Number(process.env.SHUTDOWN_DRAIN_MS ?? 0)));
      const closed = new Promise<void>((resolve) => net.Server.prototype.close.call(server, () => resolve()));
      const limit = Number(process.env.SHUTDOWN_TIMEOUT_MS ?? 10_000);
      const bound = setTimeout(() => {
        logger.warn({ limitMs: limit }, 'requests still open at the shutdown limit; closing their connections');
        server.closeAllConnections();
      }, limit);
      await closed;
      clearTimeout(bound);
      metricsServer?.close();
      await connection.close();
      await notifications.close();
      await closePreparedReadPools();
      await db.end();
    },
  };
}

if (require.main === module) {
  // A request's failure is answered by the error middleware and ends nothing. A rejected promise nobody awaited (a
  // background cache warm, a socket's late error) is logged and the API keeps serving every tenant; an exception thrown
  // outside any request leaves the process in an unknown state, so it is logged as fatal and the process ends.
  process.on('unhandledRejection', (err) => logger.error({ err }, 'unhandled promise rejection; the API keeps running'));
  process.on('uncaughtException', (err, origin) => {
    logger.fatal({ err, origin }, 'uncaught exception; the API stops');
    process.exit(1);
  });
  startApi()
    .then((api) => {
      const stop = () => {
        logger.info('stopping: finishing the requests in flight');
        void api.close().then(() => process.exit(0));
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    })
    .catch((err) => {
      logger.error({ err }, 'API failed to start');
      console.error(err instanceof Error ? err.message : err);
      process.exit(1);
    });
}
