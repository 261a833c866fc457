import fs from 'node:fs';
import path from 'node:path';
import type Koa from 'koa';
import serve from 'koa-static';
import { REPO_ROOT } from '../lib/env';

export const WEB_DIST_DIR = path.join(REPO_ROOT, 'web', 'dist');
const PREFIX = '/app';
const YEAR_MS = 365 * 24 * 3600 * 1000;

/**
 * Everything the workbench loads comes from this server: its own bundle, no font, script or image from another host.
 * Vega compiles its expressions with `new Function`, hence 'unsafe-eval'; the charts' SVG and its tooltips set inline
 * styles.
 */
const APP_CSP = "default-src 'self'; script-src 'self' 'unsafe-eval'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; "
  + "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'self'; frame-ancestors 'none'; form-action 'self'";

/**
 * Serves the built workbench (web/dist, `npm run web:build`) under /app, before authentication: the app and its
 * assets are public files, every API call it then makes carries the user's token. Hashed assets are cached for a
 * year; every other path below /app is a client route and gets index.html, never cached, so a new build is seen at
 * the next load.
 */
export function webAppMiddleware(distDir = process.env.WEB_DIST_DIR || WEB_DIST_DIR): Koa.Middleware {
  const indexFile = path.join(distDir, 'index.html');
  const assets = serve(distDir, { index: false, hidden: false, maxage: YEAR_MS, immutable: true });
  return async (ctx, next) => {
    if (ctx.path !== PREFIX && !ctx.path.startsWith(`${PREFIX}/`)) return next();
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      ctx.status = 405;
      ctx.set('Allow', 'GET, HEAD');
      ctx.body = { detail: 'The workbench is read with GET' };
      return;
    }
    if (!fs.existsSync(indexFile)) {
      ctx.status = 503;
      ctx.type = 'text/plain';
      ctx.body = 'The workbench is not built on this server: run `npm run web:build` (the start command does it when its sources change).\n';
      return;
    }
    ctx.set('Content-Security-Policy', APP_CSP);
    const rest = ctx.path.slice(PREFIX.length);
    if (rest.startsWith('/assets/')) {
      const original = ctx.path;
      ctx.path = rest;
      await assets(ctx, async () => {
        ctx.status = 404;
        ctx.type = 'text/plain';
        ctx.body = 'No such file in the workbench build\n';
      });
      ctx.path = original;
      return;
    }
    ctx.type = 'text/html';
    ctx.set('Cache-Control', 'no-cache');
    // read whole (half a kilobyte): a stream cut short by a browser that navigates away logs a "Premature close"
    ctx.body = fs.readFileSync(indexFile);
  };
}
