import type { RouteTable } from '../define';
import { registerAllocationRoutes } from './allocation';
import { registerFirmOrderRoutes } from './firmOrders';
import { registerSupplyMasterDataRoutes } from './masterData';
import { registerSupplyResultRoutes } from './results';
import { registerSupplyScenarioRoutes } from './scenarios';

/** Supply planning (spec §4.8, document 2 §4.1): fixed paths before parameterised ones, so /orders/breakdown wins over /orders/{id}. */
export function registerSupplyRoutes(table: RouteTable): void {
  registerSupplyScenarioRoutes(table);
  registerSupplyMasterDataRoutes(table);
  registerFirmOrderRoutes(table);
  registerSupplyResultRoutes(table);
  registerAllocationRoutes(table);
}
