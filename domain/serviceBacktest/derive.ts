/**
 * The policy backtest of one item (docs/SERVICE_BACKTEST.md): for each origin, the history is cut T weeks before its
 * end; the pipeline's own outlier correction and distribution fit (passed in as `models`, the very functions the
 * outlier and distribution steps call, with the same resolved parameters) and the meio planner (planItemNetwork)
 * size every site's policy from the weeks before the cut only; then each demand site's policy, and the peers' on the
 * same history, is replayed over the held-out weeks against the demand that actually came.
 *
 * Only the demand sites (sites with a series) are replayed: an upstream site is taken to keep the service time the
 * planner quoted it (the guaranteed-service model), so a demand site's orders arrive after the replenishment time its
 * stock was sized for (`netLeadTimeWeeks`: the route's lead time in a single-echelon network).
 */
import { characterize, type DemandClass } from '../characterization/characterize';
import { historyToFit } from '../distribution/fitHistory';
import { weeklyDemandOf, type StoredFit } from '../inventory/fittedDemand';
import { plannedAutocorrelation } from '../inventory/serialDependence';
import type { DemandDistribution } from '../inventory/leadTimeDemand';
import { planItemNetwork, type MeioOptions, type MeioRoute, type MeioSite, type MeioSkuResult } from '../inventory/meio';
import type { ItemCurve } from '../inventory/portfolioBudget';
import { bootstrapLeadTimeDemand, normalPeerLevel, sampleQuantile, weeklyMoments } from './peers';
import { leadTimeInWeeks, simulatePolicy, type ShortageMode, type SimPolicy, type SimulationResult } from './simulate';

/** A site as the meio planner takes it, with its history instead of a fitted distribution. */
export interface BacktestSiteInput extends Pick<MeioSite, 'siteId' | 'unitCost' | 'masterLeadTime' | 'moq' | 'orderMultiple' | 'target' | 'eoqOverride'> {
  /** weekly demand up to the last week (NaN: closed week); null for a site without a series (an upstream site) */
  history: ArrayLike<number> | null;
  abcClass?: string | null;
  segmentIds?: readonly number[];
}

export interface BacktestItemInput {
  itemId: number;
  sites: readonly BacktestSiteInput[];
  routes: readonly MeioRoute[];
}

/** The pipeline's own steps, as the caller runs them for a site (the same functions and parameters as the steps). */
export interface PipelineModels {
  /** the outlier step: the corrected history */
  correct(history: Float64Array, itemId: number, siteId: number): Float64Array;
  /** the distribution step: the stored fit (family, parameters, basis) of the history it is given (fitHistory.ts) */
  fit(history: Float64Array, itemId: number, siteId: number, leadTimeWeeks: number | undefined): StoredFit | null;
}

export const VARIANTS = ['target', 'normal', 'bootstrap', 'sweep'] as const;
/**
 * Stored variants, and 'portfolio': ours under a budget shared out over many items (portfolioBudget.ts), which only
 * a caller that sees every item can ask for (bench:service).
 */
export type Variant = (typeof VARIANTS)[number] | 'portfolio';

/** The service the portfolio curves are traced to: a budget beyond what it needs buys nothing more. */
export const PORTFOLIO_CEILING = 0.995;

/** One level of a portfolio sweep: its label and the item's share of the budget (null: the budget does not cut it). */
export interface PortfolioCap {
  level: number;
  cap: number | null;
}

export interface BacktestOptions {
  /** weeks before the end of the history at which the policy is sized (default [26]) */
  originWeeks?: readonly number[];
  mode?: ShortageMode;
  /** weeks before the origin over which the new policy runs unmeasured to reach its own stock state (default 52: a year mixes the phase of the order cycle, so the held-out weeks do not all start at the same point of it) */
  warmupWeeks?: number;
  /** fewest open weeks before the origin for a site to be sized (default 13) */
  minHistoryWeeks?: number;
  /** other target levels our policy is also sized and replayed at (variant 'sweep'): the service-versus-stock curve */
  sweepTargets?: readonly number[];
  /** replay the normal and bootstrap peers (default true) */
  peers?: boolean;
  bootstrapSamples?: number;
  seed?: number;
  /** the item's caps along a portfolio sweep: ours planned within each cap (up to PORTFOLIO_CEILING) and replayed */
  portfolio?: readonly PortfolioCap[];
}

