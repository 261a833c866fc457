/**
 * The language-model reading of an alert question: the system prompt that lists what the model may use, and the
 * strict check of its answer. No I/O here; api/routes/alerts calls the model (api/llm.ts) and falls back to the
 * offline parser (query.ts) when the model is unavailable or its answer is unusable.
 *
 * The answer is one JSON object of the offline parser's shape:
 * `{metric, value: {op, value}, segment_name, status, severity, demand_class: [...]}`, every field optional or null.
 * A field that does not check out (unknown metric, bad op, a value that is not a finite number, an unknown segment,
 * status, severity or class) is dropped with a warning; the rest is kept. The answer is unusable (→ offline parser)
 * when it is not a JSON object, or when it named something and every field it named was dropped.
 */
import type { DemandClass } from '../characterization/characterize';
import { extractJsonObject } from '../llm/answerJson';
import { SEVERITIES, type Severity } from './ontology';
import { ALERT_STATUSES, DEMAND_CLASSES, STATUS_WORDS, type ParsedAlertQuery, type ValueOp } from './query';

export interface ModelQueryContext {
  rules: ReadonlyArray<{ metric_name: string; description: string; comparison: string; threshold: number }>;
  synonyms: ReadonlyArray<{ term: string; canonical_metric: string }>;
  /** the names of the segments the caller can see */
  segments: readonly string[];
}

const VALUE_OPS: readonly ValueOp[] = ['gt', 'gte', 'lt', 'lte'];
const FIELDS = ['metric', 'value', 'segment_name', 'status', 'severity', 'demand_class'] as const;
/** Prompt lists stay bounded however many segments a tenant has. */
const MAX_SEGMENTS = 200;

export function alertQueryPrompt(ctx: ModelQueryContext): string {
  const synonymsOf = new Map<string, string[]>();
  for (const s of ctx.synonyms) synonymsOf.set(s.canonical_metric, [...(synonymsOf.get(s.canonical_metric) ?? []), s.term]);
  const rules = ctx.rules.map((r) => {
    const syn = synonymsOf.get(r.metric_name)?.sort();
    return `- ${r.metric_name}: ${r.description} (fires when value ${r.comparison} ${r.threshold})${syn?.length ? `; synonyms: ${syn.map((t) => JSON.stringify(t)).join(', ')}` : ''}`;
  });
  const segments = ctx.segments.slice(0, MAX_SEGMENTS).map((n) => JSON.stringify(n));
  return [
    "You turn a demand planner's question about alerts into a filter.",
    'Answer with one JSON object and nothing else:',
    '{"metric": <rule name or null>, "value": {"op": "gt"|"gte"|"lt"|"lte", "value": <number>} or null, "segment_name": <segment or null>, "status": <status or null>, "severity": <severity or null>, "demand_class": [<class>, ...] or null}.',
    'metric is one of these rule names (the words after "synonyms" also name the rule):',
    ...rules,
    'value compares the alert value; metrics are ratios, so a percentage is divided by 100 ("under 90 %" → {"op": "lt", "value": 0.9}).',
    `status: ${ALERT_STATUSES.join(', ')} ("handled" is approved; "corrective action required" is rejected).`,
    `severity: ${SEVERITIES.join(', ')}.`,
    `demand_class: a list of ${DEMAND_CLASSES.join(', ')} (the series' Syntetos-Boylan class).`,
    `segment_name: one of ${segments.length ? segments.join(', ') : '(no segments)'}.`,
    'Leave a field null when the question does not say it; never invent a name that is not listed.',
  ].join('\n');
}

export type ModelAnswer =
  | { ok: true; filter: ParsedAlertQuery; warnings: string[] }
  | { ok: false; reason: string; warnings: string[] };

