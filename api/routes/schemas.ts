import type { JsonSchema } from './validation';

/** Shared schema pieces; every area's schemas.ts builds on these. */
export const errorSchema: JsonSchema = {
  type: 'object',
  required: ['detail'],
  properties: { detail: { type: 'string' } },
};

/**
 * The largest value of an int4 column. Every integer a client sends has a maximum (test/api/badInput.test.ts walks
 * the route table): without one, 1e30 passes ajv and PostgreSQL refuses it, a 500 instead of a 400.
 */
export const INT4_MAX = 2147483647;

/** An integer that fits an int4 column (ids, counts, weeks). */
export const int4 = (minimum = 0, extra: JsonSchema = {}): JsonSchema => ({ type: 'integer', minimum, maximum: INT4_MAX, ...extra });

/** `skip` / `offset` of a paged list: OFFSET takes a bigint, but no table here holds more than int4 rows. */
export const skipParam: JsonSchema = int4(0, { default: 0, description: 'rows to skip' });

export const idParam = (name = 'id'): JsonSchema => ({
  type: 'object',
  required: [name],
  additionalProperties: false,
  properties: { [name]: int4(1) },
});

export const obj = (properties: Record<string, JsonSchema>, required: string[] = [], extra: JsonSchema = {}): JsonSchema => ({
  type: 'object',
  additionalProperties: false,
  properties,
  required,
  ...extra,
});

/** A response object: documented fields, extra fields allowed (clients must ignore what they do not know). */
export const out = (properties: Record<string, JsonSchema>, required: string[] = Object.keys(properties)): JsonSchema => ({
  type: 'object',
  properties,
  required,
});

export const okSchema: JsonSchema = out({ status: { type: 'string' }, detail: { type: 'string' } }, ['status']);

export const errors = (...codes: number[]) =>
  Object.fromEntries(codes.map((c) => [c, { description: ERROR_TEXT[c] ?? 'Error', schema: errorSchema }]));

const ERROR_TEXT: Record<number, string> = {
  400: 'Invalid body or parameters; `detail` names the field',
  401: 'Missing, invalid, expired or revoked token',
  403: 'Authenticated but lacking role or permission',
  404: 'Not found',
  409: 'Conflict with the current state',
  413: 'Request body too large',
  415: 'Unsupported content type (send application/json)',
  429: 'Too many attempts',
  500: 'Internal error (no details are exposed)',
  503: 'Data cache loading or database unavailable; retry after the Retry-After seconds',
};

export const nullable = (schema: JsonSchema): JsonSchema => ({ anyOf: [schema, { type: 'null' }] });

/**
 * A name taken in any case (spaces around it trimmed), as a pattern: an enum would list one spelling and refuse the
 * others the handler takes, a plain string admits every value, so a generated client or a fuzzer could send neither.
 * `refusal` answers any other value (`{value}` is the value sent; see x-refusal in validation.ts).
 */
export function anyCase(names: readonly string[], refusal: string, extra: JsonSchema = {}): JsonSchema {
  const letters = (n: string) => [...n].map((c) => (/[a-z]/i.test(c) ? `[${c.toUpperCase()}${c.toLowerCase()}]` : c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('');
  return { type: 'string', pattern: `^[ ]*(?:${names.map(letters).join('|')})[ ]*$`, 'x-refusal': refusal, ...extra };
}

/** A value other than null: the test of "this field is sent" for nullable fields, where null means not set. */
export const sent = (field: string): JsonSchema => ({ required: [field], properties: { [field]: { not: { type: 'null' } } } });

/** Body rule: when `a` is sent (not null), `b` must not be, answered by `message` naming `b`. */
export const notBoth = (a: string, b: string, message: string): JsonSchema => ({
  if: sent(a),
  then: { properties: { [b]: { type: 'null', 'x-refusal': message } } },
});

/** Body rule: at least one of `fields` is sent (not null), answered by `message` naming the first. */
export const oneOfSent = (fields: string[], message: string): JsonSchema => ({
  anyOf: fields.map(sent),
  'x-refusal': message,
  'x-field': fields[0],
});

/**
 * A week key: a calendar date that is a Monday. JSON Schema has no weekday keyword and a pattern cannot tell
 * weekdays, so the schema says `format: date`, the description says Monday and the handler answers another weekday
 * with a 400 naming that week's Monday (docs/API.md "Monday dates"); the example is a Monday, so a client or fuzzer
 * that starts from the examples sends one the handler takes.
 */
export const mondayDate = (description: string, example = '2026-06-01'): JsonSchema => ({ type: 'string', format: 'date', description, examples: [example] });
