import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

export type JsonSchema = Record<string, unknown>;

/**
 * Bodies are validated as sent; path and query strings are coerced to the schema's types first. Verbose, so an error
 * carries the value and its schema: an enum's `x-instead` (see describeError) answers a refused value by name.
 */
/**
 * Without ajv's optimisation pass (`code.optimize`), which only drops redundant lines from the generated code: on our
 * 446 input and 2,607 response schemas it took about 60 % of compiling them (its name bookkeeping grows with a schema's
 * size), and every process and test file compiles the ones it uses. The validators accept and refuse the same values.
 */
const code = { optimize: false };
const bodyAjv = new Ajv2020({ allErrors: false, strict: false, useDefaults: true, verbose: true, code });
const stringAjv = new Ajv2020({ allErrors: false, strict: false, useDefaults: true, coerceTypes: 'array', verbose: true, code });
const responseAjv = new Ajv2020({ allErrors: true, strict: false, code });
for (const a of [bodyAjv, stringAjv, responseAjv]) addFormats(a);

/**
 * `format: date` is a date PostgreSQL stores: RFC 3339's full-date admits year 0000, which PostgreSQL refuses (and
 * JavaScript reads as 1 BC), so the published format and the check would otherwise disagree with the database.
 */
const fullDate = /^(\d{4})-(\d{2})-(\d{2})$/;
export function isCalendarDate(s: string): boolean {
  const m = fullDate.exec(s);
  if (!m || m[1] === '0000') return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
  return days !== undefined && day >= 1 && day <= days;
}
for (const a of [bodyAjv, stringAjv]) a.addFormat('date', { type: 'string', validate: isCalendarDate });

export type Where = 'body' | 'query' | 'path';

export function compile(where: Where, schema: JsonSchema): ValidateFunction {
  return (where === 'body' ? bodyAjv : stringAjv).compile(schema);
}

export function compileResponse(schema: JsonSchema): ValidateFunction {
  return responseAjv.compile(schema);
}

function fieldName(where: Where, err: ErrorObject): string {
  const pointer = err.instancePath
    .split('/')
    .slice(1)
    .map((p) => (/^\d+$/.test(p) ? `[${p}]` : `.${p}`))
    .join('');
  return `${where}${pointer}`;
}

/**
 * Keys that reach Object.prototype when a body is merged or copied with plain assignment; no field of the API is
 * named so, and free-form objects (settings, attributes) are stored and merged, so they are refused everywhere.
 */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
/** Bodies nest a few levels; the limit keeps recursive code further down (ajv, JSON.stringify, jsonb) off the stack edge. */
export const MAX_DEPTH = 32;
const NUL = /\u0000/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Why PostgreSQL would refuse this string as text or jsonb, or undefined when it would not. */
export function textProblem(s: string): string | undefined {
  if (NUL.test(s)) return 'must not contain the NUL character (\\u0000)';
  // Node would encode a lone surrogate as U+FFFD, so what was stored would silently differ from what was sent.
  if (LONE_SURROGATE.test(s)) return 'must not contain a lone UTF-16 surrogate (not valid Unicode)';
  return undefined;
}

const printableKey = (k: string) => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(k) ? `.${k}` : `[${JSON.stringify(k)}]`);

/**
 * The checks every input gets before its schema, whatever the route: text PostgreSQL can store, no prototype keys,
 * bounded nesting. Iterative, so a deeply nested body cannot overflow the stack here. The answer names the field.
 */
export function checkInputText(where: Where, value: unknown): string | undefined {
  // `key` is checked when its entry is reached, so the first problem in document order is the one reported.
  const stack: Array<{ v: unknown; field: string; depth: number; parent?: string; key?: string }> = [{ v: value, field: where, depth: 0 }];
  while (stack.length) {
    const { v, field, depth, parent, key } = stack.pop()!;
    if (key !== undefined) {
      if (FORBIDDEN_KEYS.has(key)) return `${parent}: key '${key}' is not allowed`;
      const problem = textProblem(key);
      if (problem) return `${parent}: a key ${problem}`;
    }
    if (typeof v === 'string') {
      const problem = textProblem(v);
      if (problem) return `${field}: ${problem}`;
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (depth >= MAX_DEPTH) return `${field}: nested more than ${MAX_DEPTH} levels deep`;
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i -= 1) stack.push({ v: v[i], field: `${field}[${i}]`, depth: depth + 1 });
      continue;
    }
    const keys = Object.keys(v);
    for (let i = keys.length - 1; i >= 0; i -= 1) {
      const k = keys[i];
      stack.push({ v: (v as Record<string, unknown>)[k], field: `${field}${printableKey(k)}`, depth: depth + 1, parent: field, key: k });
    }
  }
  return undefined;
}

