import type { LinkSpec, ResponseSpec, RouteSpec, RouteTable } from './define';

/**
 * OpenAPI links from one answer to every operation `parameters` chooses (it returns the link's parameters, or
 * undefined for no link). Read when /openapi.json is built, so routes that other modules register later are
 * included without either module naming the other.
 */
export function withLinks(table: RouteTable, response: ResponseSpec, parameters: (r: RouteSpec) => Record<string, string> | undefined): ResponseSpec {
  return Object.defineProperty(response, 'links', {
    enumerable: true,
    get: (): Record<string, LinkSpec> => {
      const links: Record<string, LinkSpec> = {};
      for (const r of table.routes) {
        const p = parameters(r);
        if (p) links[`${r.method}${r.path.replace(/[^A-Za-z0-9]+/g, '_')}`] = { operation: `${r.method.toUpperCase()} ${r.path}`, parameters: p };
      }
      return links;
    },
  });
}

export const pathParams = (path: string) => [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);

const queryProps = (r: RouteSpec) => Object.keys((r.query?.properties as object | undefined) ?? {});

/**
 * The operations on one row: the item path and the paths below it whose only path parameter is the id
 * (`/api/meio/scenarios/{id}/results` as well as `/api/meio/scenarios/{id}`).
 */
export const onItem = (itemPath: string, idParam: string, expression: string) => (r: RouteSpec) =>
  (r.path === itemPath || r.path.startsWith(`${itemPath}/`)) && pathParams(r.path).every((p) => p === idParam) ? { [`path.${idParam}`]: expression } : undefined;

/** The reads (GET) that take `name` in the query and no path parameter, with the other query values given. */
export const readsTaking = (name: string, expression: string, also: Record<string, string> = {}) => (r: RouteSpec) => {
  if (r.method !== 'get' || r.eventStream || pathParams(r.path).length || !queryProps(r).includes(name)) return undefined;
  const extra = Object.fromEntries(Object.entries(also).filter(([k]) => queryProps(r).includes(k)).map(([k, v]) => [`query.${k}`, v]));
  return { [`query.${name}`]: expression, ...extra };
};

/** The first choice that links an operation. */
export const firstOf = (...choices: Array<(r: RouteSpec) => Record<string, string> | undefined>) => (r: RouteSpec) => {
  for (const c of choices) {
    const p = c(r);
    if (p) return p;
  }
  return undefined;
};

/** Every operation whose only path parameter is `name`, wherever it sits (`/api/series/{unique_id}/data`, `/api/forecasts/{unique_id}`). */
export const takingPathParam = (name: string, expression: string) => (r: RouteSpec) =>
  (pathParams(r.path).length === 1 && pathParams(r.path)[0] === name && !r.eventStream ? { [`path.${name}`]: expression } : undefined);

/** Adds the values of the request's own query parameters that the target also takes (the pipeline of a pipeline-scoped list). */
export const withRequestQuery = (names: string[], choice: (r: RouteSpec) => Record<string, string> | undefined) => (r: RouteSpec) => {
  const p = choice(r);
  if (!p) return undefined;
  const extra = Object.fromEntries(names.filter((n) => queryProps(r).includes(n) && !(`query.${n}` in p)).map((n) => [`query.${n}`, `$request.query.${n}`]));
  return { ...p, ...extra };
};
