import type { ValidateFunction } from 'ajv';
import { PARAMETER_DEFAULTS, type ParameterTypeCatalogue } from '../../../domain/parameters/defaults';
import { badRequest } from '../../errors';
import { compile, describeError } from '../validation';

const validators = new Map<string, ValidateFunction>();

function validatorOf(cacheKey: string, schema: Record<string, unknown>): ValidateFunction {
  let v = validators.get(cacheKey);
  if (!v) {
    v = compile('body', schema);
    validators.set(cacheKey, v);
  }
  return v;
}

/**
 * Checks a partial values object against a catalogue section: an unknown key or a value its schema refuses is a 400
 * naming the field (`body.values: unknown key 'windw' for parameter type 'outlier' (known: ...)`,
 * `body.values.window must be integer`). `prefix` maps a key to its catalogue key (method hyperparameters).
 */
export function checkValues(where: string, values: Record<string, unknown>, section: ParameterTypeCatalogue, what: string, prefix = ''): void {
  for (const [key, value] of Object.entries(values)) {
    const def = section[`${prefix}${key}`];
    if (!def) {
      const known = Object.keys(section).filter((k) => k.startsWith(prefix)).map((k) => k.slice(prefix.length));
      throw badRequest(`${where}: unknown key '${key}' for ${what} (known: ${known.join(', ') || 'none'})`);
    }
    const validate = validatorOf(`${what}|${prefix}${key}`, def.schema);
    if (!validate(value)) throw badRequest(describeError('body', validate.errors![0]).replace(/^body/, `${where}.${key}`));
  }
}

/** Values of a parameter set of `type` (the type itself is checked by the route schema). */
export function checkSetValues(type: string, values: Record<string, unknown>, where = 'body.values'): void {
  checkValues(where, values, PARAMETER_DEFAULTS[type], `parameter type '${type}'`);
}
