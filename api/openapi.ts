import fs from 'node:fs';
import path from 'node:path';
import type { LinkSpec, RouteSpec, RouteTable } from './routes/define';
import { defineRoute } from './routes/define';
import { errorSchema } from './routes/schemas';
import type { JsonSchema } from './routes/validation';

/**
 * What a boolean query parameter takes (docs/API.md "Flags"): the query string is coerced to the schema's type, and
 * only these two spellings are booleans. Said on every one, so no client has to find out by a 400.
 */
export const FLAG_NOTE = '`true` or `false` exactly (lower case); any other value (1, 0, yes, TRUE, empty) is a 400 naming the parameter';

function parameters(route: RouteSpec): unknown[] {
  const list: unknown[] = [];
  for (const [where, schema] of [['path', route.params], ['query', route.query]] as const) {
    if (!schema) continue;
    const props = (schema.properties ?? {}) as Record<string, JsonSchema>;
    const required = new Set((schema.required as string[] | undefined) ?? []);
    for (const [name, s] of Object.entries(props)) {
      const description = s.type === 'boolean' ? [s.description, FLAG_NOTE].filter(Boolean).join('. ') : s.description;
      list.push({ name, in: where, required: where === 'path' || required.has(name), schema: s, ...(description ? { description } : {}) });
    }
  }
  return list;
}

export const operationId = (method: string, path: string) => `${method}_${path.replace(/[{}]/g, '').replace(/[^A-Za-z0-9]+/g, '_').replace(/^_|_$/g, '') || 'root'}`;

/**
 * A declared link as OpenAPI writes it. A link to an operation or parameter that does not exist would be published
 * without complaint and silently never followed, so it stops the document instead.
 */
function openApiLink(byName: Map<string, RouteSpec>, from: string, name: string, link: LinkSpec): Record<string, unknown> {
  const target = byName.get(link.operation);
  if (!target) throw new Error(`${from}: link ${name} targets ${link.operation}, which is not a route`);
  const known = new Set(parameters(target).map((p: any) => `${p.in}.${p.name}`));
  for (const key of Object.keys(link.parameters ?? {})) {
    const ok = key.includes('.') ? known.has(key) : [...known].some((k) => k.endsWith(`.${key}`));
    if (!ok) throw new Error(`${from}: link ${name} sets parameter ${key}, which ${link.operation} does not take`);
  }
  if (link.requestBody !== undefined && !target.body) throw new Error(`${from}: link ${name} sends a body to ${link.operation}, which takes none`);
  return {
    operationId: operationId(target.method, target.path),
    ...(link.parameters ? { parameters: link.parameters } : {}),
    ...(link.requestBody !== undefined ? { requestBody: link.requestBody } : {}),
    ...(link.description ? { description: link.description } : {}),
  };
}

/** OpenAPI 3.1 built from the route table: the same schemas ajv enforces are the ones published. */
export function buildOpenApi(table: RouteTable): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const byName = new Map(table.routes.map((r) => [`${r.method.toUpperCase()} ${r.path}`, r]));
  for (const r of table.routes) {
    const from = `${r.method.toUpperCase()} ${r.path}`;
    const op: Record<string, unknown> = {
      operationId: operationId(r.method, r.path),
      tags: [r.tag],
      summary: r.summary,
      ...(r.description ? { description: r.description } : {}),
      parameters: parameters(r),
      responses: Object.fromEntries(
        Object.entries(r.responses).map(([code, resp]) => [
          code,
          {
            description: resp.description,
            ...(resp.schema ? { content: { [resp.contentType ?? 'application/json']: { schema: resp.schema } } } : {}),
            ...(resp.links ? { links: Object.fromEntries(Object.entries(resp.links).map(([name, l]) => [name, openApiLink(byName, from, name, l)])) } : {}),
          },
        ]),
      ),
      'x-permission': r.permission ?? 'user',
    };
    if (r.body) op.requestBody = { required: true, content: { 'application/json': { schema: r.body } } };
    if (r.permission === 'public') op.security = [];
    (paths[r.path] ??= {})[r.method] = op;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Planning Platform API',
      version: '0.1.0',
      description:
        'Multi-tenant demand forecasting, inventory optimisation and supply planning. Errors are `{detail}`; send `Authorization: Bearer <token>` from POST /api/auth/login. `x-permission` on each operation names who may call it. Boolean query parameters take `true` or `false` exactly and boolean body fields a JSON boolean; anything else is a 400 naming the field (the one exception, from document 2 §4.2: a supply scenario\'s two flags in `param_overrides` are coerced).',
    },
    servers: [{ url: '/' }],
    components: {
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
      schemas: { Error: errorSchema },
    },
    security: [{ bearerAuth: [] }],
    paths,
  };
}

