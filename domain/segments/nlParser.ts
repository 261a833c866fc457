/**
 * Deterministic parser from a planner's sentence to segment rules, used when no language model is configured.
 * It only emits rules on fields of the catalogue it is given, and reports the words it did not understand.
 *
 * Understood phrasing (case-insensitive unless noted):
 * - demand classes: "smooth", "erratic", "intermittent", "lumpy", joined by or/and/commas → demand_class = / in;
 * - ABC classes (capital letters, as labels are written): "A items", "A or B items", "class A" → abc:<config> of the
 *   first active configuration (lowest id) whose labels include them;
 * - sites: "at site DC1", "at DC1", "in DC1 or DC2" (site code or name) and site types: "at stores" (singular or
 *   plural of a site_type value);
 * - comparisons: "<field> over|above|more than|greater than|at least|under|below|less than|at most|equal to|of|between
 *   <n> [and <m>]" for unit price, unit cost, mean/average demand, total demand/volume, zero ratio, ADI, CoV, and
 *   numeric attributes by name; "more than 52 weeks of history" / "fewer than 10 observations";
 * - "without price" / "no price" → unit_price = 0;
 * - "best method croston" → best_method = croston;
 * - string attribute values present in the data (and site types) named anywhere → attribute = value.
 */
import { DEMAND_CLASSES } from './fields';
import type { FieldDef, Rule } from './rules';

export interface SiteRef {
  xuid: string;
  name: string;
  site_type: string | null;
}

export interface AbcRef {
  id: number;
  name: string;
  class_labels: string[];
  is_active: boolean;
}

export interface ParseContext {
  fields: FieldDef[];
  sites?: SiteRef[];
  abc?: AbcRef[];
}

export interface ParseResult {
  rules: Rule[];
  /** words that were not understood (stop words excluded) */
  unparsed: string[];
  /** notes about phrases that were understood but could not be mapped (e.g. no ABC configuration) */
  warnings: string[];
}

const NUM = String.raw`(-?\d+(?:[.,]\d+)?)`;
const OPS: Array<[RegExp, Rule['operator']]> = [
  [/^(over|above|more than|greater than|higher than|exceeding|>)$/, '>'],
  [/^(at least|>=|no less than|minimum|min)$/, '>='],
  [/^(under|below|less than|lower than|fewer than|<)$/, '<'],
  [/^(at most|<=|no more than|maximum|max|up to)$/, '<='],
  [/^(equal to|equals|=|of|exactly)$/, '='],
];
const OP_WORDS = String.raw`(over|above|more than|greater than|higher than|exceeding|at least|no less than|under|below|less than|lower than|fewer than|at most|no more than|up to|equal to|equals|exactly|of|>=|<=|>|<|=|between)`;

const STOP = new Set([
  'a', 'an', 'the', 'all', 'any', 'and', 'or', 'with', 'without', 'that', 'which', 'where', 'whose', 'have', 'has', 'having', 'are', 'is', 'be',
  'items', 'item', 'series', 'parts', 'part', 'products', 'product', 'skus', 'sku', 'demand', 'demands', 'pattern', 'patterns', 'at', 'in', 'for', 'of',
  'site', 'sites', 'location', 'locations', 'show', 'me', 'list', 'find', 'get', 'select', 'only', 'those', 'by', 'on', 'to', 'from', 'class', 'classes',
]);

const NUMERIC_PHRASES: Array<[string, string]> = [
  ['average unit cost', 'avg_unit_cost'], ['avg unit cost', 'avg_unit_cost'], ['unit cost', 'avg_unit_cost'], ['cost', 'avg_unit_cost'],
  ['unit price', 'unit_price'], ['selling price', 'unit_price'], ['price', 'unit_price'],
  ['mean weekly demand', 'mean'], ['average weekly demand', 'mean'], ['mean demand', 'mean'], ['average demand', 'mean'], ['weekly demand', 'mean'],
  ['total demand', 'total_demand'], ['volume', 'total_demand'], ['demand', 'total_demand'],
  ['zero ratio', 'zero_ratio'], ['share of zero weeks', 'zero_ratio'], ['adi', 'adi'], ['average demand interval', 'adi'],
  ['coefficient of variation', 'cov'], ['cov', 'cov'], ['cv', 'cov'],
  ['weeks of history', 'n_observations'], ['history', 'n_observations'], ['observations', 'n_observations'],
];

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const singular = (w: string) => w.toLowerCase().replace(/(ies)$/, 'y').replace(/(s)$/, '');

