import { COMPARISONS, DOMAINS, SEVERITIES } from '../../../domain/alerts/ontology';
import { ALERT_STATUSES, DEMAND_CLASSES } from '../../../domain/alerts/query';
import { pipelineIdQuery, segmentIdQuery } from '../forecasts/schemas';
import { nullable, obj, out } from '../schemas';
import type { JsonSchema } from '../validation';

export const STATUS_RULE = 'Status: open (raised, undecided); approved = handled (the planner accepts the situation or dealt with it); rejected = corrective action required (the plan must change). '
  + 'A new generation keeps approved or rejected unless the value got worse, when the alert opens again.';

const metricName: JsonSchema = { type: 'string', pattern: '^[a-z][a-z0-9_]{0,99}$', description: 'rule name, e.g. fill_rate_low' };
const status: JsonSchema = { type: 'string', enum: [...ALERT_STATUSES] };
const severity: JsonSchema = { type: 'string', enum: [...SEVERITIES] };
const demandClass: JsonSchema = { type: 'string', enum: [...DEMAND_CLASSES] };
const CLASS_RE = DEMAND_CLASSES.join('|');
// Ids stay within int4 like every other id the API accepts (test/api/badInput.test.ts); bigserial leaves room beyond.
const alertId: JsonSchema = { type: 'integer', minimum: 1, maximum: 2147483647 };

export const rule = out({
  metric_name: { type: 'string' }, domain: { type: 'string', enum: [...DOMAINS] }, description: { type: 'string' }, formula: { type: 'string' },
  comparison: { type: 'string', enum: [...COMPARISONS] }, threshold: { type: 'number' }, severity, enabled: { type: 'boolean' }, updated_at: { type: 'string' },
});
export const ontologyResponse = out({
  total: { type: 'integer' },
  rules: { type: 'array', items: rule },
  synonyms: { type: 'array', items: out({ term: { type: 'string' }, canonical_metric: { type: 'string' } }) },
});
export const seedResponse = out({ rules: { type: 'integer', description: 'rules after seeding' }, rules_added: { type: 'integer' }, synonyms_added: { type: 'integer' } });
export const metricParams = obj({ metric_name: metricName }, ['metric_name']);
export const ruleUpdateBody = obj({
  threshold: { type: 'number', minimum: -1e12, maximum: 1e12 },
  severity,
  enabled: { type: 'boolean' },
  description: { type: 'string', minLength: 1, maxLength: 1000 },
}, [], { minProperties: 1 });
export const synonymBody = obj({
  term: { type: 'string', minLength: 1, maxLength: 100, pattern: '\\S', description: 'stored lower case, trimmed' },
  canonical_metric: metricName,
}, ['term', 'canonical_metric']);
export const synonymResponse = out({ term: { type: 'string' }, canonical_metric: { type: 'string' } });

export const generateBody = obj({ pipeline_id: { ...pipelineIdQuery, description: 'the pipeline whose results the rules read (0: runs outside any pipeline); 404 when unknown' } }, ['pipeline_id']);
export const generateResponse = out({ job_id: { type: 'string' }, status: { type: 'string' }, pipeline_id: { type: 'integer' } });

export const alert = out({
  id: { type: 'integer' }, pipeline_id: { type: 'integer' }, unique_id: { type: 'string' }, item_id: { type: 'integer' }, site_id: { type: 'integer' },
  metric_name: { type: 'string' }, domain: { type: 'string' }, value: { type: 'number' }, threshold: { type: 'number' }, comparison: { type: 'string' },
  severity, status, message: { type: 'string' }, job_id: nullable({ type: 'string' }), created_at: { type: 'string' }, updated_at: { type: 'string' },
  decided_by: nullable({ type: 'string' }), decided_at: nullable({ type: 'string' }),
});
const pageProps = {
  page: { type: 'integer', minimum: 1, maximum: 1000000, default: 1 },
  page_size: { type: 'integer', minimum: 1, maximum: 1000, default: 50 },
};
export const listQuery = obj({
  pipeline_id: { ...pipelineIdQuery, description: 'whose alerts; omitted: the default pipeline; 404 when unknown' },
  segment_id: segmentIdQuery, status, metric: { ...metricName, description: 'only this rule' }, severity,
  demand_class: {
    type: 'string', pattern: `^(${CLASS_RE})(,(${CLASS_RE}))*$`, maxLength: 100,
    description: `one demand class or a comma list (\`lumpy,intermittent\`) of ${DEMAND_CLASSES.join(', ')}: only alerts whose series has one of them in series_characteristics of the alert's pipeline (an uncharacterized series is left out)`,
  },
  ...pageProps,
});
export const listResponse = out({ total: { type: 'integer' }, page: { type: 'integer' }, page_size: { type: 'integer' }, items: { type: 'array', items: alert } });
export const alertParams = obj({ alert_id: alertId }, ['alert_id']);
export const batchBody = obj({
  alert_ids: { type: 'array', items: alertId, minItems: 1, maxItems: 10000, uniqueItems: true },
  action: { type: 'string', enum: ['approve', 'reject'] },
}, ['alert_ids', 'action']);
export const batchResponse = out({ action: { type: 'string' }, updated: { type: 'integer' }, items: { type: 'array', items: alert } });

export const queryBody = obj({
  query: { type: 'string', minLength: 1, maxLength: 2000 },
  segment_id: segmentIdQuery,
  pipeline_id: { ...pipelineIdQuery, description: 'whose alerts; omitted: the default pipeline; 404 when unknown' },
  ...pageProps,
}, ['query']);
export const queryResponse = out({
  query: { type: 'string' },
  parser: { type: 'string', enum: ['llm', 'offline'], description: "'llm': the tenant's language model (`llm.base_url`) read the query; 'offline': the built-in parser" },
  warnings: { type: 'array', items: { type: 'string' }, description: "what went wrong on the way: the model unreachable or its answer unusable (then the offline parser answered), a field of the model's answer dropped" },
  filter: out({
    pipeline_id: { type: 'integer' }, segment_id: nullable({ type: 'integer' }), metric: nullable({ type: 'string' }),
    metric_term: { ...nullable({ type: 'string' }), description: 'the words that named the metric (offline parser; null from the model)' },
    value: nullable(out({ op: { type: 'string', enum: ['gt', 'gte', 'lt', 'lte'] }, value: { type: 'number' } })), status: nullable(status), severity: nullable(severity),
    segment_name: nullable({ type: 'string' }),
    demand_class: { ...nullable({ type: 'array', items: demandClass }), description: "the series' demand class is one of these" },
  }),
  total: { type: 'integer' }, page: { type: 'integer' }, page_size: { type: 'integer' }, items: { type: 'array', items: alert },
});
