import type { RouteTable } from '../define';
import { registerCausalImportRoutes } from './imports';
import { registerCausalMasterDataRoutes } from './masterData';
import { registerCausalReadRoutes } from './reads';
import { registerCausalResultRoutes } from './results';
import { registerCausalScenarioRoutes } from './scenarios';

/**
 * Causal forecasting (core-service.md §4.10, document 2 §4.6; docs/CAUSAL.md). Fixed paths (bom/explosion,
 * bom/import, scenarios/run, results/*) are registered before nothing that could shadow them: item routes of the
 * resources answer PUT and DELETE only, and the fixed paths are GET or POST.
 */
export function registerCausalRoutes(table: RouteTable): void {
  registerCausalReadRoutes(table);
  registerCausalImportRoutes(table);
  registerCausalMasterDataRoutes(table);
  registerCausalScenarioRoutes(table);
  registerCausalResultRoutes(table);
}
