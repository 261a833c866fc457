/**
 * Supersession edges (document 2 §2.4, §4.4; docs/SUPERSESSION.md): what one edge is, the rules it obeys on its own
 * and when it is active. The API (ids) and the import run (external codes) both judge rows here, so an edge the one
 * refuses the other refuses too, with the same words.
 */

export const DEFAULT_DEMAND_FACTOR = 1;
export const DEFAULT_STOCK_ROLLABLE = true;
export const NOTES_MAX_LENGTH = 2000;

/** What identifies an edge (the natural key): a null site counts as 0, a null date as the minimum date. */
export interface EdgeKey {
  from_item_id: number;
  to_item_id: number;
  /** null: a global edge, acting at every site */
  site_id: number | null;
  /** YYYY-MM-DD; null: immediate */
  effective_date: string | null;
}

export interface Edge extends EdgeKey {
  id: number;
  demand_factor: number;
  stock_rollable: boolean;
  notes: string | null;
}

/** The names a caller gives the fields: the API speaks of ids, the import of codes. */
export interface EdgeFieldNames {
  from: string;
  to: string;
  demandFactor: string;
}

export const API_FIELDS: EdgeFieldNames = { from: 'from_item_id', to: 'to_item_id', demandFactor: 'demand_factor' };
export const IMPORT_FIELDS: EdgeFieldNames = { from: 'from_item_xuid', to: 'to_item_xuid', demandFactor: 'demand_factor' };

export interface EdgeProblem {
  /** the field at fault, in the caller's names */
  field: string;
  /** a sentence naming the fields, in the caller's names */
  message: string;
}

/**
 * The rules of one edge on its own (§2.4): an item cannot replace itself and demand_factor is a positive number.
 * References (do the items and the site exist), uniqueness and cycles need the stored data and are checked by the caller
 * (uniqueness, references) and by chains.ts (cycles).
 */
export function edgeProblem(edge: { from: unknown; to: unknown; demand_factor: number }, names: EdgeFieldNames): EdgeProblem | null {
  if (edge.from !== null && edge.from !== undefined && edge.from === edge.to) {
    return { field: names.to, message: `${names.from} and ${names.to} are the same item` };
  }
  if (!Number.isFinite(edge.demand_factor) || edge.demand_factor <= 0) {
    return { field: names.demandFactor, message: `${names.demandFactor} must be greater than 0 (got ${edge.demand_factor})` };
  }
  return null;
}

/**
 * Rule 1: an edge is active on a reference date when it has no effective date or one not later than that date.
 * Dates are YYYY-MM-DD, so text order is date order.
 */
export const isActiveOn = (edge: { effective_date: string | null }, asOf: string): boolean =>
  edge.effective_date === null || edge.effective_date <= asOf;