class Text {
  private used: boolean[];
  private rejected = false;
  constructor(readonly text: string) {
    this.used = new Array(text.length).fill(false);
  }
  /** Matches of re over free text; each accepted match marks its span as used. */
  *take(re: RegExp): Generator<RegExpExecArray> {
    const g = new RegExp(re.source, re.flags.includes('g') ? re.flags : `${re.flags}g`);
    // Used spans are masked, so a pattern can neither match them nor run across them.
    const masked = this.text.split('').map((c, i) => (this.used[i] ? '\u0000' : c)).join('');
    let m: RegExpExecArray | null;
    while ((m = g.exec(masked))) {
      if (m[0].length === 0) {
        g.lastIndex += 1;
        continue;
      }
      const from = m.index;
      const to = from + m[0].length;
      if (this.used.slice(from, to).some(Boolean)) continue;
      this.rejected = false;
      yield m;
      if (!this.rejected) this.used.fill(true, from, to);
    }
  }
  /** Called inside a take() loop: the current match is not consumed. */
  reject(): void {
    this.rejected = true;
  }
  leftovers(): string[] {
    const words: string[] = [];
    for (const m of this.text.matchAll(/[^\s,.;:!?()"']+/g)) {
      if (this.used.slice(m.index!, m.index! + m[0].length).some(Boolean)) continue;
      if (!STOP.has(m[0].toLowerCase())) words.push(m[0]);
    }
    return words;
  }
}

const toNumber = (s: string) => Number(s.replace(',', '.'));

export function parseDescription(description: string, ctx: ParseContext): ParseResult {
  const fields = new Map(ctx.fields.map((f) => [f.field, f]));
  const has = (f: string) => fields.has(f);
  const t = new Text(description);
  const rules: Rule[] = [];
  const warnings: string[] = [];
  const push = (r: Rule) => {
    if (has(r.field)) rules.push(r);
  };

  // "without price" / "no price"
  for (const _m of t.take(/\b(?:without|no|missing)\s+(?:a\s+)?(?:unit\s+)?price\b/i)) push({ field: 'unit_price', operator: '=', value: 0 });

  // demand classes
  const cls = DEMAND_CLASSES.join('|');
  for (const m of t.take(new RegExp(String.raw`\b(${cls})\b(?:\s*(?:,|/|\bor\b|\band\b|,\s*or\b)\s*\b(?:${cls})\b)*`, 'i'))) {
    const found = [...new Set([...m[0].matchAll(new RegExp(cls, 'gi'))].map((x) => x[0].toLowerCase()))];
    push(found.length === 1 ? { field: 'demand_class', operator: '=', value: found[0] } : { field: 'demand_class', operator: 'in', value: found });
  }

  // numeric comparisons "<field> <op> <n> [and <m>]"
  const numericPhrases: Array<[string, string]> = [...NUMERIC_PHRASES];
  for (const f of ctx.fields) {
    if ((f.source === 'item_attribute' || f.source === 'site_attribute') && f.type === 'number') {
      const key = f.field.slice(f.field.indexOf('.') + 1);
      numericPhrases.unshift([key.replace(/[_-]+/g, ' ').toLowerCase(), f.field]);
    }
  }
  numericPhrases.sort((a, b) => b[0].length - a[0].length);
  const phraseRe = numericPhrases.map(([p]) => escapeRe(p).replace(/ /g, String.raw`\s+`)).join('|');
  const cmp = new RegExp(String.raw`\b(${phraseRe})\s+(?:is\s+|of\s+|which\s+is\s+)?${OP_WORDS}\s*${NUM}(?:\s*(?:and|to|-)\s*${NUM})?`, 'i');
  for (const m of t.take(cmp)) {
    const phrase = m[1].toLowerCase().replace(/\s+/g, ' ');
    const field = numericPhrases.find(([p]) => p === phrase)?.[1];
    if (!field) continue;
    const rule = comparison(m[2].toLowerCase(), toNumber(m[3]), m[4] === undefined ? undefined : toNumber(m[4]), field);
    if (rule) push(rule);
  }
  // "more than 52 weeks of history", "fewer than 10 observations"
  for (const m of t.take(new RegExp(String.raw`${OP_WORDS}\s*${NUM}(?:\s*(?:and|to|-)\s*${NUM})?\s+(?:weeks?(?:\s+of\s+history)?|observations)\b`, 'i'))) {
    const rule = comparison(m[1].toLowerCase(), toNumber(m[2]), m[3] === undefined ? undefined : toNumber(m[3]), 'n_observations');
    if (rule) push(rule);
  }

  // best method
  for (const m of t.take(/\bbest\s+method\s+(?:is\s+)?([a-z_]+)\b/i)) push({ field: 'best_method', operator: '=', value: m[1].toLowerCase() });

  // ABC classes: capital labels before items/series, or after "class"
  const abcConfigs = [...(ctx.abc ?? [])].sort((a, b) => Number(b.is_active) - Number(a.is_active) || a.id - b.id);
  const abcRes = [
    /\b([A-Z])((?:\s*(?:,|\/|or|and)\s*[A-Z])*)[- ](?:class\s+)?(?:items?|series|parts?|products?|skus?)\b/,
    /\b(?:ABC\s+)?class(?:es)?\s+([A-Z])((?:\s*(?:,|\/|or|and)\s*[A-Z])*)\b/,
  ];
  for (const re of abcRes) {
    for (const m of t.take(re)) {
      const labels = [m[1], ...[...(m[2] ?? '').matchAll(/[A-Z]/g)].map((x) => x[0])];
      const config = abcConfigs.find((c) => labels.every((l) => c.class_labels.includes(l)) && has(`abc:${c.name}`));
      if (!config) {
        warnings.push(`'${m[0].trim()}': no ABC configuration has class ${labels.join(', ')}`);
        continue;
      }
      push(labels.length === 1 ? { field: `abc:${config.name}`, operator: '=', value: labels[0] } : { field: `abc:${config.name}`, operator: 'in', value: labels });
    }
  }

  // sites and site types
  const sites = ctx.sites ?? [];
  const siteTypes = [...new Set(sites.map((s) => s.site_type).filter((x): x is string => Boolean(x)))];
  const token = String.raw`[A-Za-z0-9_.\-]+`;
  const siteRe = new RegExp(String.raw`\b(?:at|in|for|from)\s+(?:the\s+)?(?:(site|location|warehouse)s?\s+)?(${token})((?:\s*(?:,|or|and)\s*${token})*)`, 'i');
  for (const m of t.take(siteRe)) {
    const names = [m[2], ...[...(m[3] ?? '').matchAll(new RegExp(token, 'g'))].map((x) => x[0]).filter((w) => !/^(or|and)$/i.test(w))];
    const explicit = Boolean(m[1]);
    const codes: string[] = [];
    const types: string[] = [];
    let ok = true;
    for (const n of names) {
      const site = sites.find((s) => s.xuid.toLowerCase() === n.toLowerCase()) ?? sites.find((s) => s.name.toLowerCase() === n.toLowerCase());
      const type = siteTypes.find((st) => singular(st) === singular(n));
      if (site) codes.push(site.xuid);
      else if (type && !explicit) types.push(type);
      else if (explicit) codes.push(n);
      else ok = false;
    }
    if (!ok || (codes.length && types.length)) {
      t.reject();
      continue;
    }
    if (codes.length) push(codes.length === 1 ? { field: 'site_xuid', operator: '=', value: codes[0] } : { field: 'site_xuid', operator: 'in', value: codes });
    if (types.length) push(types.length === 1 ? { field: 'site_type', operator: '=', value: types[0] } : { field: 'site_type', operator: 'in', value: types });
  }

  // string attribute values (and site types) named anywhere
  for (const f of ctx.fields) {
    if (f.type !== 'string' || !f.values?.length || !(f.source === 'item_attribute' || f.source === 'site_attribute' || f.field === 'site_type')) continue;
    const values = (f.values as unknown[]).filter((v): v is string => typeof v === 'string' && v.trim().length >= 2 && !STOP.has(v.toLowerCase()));
    values.sort((a, b) => b.length - a.length);
    for (const v of values) {
      const re = new RegExp(String.raw`(?<![\w-])${escapeRe(v).replace(/\s+/g, String.raw`\s+`)}(?:s|es)?(?![\w-])`, 'i');
      for (const _m of t.take(re)) {
        if (!rules.some((r) => r.field === f.field && r.value === v)) push({ field: f.field, operator: '=', value: v });
      }
    }
  }

  return { rules: merge(rules), unparsed: t.leftovers(), warnings };
}

function comparison(opWord: string, a: number, b: number | undefined, field: string): Rule | null {
  if (opWord === 'between' || b !== undefined) {
    if (b === undefined) return null;
    return { field, operator: 'between', value: [Math.min(a, b), Math.max(a, b)] };
  }
  const op = OPS.find(([re]) => re.test(opWord))?.[1];
  return op ? { field, operator: op, value: a } : null;
}

/** The same field and operator twice with `=`/`in` become one `in`; exact duplicates go. */
function merge(rules: Rule[]): Rule[] {
  const out: Rule[] = [];
  for (const r of rules) {
    if (out.some((o) => JSON.stringify(o) === JSON.stringify(r))) continue;
    out.push(r);
  }
  return out;
}