/**
 * `x-refusal` on a schema: the sentence that answers any value it refuses, for rules whose keywords alone would give
 * a 400 no reader understands (a pattern of case-insensitive names, `not`, `if`/`then` between fields). `{value}` is
 * replaced by the value sent. The innermost such schema on the error's path answers, naming the value that schema
 * describes (a rule on an object names the object, whichever of its fields failed), or `x-field` of that object.
 */
interface Refusal {
  'x-refusal': string;
  'x-field'?: string;
}

/** Keywords whose next path segment names a subschema of a child value (a property, an array position). */
const CHILD_BY_NAME = new Set(['properties', 'patternProperties', 'prefixItems']);
const CHILD = new Set(['items', 'additionalProperties', 'contains', 'unevaluatedItems', 'unevaluatedProperties']);
/** Keywords whose next path segment picks a subschema of the same value. */
const SAME_BY_NAME = new Set(['allOf', 'anyOf', 'oneOf', 'dependentSchemas', '$defs', 'definitions']);

function refusalOf(root: unknown, err: ErrorObject): { refusal: Refusal; depth: number } | undefined {
  const has = (n: unknown): n is Refusal => !!n && typeof n === 'object' && typeof (n as Refusal)['x-refusal'] === 'string';
  let found: { refusal: Refusal; depth: number } | undefined;
  let node = root;
  let depth = 0;
  if (has(node)) found = { refusal: node, depth };
  const path = err.schemaPath.replace(/^#\/?/, '').split('/').filter(Boolean).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  const step = (key: string) => {
    node = node && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined;
  };
  for (let i = 0; i < path.length; i += 1) {
    const keyword = path[i];
    step(keyword);
    if (CHILD_BY_NAME.has(keyword) && i + 1 < path.length) {
      i += 1;
      step(path[i]);
      depth += 1;
    } else if (SAME_BY_NAME.has(keyword) && i + 1 < path.length) {
      i += 1;
      step(path[i]);
    } else if (CHILD.has(keyword)) {
      depth += 1;
    }
    if (has(node)) found = { refusal: node, depth };
  }
  if (!found && has(err.parentSchema)) found = { refusal: err.parentSchema, depth: err.instancePath.split('/').length - 1 };
  return found;
}

/** One sentence that names the offending field, for `{detail}`; `root` is the schema validated, for `x-refusal`. */
export function describeError(where: Where, err: ErrorObject, root?: unknown): string {
  const p = err.params as Record<string, unknown>;
  const found = refusalOf(root, err);
  if (found) {
    const { refusal, depth } = found;
    const at = fieldName(where, { ...err, instancePath: err.instancePath.split('/').slice(0, depth + 1).join('/') });
    const value = typeof err.data === 'string' ? err.data : JSON.stringify(err.data);
    return `${at}${refusal['x-field'] ? `.${refusal['x-field']}` : ''}: ${refusal['x-refusal'].replace('{value}', value)}`;
  }
  const field = fieldName(where, err);
  switch (err.keyword) {
    case 'additionalProperties':
      return `${field}: unknown field '${String(p.additionalProperty)}'`;
    case 'required':
      return `${field}.${String(p.missingProperty)} is required`;
    case 'enum': {
      // `x-instead` on an enum: refused names users are known to send (upper case), each with what to send instead.
      const instead = (err.parentSchema as { 'x-instead'?: Record<string, string> } | undefined)?.['x-instead'];
      const name = typeof err.data === 'string' ? err.data.trim().toUpperCase() : '';
      const reason = instead && Object.prototype.hasOwnProperty.call(instead, name) ? instead[name] : undefined;
      return reason ? `${field}: ${reason}` : `${field} must be one of: ${(p.allowedValues as unknown[]).map(String).join(', ')}`;
    }
    case 'type':
      return `${field} must be ${String(p.type)}`;
    case 'const':
      return `${field} must be ${JSON.stringify(p.allowedValue)}`;
    case 'false schema':
      return `${field} is not taken together with the other fields sent`;
    default:
      return `${field} ${err.message ?? 'is invalid'}`;
  }
}