export interface BacktestRow {
  itemId: number;
  siteId: number;
  originWeeks: number;
  variant: Variant;
  /** the level the variant was sized for (the site's target; a sweep's own level) */
  targetService: number;
  serviceType: string;
  policy: SimPolicy['kind'];
  reorderPoint: number | null;
  orderQty: number | null;
  orderUpTo: number | null;
  reviewWeeks: number;
  leadTimeWeeks: number;
  unitCost: number;
  demandClass: DemandClass | null;
  abcClass: string | null;
  segmentIds: number[];
  /** what the planner promised (ours only) */
  expectedFillRate: number | null;
  expectedOnHand: number | null;
  result: SimulationResult;
}

export interface BacktestSkip {
  itemId: number;
  siteId: number;
  originWeeks: number;
  reason: string;
}

const DEFAULTS = { originWeeks: [26], mode: 'backorder' as ShortageMode, warmupWeeks: 52, minHistoryWeeks: 13, peers: true, bootstrapSamples: 1000, seed: 7 };

function openWeeks(y: ArrayLike<number>): number {
  let n = 0;
  for (let i = 0; i < y.length; i++) if (Number.isFinite(y[i])) n += 1;
  return n;
}

/** The replayed policy of a planned SKU-site: meio's (r,Q) is reviewed weekly; (s,S) and base stock every R weeks. */
export function simPolicyOf(r: Pick<MeioSkuResult, 'policy' | 'reorderPoint' | 'orderQty' | 'orderUpTo' | 'reviewPeriodWeeks'>): SimPolicy | null {
  if (r.reorderPoint === null || r.orderUpTo === null) return null;
  const reviewWeeks = Math.max(1, Math.round(r.reviewPeriodWeeks || 1));
  switch (r.policy) {
    case 'rQ':
      return r.orderQty && r.orderQty > 0 ? { kind: 'sQ', reorderPoint: r.reorderPoint, orderQty: r.orderQty } : null;
    case 'sS':
      return { kind: 'RsS', reviewWeeks, reorderPoint: r.reorderPoint, orderUpTo: r.orderUpTo };
    case 'base_stock':
      return reviewWeeks === 1 ? { kind: 'base_stock', orderUpTo: r.orderUpTo } : { kind: 'RS', reviewWeeks, orderUpTo: r.orderUpTo };
  }
}

/** The same kind of policy at another level (a peer's): the order quantity, S − s and review period are kept. */
export function withLevel(p: SimPolicy, level: number): SimPolicy {
  switch (p.kind) {
    case 'sQ':
      return { ...p, reorderPoint: level };
    case 'RsS':
      return { ...p, reorderPoint: level, orderUpTo: level + (p.orderUpTo - p.reorderPoint) };
    case 'RS':
    case 'base_stock':
      return { ...p, orderUpTo: level };
  }
}

/** Weeks the level must cover: the replenishment time, plus the review period for a periodic policy. */
export function protectionWeeks(p: SimPolicy, leadTimeWeeks: number): number {
  const review = p.kind === 'RsS' || p.kind === 'RS' ? Math.max(1, Math.round(p.reviewWeeks)) : p.kind === 'base_stock' ? 1 : 0;
  return leadTimeInWeeks(leadTimeWeeks) + review;
}

const topOf = (p: SimPolicy): number => (p.kind === 'sQ' ? p.reorderPoint + p.orderQty : p.orderUpTo);