const asset = (pkg: string, file: string) => fs.readFileSync(path.join(path.dirname(require.resolve(`${pkg}/package.json`)), file), 'utf8');

/** Docs pages inline their assets: only the exact paths /docs and /redoc are public (spec §5.5), so no asset URLs. */
let swaggerHtml: string | undefined;
let redocHtml: string | undefined;
const safeScript = (js: string) => js.replace(/<\/script/gi, '<\\/script');

function swaggerPage(): string {
  swaggerHtml ??= `<!doctype html><html><head><meta charset="utf-8"><title>Planning Platform API</title>
<style>${asset('swagger-ui-dist', 'swagger-ui.css')}</style></head><body><div id="swagger-ui"></div>
<script>${safeScript(offlineBundle(asset('swagger-ui-dist', 'swagger-ui-bundle.js')))}</script>
<script>window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', persistAuthorization: true, validatorUrl: null });</script></body></html>`;
  return swaggerHtml;
}

/*
 * Nothing on the docs pages may be fetched from outside the machine: ReDoc's bundle shows its maker's logo from a CDN
 * (an empty local image instead; the CSP would block it anyway, but the browser still tries), and Swagger UI sends the
 * spec's URL to validator.swagger.io for its badge (no default validator, and validatorUrl null).
 */
const EMPTY_SVG = 'data:image/svg+xml,%3Csvg xmlns=%22http://www.w3.org/2000/svg%22/%3E';
const offlineBundle = (js: string) =>
  js.replace(/https:\/\/cdn\.redoc\.ly\/[^"'`\s]*/g, EMPTY_SVG).replace(/https:\/\/validator\.swagger\.io\/validator/g, '');

function redocPage(): string {
  redocHtml ??= `<!doctype html><html><head><meta charset="utf-8"><title>Planning Platform API</title></head><body><div id="redoc"></div>
<script>${safeScript(offlineBundle(asset('redoc', 'bundles/redoc.standalone.js')))}</script>
<script>Redoc.init('/openapi.json', {}, document.getElementById('redoc'));</script></body></html>`;
  return redocHtml;
}

const DOCS_CSP = "default-src 'self'; script-src 'self' 'unsafe-inline' 'unsafe-eval'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; worker-src 'self' blob:; font-src 'self' data:";

export function registerDocsRoutes(table: RouteTable): void {
  let cached: Record<string, unknown> | undefined;
  defineRoute(table, {
    method: 'get', path: '/openapi.json', tag: 'docs', permission: 'public', needsCache: false,
    summary: 'This OpenAPI 3.1 document',
    responses: { 200: { description: 'OpenAPI document', schema: { type: 'object', required: ['openapi', 'paths'] } } },
    handler: () => (cached ??= buildOpenApi(table)),
  });
  for (const [p, page, title] of [['/docs', swaggerPage, 'Swagger UI'], ['/redoc', redocPage, 'ReDoc']] as const) {
    defineRoute(table, {
      method: 'get', path: p, tag: 'docs', permission: 'public', needsCache: false,
      summary: `Interactive API documentation (${title})`,
      responses: { 200: { description: 'HTML page', contentType: 'text/html', schema: { type: 'string' } } },
      handler: (ctx) => {
        ctx.type = 'text/html';
        ctx.set('Content-Security-Policy', DOCS_CSP);
        return page();
      },
    });
  }
}
