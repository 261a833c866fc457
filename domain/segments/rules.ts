/**
 * Segment rules: `{field, operator, value}`, AND-combined. Pure: the field catalogue comes in as data, so the API
 * (which translates rules to SQL), the natural-language parser and the tests share one definition of what a valid
 * rule is and what it means.
 *
 * Semantics (the SQL translation in db/segments.ts follows them exactly):
 * - strings compare case-insensitively (`=`, `!=`, `in`, `not in`, `contains` = substring);
 * - dates are `YYYY-MM-DD` strings and compare in calendar order;
 * - `between` takes `[low, high]`, both inclusive;
 * - `is null` takes `true` (or no value) for "has no value" and `false` for "has a value";
 * - every other operator is false on a missing value (as SQL comparisons with NULL are), `!=` and `not in` included.
 */

export type FieldType = 'number' | 'string' | 'date' | 'boolean';

export const OPERATORS = ['=', '!=', '<', '<=', '>', '>=', 'in', 'not in', 'contains', 'between', 'is null'] as const;
export type Operator = (typeof OPERATORS)[number];

/** Which operators apply to which field type. */
export const OPERATORS_BY_TYPE: Record<FieldType, Operator[]> = {
  number: ['=', '!=', '<', '<=', '>', '>=', 'in', 'not in', 'between', 'is null'],
  date: ['=', '!=', '<', '<=', '>', '>=', 'in', 'not in', 'between', 'is null'],
  string: ['=', '!=', 'in', 'not in', 'contains', 'is null'],
  boolean: ['=', '!=', 'is null'],
};

export type FieldSource = 'series' | 'item' | 'site' | 'item_attribute' | 'site_attribute' | 'abc' | 'method';

export interface FieldDef {
  field: string;
  type: FieldType;
  source: FieldSource;
  label: string;
  description?: string;
  operators: Operator[];
  /** known values (ABC class labels, demand classes, small sets of attribute values), when there are few */
  values?: Array<string | number | boolean>;
}

export type RuleValue = string | number | boolean | null | Array<string | number | boolean>;

export interface Rule {
  field: string;
  operator: Operator;
  value?: RuleValue;
}