const show = (v: unknown) => (typeof v === 'string' ? `'${v}'` : JSON.stringify(v));
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Checks the model's answer field by field against the ontology, the statuses, severities, classes and segments. */
export function readModelAnswer(content: string, ctx: ModelQueryContext): ModelAnswer {
  const answer = extractJsonObject(content);
  if (!isObject(answer)) return { ok: false, reason: 'the answer is not a JSON object', warnings: [] };
  const warnings: string[] = [];
  const filter: ParsedAlertQuery = { metric: null, metric_term: null, value: null, segment_name: null, status: null, severity: null, demand_class: null };
  const drop = (field: string, why: string) => warnings.push(`language model: ${field} dropped (${why})`);
  let named = 0;
  let kept = 0;

  for (const key of Object.keys(answer)) {
    if (key !== 'metric_term' && !(FIELDS as readonly string[]).includes(key)) warnings.push(`language model: unknown field '${key}' ignored`);
  }

  const metrics = new Set(ctx.rules.map((r) => r.metric_name));
  const m = answer.metric;
  if (m !== undefined && m !== null) {
    named++;
    const key = typeof m === 'string' ? m.trim().toLowerCase() : null;
    const syn = key === null ? undefined : ctx.synonyms.find((s) => s.term === key || s.term === key.replace(/_/g, ' '));
    if (key !== null && metrics.has(key)) filter.metric = key;
    else if (syn && metrics.has(syn.canonical_metric)) filter.metric = syn.canonical_metric;
    else drop('metric', `unknown metric ${show(m)}`);
    if (filter.metric !== null) kept++;
  }

  const v = answer.value;
  if (v !== undefined && v !== null) {
    named++;
    if (!isObject(v)) drop('value', `not an object {op, value}: ${show(v)}`);
    else if (!VALUE_OPS.includes(v.op as ValueOp)) drop('value', `bad op ${show(v.op)}; one of ${VALUE_OPS.join(', ')}`);
    else if (typeof v.value !== 'number' || !Number.isFinite(v.value)) drop('value', `bad number ${show(v.value)}`);
    else { filter.value = { op: v.op as ValueOp, value: v.value }; kept++; }
  }

  const seg = answer.segment_name;
  if (seg !== undefined && seg !== null) {
    named++;
    const found = typeof seg === 'string' ? ctx.segments.find((n) => n.toLowerCase() === seg.trim().toLowerCase()) : undefined;
    if (found === undefined) drop('segment_name', `unknown segment ${show(seg)}`);
    else { filter.segment_name = found; kept++; }
  }

  const st = answer.status;
  if (st !== undefined && st !== null) {
    named++;
    const status = typeof st === 'string' ? STATUS_WORDS[st.trim().toLowerCase()] : undefined;
    if (status === undefined) drop('status', `unknown status ${show(st)}; one of ${ALERT_STATUSES.join(', ')}`);
    else { filter.status = status; kept++; }
  }

  const sev = answer.severity;
  if (sev !== undefined && sev !== null) {
    named++;
    const s = typeof sev === 'string' ? sev.trim().toLowerCase() : '';
    if (!(SEVERITIES as readonly string[]).includes(s)) drop('severity', `unknown severity ${show(sev)}; one of ${SEVERITIES.join(', ')}`);
    else { filter.severity = s as Severity; kept++; }
  }

  const dc = answer.demand_class;
  if (dc !== undefined && dc !== null && !(Array.isArray(dc) && dc.length === 0)) {
    named++;
    const list = Array.isArray(dc) ? dc : [dc];
    const good: DemandClass[] = [];
    for (const c of list) {
      const k = typeof c === 'string' ? c.trim().toLowerCase() : '';
      if ((DEMAND_CLASSES as readonly string[]).includes(k)) { if (!good.includes(k as DemandClass)) good.push(k as DemandClass); }
      else drop('demand_class entry', `unknown class ${show(c)}; one of ${DEMAND_CLASSES.join(', ')}`);
    }
    if (good.length) { filter.demand_class = good; kept++; }
  }

  if (named > 0 && kept === 0) return { ok: false, reason: 'no field of the answer checked out', warnings };
  return { ok: true, filter, warnings };
}
