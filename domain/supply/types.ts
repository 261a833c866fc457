/**
 * Inputs and outputs of the supply-planning engine (docs/SUPPLY.md). Everything a supply step reads from tables goes in
 * through these shapes; everything it writes comes back out of them. Weeks are indices 0..horizon-1 counted from the
 * pipeline's planning date (week 0 is the week that starts on the planning date).
 */
import { PLANNING_WEEKS } from './horizon';

/** Order-type index, the same in every component (document 2 §2.1). */
export const ORDER_TYPES = ['BUY', 'BUILD', 'REPAIR', 'TRANSFER', 'BALANCING', 'REPLENISH', 'RETURN'] as const;
export type OrderType = (typeof ORDER_TYPES)[number];
export const BUY = 0;
export const BUILD = 1;
export const REPAIR = 2;
export const TRANSFER = 3;
export const BALANCING = 4;
export const REPLENISH = 5;
export const RETURN = 6;
export const N_ORDER_TYPES = 7;

/** The six sourcing types, in the order the engine tries them; the scenario rules check exactly these (§4.2 rule 5). */
export const SOURCING_SEQUENCE: readonly number[] = [BUY, BUILD, REPAIR, TRANSFER, BALANCING, RETURN];

/** Latest firm week of a type that has no firm order (§4.2 rule 1). */
export const NO_FIRM_WEEK = 255;
export const DEFAULT_HORIZON = PLANNING_WEEKS;

export type OrderStatus = 'planned' | 'constrained' | 'delayed' | 'expedited';
/** PLANNED: the netting pass; the other two come from the expedite post-processor (status `expedited`). */
export type OrderKind = 'PLANNED' | 'BUY_EXPEDITE' | 'TRANSFER_PREPOS';

// ---------------------------------------------------------------------------------------------------------------------
// Inputs

/** One row of `routes` that serves the item (item-specific or item_id null), from the supplying to the receiving site. */
export interface SupplyRoute {
  route_id: number;
  from_site_id: number;
  to_site_id: number;
  /** REPLENISHMENT, RETURN, REPAIR, BUY, BUILD, TRANSFER, BALANCING; null or '' counts as BUY (§4.2 rule 3). */
  route_type: string | null;
  /** Weeks; null counts as 0 (rule 3). Orders are offset by whole weeks: ceil(lead_time). */
  lead_time: number | null;
  /** Lower is preferred (routes.priority). */
  priority: number;
}

/** A firm supply order (document 2 §2.1), the fields the engine reads. */
export interface FirmOrderInput {
  id: number;
  /** Receiving site. */
  site_id: number;
  source_site_id?: number | null;
  /** Compared upper-case; one of the seven order types. */
  order_type: string;
  qty: number | null;
  received_qty?: number | null;
  /** Matched exactly as the allocation pool does: only firm, released and in_transit count as supply. */
  erp_status: string | null;
  /** ISO 8601 timestamp or date, or a Date (pg type parser); weeks are taken on the UTC instant. */
  release_dt: string | Date;
  arrival_dt: string | Date;
}

/** Lot-size rule of one SKU-site; see resolveSiteParameters for where the numbers come from. */
export interface LotRule {
  /** Fixed order quantity (EOQ): orders are whole multiples of it. null or 0: lot-for-lot. */
  eoq: number | null;
  /** Minimum order quantity (item_site.moq); 0 for none. */
  moq: number;
  /** Rounding multiple (item_site.order_multiple); 0 or 1 for none beyond units of 1 when 1. */
  multiple: number;
}

/** One site of the item's network (a SKU-site): its demand, stock and planning parameters. */
export interface SupplySiteInput {
  site_id: number;
  /** The series key (`<item_id>_<site_id>` or the forecast's unique_id); carried through to outputs only. */
  series_id?: string;
  /** Best-method forecast per week, index 0 = week 0; shorter arrays are padded with 0, longer ones cut. */
  forecast: ArrayLike<number>;
  /** Sales returns per week as positive quantities; they enter gross requirements as negative demand. */
  returns?: ArrayLike<number>;
  /** Opening stock: on-hand at the planning date (plus stock rolled over from superseded items, by the step). */
  on_hand: number;
  /** Safety stock, one number or one per week. */
  safety_stock: number | ArrayLike<number>;
  lot: LotRule;
  /** For inventory value; 0 when unknown. */
  unit_cost: number;
}

