import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

export type JsonSchema = Record<string, unknown>;

/** Bodies are validated as sent; path and query strings are coerced to the schema's types first. */
const bodyAjv = new Ajv2020({ allErrors: false, strict: false, useDefaults: true });
const stringAjv = new Ajv2020({ allErrors: false, strict: false, useDefaults: true, coerceTypes: 'array' });
const responseAjv = new Ajv2020({ allErrors: true, strict: false });
for (const a of [bodyAjv, stringAjv, responseAjv]) addFormats(a);

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

/** One sentence that names the offending field, for `{detail}`. */
export function describeError(where: Where, err: ErrorObject): string {
  const field = fieldName(where, err);
  const p = err.params as Record<string, unknown>;
  switch (err.keyword) {
    case 'additionalProperties':
      return `${field}: unknown field '${String(p.additionalProperty)}'`;
    case 'required':
      return `${field}.${String(p.missingProperty)} is required`;
    case 'enum':
      return `${field} must be one of: ${(p.allowedValues as unknown[]).map(String).join(', ')}`;
    case 'type':
      return `${field} must be ${String(p.type)}`;
    default:
      return `${field} ${err.message ?? 'is invalid'}`;
  }
}
