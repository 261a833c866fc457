import { buildSupplyPool, LAST_WEEK } from '../../../domain/allocation/pool';
import { clampWeek, PLANNING_WEEKS } from '../../../domain/supply/horizon';
import { DEFAULT_HORIZON } from '../../../domain/supply/types';
import { PLANNING_DATE, firm, item, route, run, site } from './builders';

const NOW = new Date(`${PLANNING_DATE}T00:00:00Z`);

/** The week a firm order of `qty` arriving in `arrivalWeek` shows up as a firm receipt in the supply plan. */
function engineReceiptWeeks(arrivalWeek: number, qty: number): number[] {
  const r = run([item(7, [site(1, new Array(52).fill(0))], [route('BUY', 900, 1, 2)], [firm(70, 1, 'BUY', qty, 0, arrivalWeek)])]);
  const receipts = Array.from(r.plans[0]!.receipts_firm);
  return receipts.flatMap((q, w) => (q > 0 ? [w] : []));
}

function poolWeek(arrivalWeek: number, qty: number): number | undefined {
  const f = firm(70, 1, 'BUY', qty, 0, arrivalWeek);
  const pool = buildSupplyPool([], [{ ...f, item_id: 7, erp_status: 'firm' }], NOW);
  return pool[0]?.arrival_week;
}

describe('firm receipts and the horizon: one rule for the supply engine and the allocation pool', () => {
  it('both use the 52 weeks 0..51 of document 2', () => {
    expect(PLANNING_WEEKS).toBe(52);
    expect(DEFAULT_HORIZON).toBe(PLANNING_WEEKS);
    expect(LAST_WEEK).toBe(PLANNING_WEEKS - 1);
  });

  it.each([-3, 0, 10, 51, 52, 60, 200])('an order arriving in week %i is supply in the same week in both', (arrival) => {
    const week = clampWeek(arrival);
    expect(engineReceiptWeeks(arrival, 40)).toEqual([week]);
    expect(poolWeek(arrival, 40)).toBe(week);
  });

  it('an order arriving after week 51 is supply in week 51 of the plan and reported as beyond the horizon', () => {
    const demand = new Array(52).fill(0);
    demand[51] = 40;
    const r = run([item(7, [site(1, demand)], [route('BUY', 900, 1, 2)], [firm(70, 1, 'BUY', 40, 0, 60)])]);
    const plan = r.plans[0]!;
    expect(plan.receipts_firm[51]).toBe(40);
    expect(plan.firm_beyond_horizon).toBe(40);
    expect(plan.projected[51]).toBe(0);
    // The firm order covers week 51's demand, as it does in the allocation: nothing is bought for it.
    expect(r.orders).toEqual([]);
  });
});