/** One item across its network: the unit of work of the step's chunk. */
export interface SupplyItemInput {
  item_id: number;
  sites: SupplySiteInput[];
  routes: SupplyRoute[];
  firm_orders: FirmOrderInput[];
  /**
   * The item is replaced on an active global supersession edge (document 2 §4.4): its BUY, BUILD (MAKE), TRANSFER and
   * BALANCING routes are blocked (rule 4) and no indirect demand is drawn from its sites, of any type (rule 5).
   */
  superseded?: boolean;
}

/** Route types a superseded item may not be sourced on (rule 4 names BUY, MAKE, TRANSFER, USE, BALANCING, ZONE_BALANCING; MAKE is BUILD and USE and ZONE_BALANCING are not route types here: routeTypes.ts). */
export const SUPERSEDED_BLOCKED_TYPES: readonly number[] = [BUY, BUILD, TRANSFER, BALANCING];

/** Capacity in units of the item mix a site can ship (or make) in a week; a site with no row is unconstrained. */
export interface CapacityInput {
  site_id: number;
  week: number;
  qty: number;
}

/** The two scenario flags of document 2 §4.2 (see scenarioFlags for coercion). */
export interface SupplyFlags {
  firm_orders_block_horizon: boolean;
  respect_lead_time: boolean;
}

export interface SupplyOptions {
  /** Weeks planned (default 52: weeks 0..51). */
  horizon?: number;
  /**
   * An order that would have to be released before week 0 (respect_lead_time off, or an allowed type's preferred
   * route slower than its fastest, rule 5):
   * 'flag' (default) keeps it arriving in the week it is needed with a negative release week, status `delayed`, late;
   * 'arrive_late' releases it in week 0 so it arrives at its lead time, after the week it is needed in, status `delayed`.
   */
  lateOrders?: 'flag' | 'arrive_late';
  /** How many weeks capacity may push the part of an order that does not fit (default: to the end of the horizon). */
  maxDelayWeeks?: number;
  /** Run the expedite post-processor (default true). */
  expedite?: boolean;
  /** A week is in excess when projected stock exceeds safety stock plus this many weeks of mean gross demand (13). */
  excessCoverWeeks?: number;
  /** Run the conservation and pegging checks on the result (default true; they are linear in the output). */
  check?: boolean;
}

export interface SupplyRunInput {
  /** `YYYY-MM-DD`, the pipeline's planning date: week 0 starts here. */
  planning_date: string;
  flags: SupplyFlags;
  items: SupplyItemInput[];
  /** Shared by all the items of the run, consumed in item order (input order). */
  capacity?: CapacityInput[];
  options?: SupplyOptions;
}

// ---------------------------------------------------------------------------------------------------------------------
// Outputs

export type DemandLineKind = 'forecast' | 'indirect' | 'firm_transfer' | 'prepos' | 'backlog' | 'safety_stock' | 'excess';

/**
 * One slice of an order's quantity and the demand it serves. `demand_line` is a stable key:
 * forecast:<site>:<week> (the site's own forecast), indirect:<order id> (a downstream TRANSFER order drawing on this
 * site), prepos:<order id> (a downstream TRANSFER_PREPOS), firm_transfer:<firm id> (a firm transfer not yet shipped),
 * backlog:<site> (negative opening stock), and two pseudo-lines for what is left at the end of the horizon:
 * safety_stock:<site> and excess:<site>.
 */
export interface PegLine {
  demand_line: string;
  kind: DemandLineKind;
  /** Site where the demand is (always the order's receiving site). */
  site_id: number;
  /** Week of the demand; the horizon length for the two end-of-horizon pseudo-lines. */
  week: number;
  qty: number;
  /** For indirect and prepos lines: the downstream order; for firm_transfer: the firm order id. */
  ref_id?: number;
}

export interface PlannedOrder {
  /** Unique within the run, 1-based, deterministic. */
  id: number;
  item_id: number;
  site_id: number;
  source_site_id: number | null;
  route_id: number | null;
  order_type: OrderType;
  type_index: number;
  kind: OrderKind;
  status: OrderStatus;
  qty: number;
  /** Lot-sized quantity asked for before capacity cut it (equals qty unless constrained). */
  requested_qty: number;
  /** Negative only for a flagged late order (release before week 0; late is true). */
  release_week: number;
  arrival_week: number;
  /** Week whose requirement created the order. */
  need_week: number;
  /** Released before week 0 or arriving after need_week. */
  late: boolean;
  pegging: PegLine[];
}

