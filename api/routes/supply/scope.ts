import type { JsonSchema } from '../validation';

/**
 * The query every supply result endpoint takes (spec §4.8; document 2 §7: `pipeline_id` missing or 0 → 400). A supply
 * run always belongs to a scenario pipeline, never to the tenant-wide pipeline 0, and to a supply scenario
 * (`/api/supply/scenarios`). Master data (item-site, sales returns, capacity, firm orders, supply scenarios) is not
 * scoped.
 */
export const supplyScopeQuery: Record<string, JsonSchema> = {
  pipeline_id: { type: 'integer', minimum: 1, maximum: 2147483647, description: 'the scenario pipeline of the supply run (required; 0 is refused)' },
  scenario_id: { type: 'integer', minimum: 1, maximum: 2147483647, description: 'the supply scenario (`/api/supply/scenarios`) of the run (required)' },
};
export const SUPPLY_SCOPE_REQUIRED = ['pipeline_id', 'scenario_id'] as const;