interface Sized {
  site: BacktestSiteInput;
  cut: number;
  /** what the distribution was fitted on, and the peers are sized on (fitHistory.ts) */
  fitted: Float64Array;
  demandClass: DemandClass | null;
  demand: DemandDistribution | null;
  autocorrelation: number[];
}

function plan(item: BacktestItemInput, sized: Map<number, Sized>, targetLevel: number | null, options: MeioOptions = {}): ReturnType<typeof planItemNetwork> {
  const sites: MeioSite[] = item.sites.map((s) => {
    const z = sized.get(s.siteId);
    return {
      siteId: s.siteId, demand: z?.demand ?? null, autocorrelation: z?.autocorrelation ?? null, hasSeries: Boolean(z), unitCost: s.unitCost, masterLeadTime: s.masterLeadTime,
      moq: s.moq, orderMultiple: s.orderMultiple, eoqOverride: s.eoqOverride ?? null,
      target: targetLevel === null ? s.target : { ...s.target, target_service: targetLevel },
    };
  });
  return planItemNetwork(sites, item.routes, options);
}

/** Each demand site's history cut T weeks before its end, corrected and fitted as the pipeline would have then. */
function sizeSites(item: BacktestItemInput, models: PipelineModels, T: number, minHistoryWeeks: number, skipped: BacktestSkip[]): Map<number, Sized> {
  const sized = new Map<number, Sized>();
  for (const s of item.sites) {
    if (!s.history) continue;
    const cut = s.history.length - T;
    const before = cut > 0 ? Float64Array.from(Array.from(s.history).slice(0, cut)) : new Float64Array(0);
    if (cut <= 0 || openWeeks(before) < minHistoryWeeks) {
      skipped.push({ itemId: item.itemId, siteId: s.siteId, originWeeks: T, reason: `fewer than ${minHistoryWeeks} open weeks before the origin` });
      continue;
    }
    const corrected = models.correct(before, item.itemId, s.siteId);
    const fitted = historyToFit(before, corrected);
    const fit = models.fit(fitted, item.itemId, s.siteId, s.masterLeadTime ?? undefined);
    // the meio step hands weeklyDemandOf the raw weekly history (what an empirical fit stands for): here the pre-origin part
    const demand = fit ? weeklyDemandOf(fit, Array.from(before)) : null;
    // and the autocorrelations of the same weeks, as the meio step reads them (only the statistical stream is replayed)
    const autocorrelation = plannedAutocorrelation(before, demand, demand);
    sized.set(s.siteId, { site: s, cut, fitted, demandClass: characterize(corrected, { period: 1 }).demand_class, demand, autocorrelation });
  }
  return sized;
}

/**
 * The item's service-versus-investment curve as of the first origin, traced up to PORTFOLIO_CEILING, and the
 * investment its own targets take: what a portfolio budget is shared out over (portfolioBudget.ts). Each item
 * weighs as its number of demand sites, so that the budget buys the most SKU-site fill rate on average, the figure
 * the backtest reports. Null for an item with nothing to plan or a repairable.
 */
export function itemServiceCurve(item: BacktestItemInput, models: PipelineModels, options: BacktestOptions = {}): (ItemCurve & { targetInvestment: number }) | null {
  const o = { ...DEFAULTS, ...options };
  const sized = sizeSites(item, models, o.originWeeks[0], o.minHistoryWeeks, []);
  if (!sized.size) return null;
  const ours = plan(item, sized, null);
  if (ours.group.echelonModel === 'metric' || ours.group.curveInvestment === null) return null;
  const top = plan(item, sized, PORTFOLIO_CEILING);
  return { itemId: item.itemId, weeklyDemand: sized.size, points: top.group.curve, targetInvestment: ours.group.curveInvestment };
}

/**
 * Sizes and replays one item at every origin. Rows for every demand site that could be planned (ours, the peers,
 * the sweep), and the sites left out with the reason.
 */
