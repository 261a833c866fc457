import type { JsonSchema } from './validation';

/** Shared schema pieces; every area's schemas.ts builds on these. */
export const errorSchema: JsonSchema = {
  type: 'object',
  required: ['detail'],
  properties: { detail: { type: 'string' } },
};

export const idParam = (name = 'id'): JsonSchema => ({
  type: 'object',
  required: [name],
  additionalProperties: false,
  properties: { [name]: { type: 'integer', minimum: 1 } },
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
