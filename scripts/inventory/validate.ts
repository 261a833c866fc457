/**
 * Validation of an instance against its model's schema, reduced to one message that names the field, e.g.
 * "lead_time must be >= 0 (got -2)": a planner fixing a file needs the first real problem, not ajv's list of every
 * oneOf branch that did not match.
 */
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import { demandSchema, MODEL_SCHEMAS, type ModelName } from './schemas';

const DEMAND_TYPES = demandSchema.oneOf.map((b) => b.properties.type.const);

export class InputError extends Error {}

const ajv = new Ajv({ allErrors: true, strict: true, discriminator: true });
const compiled = new Map<ModelName, ValidateFunction>();

function validator(model: ModelName): ValidateFunction {
  let v = compiled.get(model);
  if (!v) compiled.set(model, (v = ajv.compile(MODEL_SCHEMAS[model])));
  return v;
}

/** "/stages/2/processing_time" → "stages[2].processing_time" */
export function fieldName(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((acc, p) => (/^\d+$/.test(p) ? `${acc}[${p}]` : acc ? `${acc}.${p}` : p), '');
}

function valueAt(data: unknown, pointer: string): unknown {
  let v: unknown = data;
  for (const p of pointer.split('/').slice(1)) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[p.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return v;
}

function describe(e: ErrorObject, data: unknown): string {
  const field = fieldName(e.instancePath);
  const at = (name: string) => (field ? `${field}.${name}` : name);
  switch (e.keyword) {
    case 'required':
      return `${at(String(e.params.missingProperty))} is required`;
    case 'additionalProperties':
      return `${at(String(e.params.additionalProperty))} is not a field of this model`;
    case 'discriminator': {
      const tag = (valueAt(data, e.instancePath) as { type?: unknown } | null)?.type;
      return tag === undefined ? `${at('type')} is required` : `${at('type')} ${JSON.stringify(tag)} is not one of ${DEMAND_TYPES.join(', ')}`;
    }
    default: {
      const got = valueAt(data, e.instancePath);
      const shown = got === undefined ? '' : ` (got ${JSON.stringify(got)})`;
      return `${field || 'the instance'} ${e.message ?? 'is invalid'}${e.keyword === 'enum' ? `: ${(e.params.allowedValues as unknown[]).join(', ')}` : ''}${shown}`;
    }
  }
}

/**
 * The most telling error: a failed bound or a missing field beats "must be object" from a oneOf branch the value
 * was never meant for; when only type errors remain, the types allowed at that field are listed together.
 */
export function firstProblem(errors: readonly ErrorObject[], data: unknown): string {
  const structural = new Set(['oneOf', 'anyOf', 'type', 'if', 'const']);
  const specific = errors.filter((e) => !structural.has(e.keyword));
  if (specific.length) {
    // the deepest path is the most precise one (a bad pmf entry rather than "lead_time must be object")
    const best = specific.reduce((a, b) => (b.instancePath.split('/').length > a.instancePath.split('/').length ? b : a));
    return describe(best, data);
  }
  const types = errors.filter((e) => e.keyword === 'type');
  if (types.length) {
    const path = types[0].instancePath;
    const allowed = [...new Set(types.filter((e) => e.instancePath === path).flatMap((e) => [e.params.type as string | string[]].flat()))];
    const got = valueAt(data, path);
    return `${fieldName(path) || 'the instance'} must be ${allowed.join(' or ')} (got ${JSON.stringify(got)})`;
  }
  return describe(errors[0], data);
}

/** Throws InputError naming the field when the instance does not fit the model's schema. */
export function validateInstance(model: ModelName, data: unknown): void {
  const v = validator(model);
  if (!v(data)) throw new InputError(`${model}: ${firstProblem(v.errors ?? [], data)}`);
}
