import type { AllocationSupply, DemandLine } from '../../domain/allocation/model';

/** A supply of item 1 at site 1; its reliability follows its id prefix as the pool rule gives it. */
export const sup = (supply_id: string, qty: number, arrival_week: number, over: Partial<AllocationSupply> = {}): AllocationSupply => ({
  supply_id, item_id: 1, site_id: 1, qty, arrival_week, reliability: supply_id.startsWith('FIRM_') ? 1.0 : 0.85, ...over,
});

/** A demand line of item 1 at site 1. */
export const dem = (demand_id: string, qty: number, due_week: number, priority_class: string | null, over: Partial<DemandLine> = {}): DemandLine => ({
  demand_id, item_id: 1, site_id: 1, qty, due_week, priority_class, ...over,
});