export function backtestItem(item: BacktestItemInput, models: PipelineModels, options: BacktestOptions = {}): { rows: BacktestRow[]; skipped: BacktestSkip[] } {
  const o = { ...DEFAULTS, ...options };
  const rows: BacktestRow[] = [];
  const skipped: BacktestSkip[] = [];
  for (const T of o.originWeeks) {
    const sized = sizeSites(item, models, T, o.minHistoryWeeks, skipped);
    if (!sized.size) continue;
    const ours = plan(item, sized, null).skus;
    // a repairable item is not replayed (below): sizing it again along the sweep would be work for nothing
    const replayable = ours.some((r) => sized.has(r.siteId) && r.echelonModel !== 'metric');
    const sweeps = replayable ? (o.sweepTargets ?? []).map((level) => ({ level, skus: plan(item, sized, level).skus })) : [];
    const portfolio = replayable ? (o.portfolio ?? []).map(({ level, cap }) => ({ level, skus: plan(item, sized, PORTFOLIO_CEILING, { budget: cap }).skus })) : [];
    for (const r of ours) {
      const z = sized.get(r.siteId);
      if (!z) continue;
      const policy = simPolicyOf(r);
      if (r.echelonModel === 'metric') {
        skipped.push({ itemId: item.itemId, siteId: r.siteId, originWeeks: T, reason: 'repairable item (METRIC): returns and repairs are not replayed' });
        continue;
      }
      if (!policy) {
        skipped.push({ itemId: item.itemId, siteId: r.siteId, originWeeks: T, reason: `not planned: ${r.diagnostics.map((d) => d.code).join(', ') || 'no policy'}` });
        continue;
      }
      const lead = r.netLeadTimeWeeks ?? r.leadTimeWeeks ?? 0;
      const history = z.site.history!;
      const from = Math.max(0, z.cut - o.warmupWeeks);
      const demand = Array.from(history).slice(from);
      const replay = (p: SimPolicy) => simulatePolicy({ demand, policy: p, leadTimeWeeks: lead, mode: o.mode, initialOnHand: topOf(p), measureFrom: z.cut - from });
      const base = {
        itemId: item.itemId, siteId: r.siteId, originWeeks: T, serviceType: r.serviceType, reviewWeeks: r.reviewPeriodWeeks, leadTimeWeeks: lead, unitCost: r.unitCost,
        demandClass: z.demandClass, abcClass: z.site.abcClass ?? null, segmentIds: [...(z.site.segmentIds ?? [])],
      };
      const row = (variant: Variant, targetService: number, p: SimPolicy, expected: MeioSkuResult | null): BacktestRow => ({
        ...base, variant, targetService, policy: p.kind,
        reorderPoint: p.kind === 'sQ' || p.kind === 'RsS' ? p.reorderPoint : null,
        orderQty: p.kind === 'sQ' ? p.orderQty : null,
        orderUpTo: p.kind === 'sQ' ? null : p.orderUpTo,
        expectedFillRate: expected?.expectedFillRate ?? null, expectedOnHand: expected?.expectedOnHand ?? null,
        result: replay(p),
      });
      rows.push(row('target', r.targetService, policy, r));
      if (o.peers) {
        const cover = protectionWeeks(policy, lead);
        const normal = normalPeerLevel(weeklyMoments(z.fitted), cover, r.targetService);
        rows.push(row('normal', r.targetService, withLevel(policy, normal.level), null));
        const sample = bootstrapLeadTimeDemand(z.fitted, cover, { samples: o.bootstrapSamples, seed: o.seed + item.itemId * 7919 + r.siteId });
        rows.push(row('bootstrap', r.targetService, withLevel(policy, sampleQuantile(sample, r.targetService)), null));
      }
      for (const [variant, levels] of [['sweep', sweeps], ['portfolio', portfolio]] as const) {
        for (const s of levels) {
          const at = s.skus.find((x) => x.siteId === r.siteId);
          const p = at ? simPolicyOf(at) : null;
          if (at && p) rows.push(row(variant, s.level, p, at));
        }
      }
    }
  }
  return { rows, skipped };
}
