/**
 * The planning horizon rule shared by the supply engine and the allocation pool, so a firm order is supply in the same
 * week in both (docs/SUPPLY.md, "Firm receipts and the horizon").
 *
 * Document 2 §4.3 rule 2 clamps a firm order's arrival week to 0..51 for the pool, and §4.2 rule 1 clamps the latest
 * firm week the same way; the engine had dropped arrivals after week 51 instead, so an order arriving in week 60 was
 * supply to the allocation and not to the supply plan. One clamp now serves both: before week 0 counts in week 0 (it
 * is already there), after the last week counts in the last week (it is on its way; `firm_beyond_horizon` in the
 * engine's plans says how much of the last week's firm receipts really arrive later).
 */

/** Weeks 0..51: document 2 names this range for every week index of the plan. */
export const PLANNING_WEEKS = 52;

/** The week a firm receipt (or any week index) counts in on a horizon of `horizon` weeks: clamped to 0..horizon-1. */
export function clampWeek(week: number, horizon: number = PLANNING_WEEKS): number {
  return Math.min(horizon - 1, Math.max(0, week));
}
