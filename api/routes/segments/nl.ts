import { extractJsonObject } from '../../../domain/llm/answerJson';
import { parseDescription, type AbcRef, type SiteRef } from '../../../domain/segments/nlParser';
import { checkRules, RuleError, type FieldDef, type Rule } from '../../../domain/segments/rules';
import { logger } from '../../../lib/logger';
import { badRequest } from '../../errors';
import { chatCompletion, LlmUnavailable, type LlmSettings } from '../../llm';

export interface ParseOutcome {
  description: string;
  rules: Rule[];
  source: 'llm' | 'parser';
  unparsed: string[];
  warnings: string[];
}

function systemPrompt(fields: FieldDef[]): string {
  const lines = fields.map((f) => {
    const values = f.values?.length ? `; values: ${f.values.slice(0, 50).map((v) => JSON.stringify(v)).join(', ')}` : '';
    return `- ${f.field} (${f.type}; operators: ${f.operators.join(', ')}${values})${f.description ? `: ${f.description}` : ''}`;
  });
  return [
    'You turn a demand planner\'s description of a set of time series into segment rules.',
    'Answer with one JSON object and nothing else: {"rules": [{"field": <field>, "operator": <operator>, "value": <value>}]}.',
    'Rules are AND-combined. Use only these fields and, for each, only its operators:',
    ...lines,
    'Values: numbers for number fields, strings for string fields, "YYYY-MM-DD" for dates, true/false for booleans;',
    '"in"/"not in" take a list, "between" takes [low, high], "is null" takes true (no value) or false (has a value).',
    'String comparisons ignore case. If part of the description cannot be expressed with these fields, leave it out.',
  ].join('\n');
}

async function askModel(settings: LlmSettings, description: string, fields: FieldDef[]): Promise<unknown> {
  const content = await chatCompletion(settings, [
    { role: 'system', content: systemPrompt(fields) },
    { role: 'user', content: description },
  ], { json: true });
  const answer = extractJsonObject(content);
  if (answer === null) throw badRequest('The language model did not answer with JSON rules (the answer is not JSON)');
  return answer;
}

/**
 * Rules from a description: through the tenant's language model when `llm.base_url` is set, else (or when the model
 * cannot be reached) through the deterministic parser. Rules are always checked against the field catalogue, so an
 * unknown field or a bad value from the model is a 400 naming it, never a saved surprise.
 */
export async function parseNaturalLanguage(description: string, ctx: { fields: FieldDef[]; sites: SiteRef[]; abc: AbcRef[]; llm: LlmSettings | null }): Promise<ParseOutcome> {
  const warnings: string[] = [];
  if (ctx.llm) {
    try {
      const answer = await askModel(ctx.llm, description, ctx.fields);
      const rules = (Array.isArray(answer) ? answer : (answer as { rules?: unknown })?.rules) as Rule[] | undefined;
      if (!Array.isArray(rules)) throw badRequest("The language model's answer has no 'rules' list");
      const clean = rules.map((r) => ({ field: r?.field, operator: r?.operator, ...(r && 'value' in r ? { value: r.value } : {}) })) as Rule[];
      try {
        checkRules(clean, ctx.fields, 'language model rules');
      } catch (err) {
        if (err instanceof RuleError) throw badRequest(`The language model proposed an invalid rule: ${err.message}`);
        throw err;
      }
      if (!clean.length) throw badRequest('The language model found no rule in the description; rephrase it with fields of GET /api/segments/fields');
      return { description, rules: clean, source: 'llm', unparsed: [], warnings };
    } catch (err) {
      if (!(err instanceof LlmUnavailable)) throw err;
      logger.warn({ err: err.message }, 'language model unavailable; using the built-in segment parser');
      warnings.push(`language model unavailable (${err.message}); used the built-in parser`);
    }
  }
  const parsed = parseDescription(description, { fields: ctx.fields, sites: ctx.sites, abc: ctx.abc });
  checkRules(parsed.rules, ctx.fields);
  if (!parsed.rules.length) {
    throw badRequest(`No rule could be derived from the description${parsed.warnings.length ? ` (${parsed.warnings.join('; ')})` : ''}; try phrasing like "A items at site DC1 with intermittent demand", "items with unit price over 100" or "lumpy or intermittent series at stores"`);
  }
  return { description, rules: parsed.rules, source: 'parser', unparsed: parsed.unparsed, warnings: [...warnings, ...parsed.warnings] };
}