export class RuleError extends Error {
  constructor(
    public readonly index: number,
    public readonly reason: string,
    prefix = 'rules',
  ) {
    super(`${prefix}[${index}]: ${reason}`);
  }
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

export function isIsoDate(v: unknown): v is string {
  if (typeof v !== 'string' || !DATE.test(v)) return false;
  const d = new Date(`${v}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === v;
}

function scalarOk(type: FieldType, v: unknown): boolean {
  switch (type) {
    case 'number':
      return typeof v === 'number' && Number.isFinite(v);
    case 'string':
      return typeof v === 'string';
    case 'date':
      return isIsoDate(v);
    case 'boolean':
      return typeof v === 'boolean';
  }
}

export const typeWord: Record<FieldType, string> = { number: 'a number', string: 'a string', date: "a date 'YYYY-MM-DD'", boolean: 'true or false' };

/** Checks one rule against the catalogue; the message names the field, operator and what the value must be. */
export function checkRule(rule: Rule, fields: Map<string, FieldDef>, index: number, prefix = 'rules'): FieldDef {
  const fail = (reason: string) => new RuleError(index, reason, prefix);
  if (!rule || typeof rule !== 'object') throw fail('must be an object {field, operator, value}');
  const def = fields.get(rule.field);
  if (!def) throw fail(`unknown field '${rule.field}' (GET /api/segments/fields lists the fields)`);
  if (!(OPERATORS as readonly string[]).includes(rule.operator)) throw fail(`unknown operator '${rule.operator}'`);
  if (!def.operators.includes(rule.operator)) {
    throw fail(`operator '${rule.operator}' does not apply to field '${def.field}' of type ${def.type} (allowed: ${def.operators.join(', ')})`);
  }
  const v = rule.value;
  switch (rule.operator) {
    case 'is null':
      if (v !== undefined && v !== null && typeof v !== 'boolean') throw fail(`value of 'is null' must be true, false or absent`);
      break;
    case 'in':
    case 'not in':
      if (!Array.isArray(v) || v.length === 0) throw fail(`value of '${rule.operator}' must be a non-empty list of ${def.type} values for field '${def.field}'`);
      v.forEach((x, i) => {
        if (!scalarOk(def.type, x)) throw fail(`value[${i}] must be ${typeWord[def.type]} for field '${def.field}' (type ${def.type})`);
      });
      break;
    case 'between':
      if (!Array.isArray(v) || v.length !== 2 || !v.every((x) => scalarOk(def.type, x))) {
        throw fail(`value of 'between' must be [low, high], each ${typeWord[def.type]}, for field '${def.field}'`);
      }
      if (compare(def.type, v[0], v[1]) > 0) throw fail(`'between' needs low <= high (got [${v.map(String).join(', ')}])`);
      break;
    default:
      if (!scalarOk(def.type, v)) throw fail(`value must be ${typeWord[def.type]} for field '${def.field}' (type ${def.type})`);
  }
  return def;
}

/** Validates every rule; the first problem throws a RuleError naming its index. */
export function checkRules(rules: Rule[], fields: FieldDef[] | Map<string, FieldDef>, prefix = 'rules'): FieldDef[] {
  const map = fields instanceof Map ? fields : new Map(fields.map((f) => [f.field, f]));
  return rules.map((r, i) => checkRule(r, map, i, prefix));
}

function compare(type: FieldType, a: unknown, b: unknown): number {
  if (type === 'number') return (a as number) - (b as number);
  const x = String(a);
  const y = String(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

const norm = (type: FieldType, v: unknown) => (type === 'string' ? String(v).toLowerCase() : v);

/** A value of a series for one field: numbers, strings, `YYYY-MM-DD` dates, booleans, or null when missing. */
export type FactValue = number | string | boolean | null | undefined;

/** Evaluates one validated rule against a series' value of its field. */
export function evaluateRule(rule: Rule, def: FieldDef, value: FactValue): boolean {
  const missing = value === null || value === undefined || (typeof value === 'number' && Number.isNaN(value));
  if (rule.operator === 'is null') return rule.value === false ? !missing : missing;
  if (missing) return false;
  const t = def.type;
  const x = norm(t, value);
  switch (rule.operator) {
    case '=':
      return x === norm(t, rule.value);
    case '!=':
      return x !== norm(t, rule.value);
    case '<':
      return compare(t, value, rule.value) < 0;
    case '<=':
      return compare(t, value, rule.value) <= 0;
    case '>':
      return compare(t, value, rule.value) > 0;
    case '>=':
      return compare(t, value, rule.value) >= 0;
    case 'in':
      return (rule.value as unknown[]).some((v) => norm(t, v) === x);
    case 'not in':
      return !(rule.value as unknown[]).some((v) => norm(t, v) === x);
    case 'contains':
      return String(value).toLowerCase().includes(String(rule.value).toLowerCase());
    case 'between': {
      const [lo, hi] = rule.value as unknown[];
      return compare(t, value, lo) >= 0 && compare(t, value, hi) <= 0;
    }
  }
}

/** True when the series (its field values by field name) satisfies every rule; no rules match everything. */
export function matchesAll(rules: Rule[], fields: FieldDef[] | Map<string, FieldDef>, facts: Record<string, FactValue>): boolean {
  const map = fields instanceof Map ? fields : new Map(fields.map((f) => [f.field, f]));
  return rules.every((r, i) => evaluateRule(r, checkRule(r, map, i), facts[r.field]));
}

/** Filters a set of series (each a record of field values) by the rules. */
export function filterSeries<T extends Record<string, FactValue>>(rules: Rule[], fields: FieldDef[], series: T[]): T[] {
  const map = new Map(fields.map((f) => [f.field, f]));
  const defs = checkRules(rules, map);
  return series.filter((s) => rules.every((r, i) => evaluateRule(r, defs[i], s[r.field])));
}