/** Per SKU-site and week; every array has horizon entries. projected[t] = projected[t-1] + receipts - gross. */
export interface SkuSitePlan {
  item_id: number;
  site_id: number;
  series_id?: string;
  opening: number;
  /** Own forecast. */
  demand: Float64Array;
  /** Dependent demand from downstream TRANSFER orders (planned, firm, pre-positioning). */
  indirect: Float64Array;
  returns: Float64Array;
  /** demand + indirect - returns. */
  gross: Float64Array;
  receipts_firm: Float64Array;
  /** Engine orders arriving (all kinds). */
  receipts_planned: Float64Array;
  /** End-of-week stock; negative is backlog. */
  projected: Float64Array;
  safety_stock: Float64Array;
  /** max(0, -projected). */
  shortage: Float64Array;
  /** Rule 1, per order-type index (255: no firm order of that type). */
  latest_firm_week: number[];
  /** Rule 3, per order-type index (0: no route of that type). */
  min_lead_time: number[];
  /** Firm receipts arriving after the horizon: counted in its last week, as the allocation pool does (horizon.ts). */
  firm_beyond_horizon: number;
  unit_cost: number;
  fill_rate: number | null;
  shortage_qty: number;
  avg_inventory_value: number;
  ending_inventory_value: number;
}

/** The per-series breakdown of indirect demand: who draws on which site, when, through which order. */
export interface IndirectDemandRow {
  item_id: number;
  /** The supplying site, where the demand lands. */
  site_id: number;
  /** The receiving site whose order causes it. */
  downstream_site_id: number;
  week: number;
  qty: number;
  origin: 'planned' | 'prepos' | 'firm';
  /** Engine order id (planned, prepos) or firm order id (firm). */
  order_id: number;
}

export type ExceptionType = 'shortage' | 'below_safety_stock' | 'excess' | 'late_order' | 'no_source';

export interface SupplyException {
  item_id: number;
  site_id: number;
  type: ExceptionType;
  /** First week; runs of consecutive weeks are one exception. */
  week: number;
  end_week: number;
  /** shortage: largest backlog in the run; below_safety_stock: largest gap; excess: largest excess; late_order: order qty; no_source: requirement not sourced. */
  qty: number;
  severity: 'high' | 'medium' | 'low';
  description: string;
  order_id?: number;
}

export interface TypeCount {
  count: number;
  qty: number;
}

export interface SupplyKpis {
  /** Gross demand served from stock in its own week over gross demand (positive weeks); null without demand. */
  projected_fill_rate: number | null;
  demand_qty: number;
  served_qty: number;
  /** Demand not served in its own week. */
  shortage_qty: number;
  /** Mean over weeks of sum over SKU-sites of max(0, projected) x unit_cost. */
  avg_inventory_value: number;
  ending_inventory_value: number;
  orders_by_type: Record<OrderType, TypeCount>;
  orders_by_status: Record<OrderStatus, TypeCount>;
  orders_by_kind: Record<OrderKind, TypeCount>;
  n_orders: number;
  n_exceptions: number;
}

export interface SupplyChecks {
  ok: boolean;
  /** Largest |opening + receipts - gross - closing| over SKU-site-weeks. */
  max_conservation_residual: number;
  /** Largest |sum of pegging - qty| over orders. */
  max_pegging_residual: number;
  violations: string[];
}

export interface SupplyRunResult {
  orders: PlannedOrder[];
  plans: SkuSitePlan[];
  indirect: IndirectDemandRow[];
  exceptions: SupplyException[];
  kpis: SupplyKpis;
  /** Capacity consumed per site and week by this run. */
  capacity_used: CapacityInput[];
  /** The same, per item: chunks of a run share capacity and a retried chunk replaces exactly its items' use. */
  capacity_used_by_item: Array<CapacityInput & { item_id: number }>;
  checks: SupplyChecks;
  /** Items that could not be planned (a TRANSFER cycle, bad input); the rest of the run goes on. */
  errors: Array<{ item_id: number; message: string }>;
  /** Data notes that did not stop planning (unknown route types, firm orders for sites outside the network). */
  diagnostics: Array<{ item_id: number; message: string }>;
}
