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
import { weeklyDemandOf, type StoredFit } from '../inventory/fittedDemand';
import type { DemandDistribution } from '../inventory/leadTimeDemand';
import { planItemNetwork, type MeioRoute, type MeioSite, type MeioSkuResult, type SiteTarget } from '../inventory/meio';
import { bootstrapLeadTimeDemand, normalPeerLevel, sampleQuantile, weeklyMoments } from './peers';
import { leadTimeInWeeks, simulatePolicy, type ShortageMode, type SimPolicy, type SimulationResult } from './simulate';

export interface BacktestSiteInput {
  siteId: number;
  /** weekly demand up to the last week (NaN: closed week); null for a site without a series (an upstream site) */
  history: ArrayLike<number> | null;
  unitCost: number;
  masterLeadTime: number | null;
  moq: number;
  orderMultiple: number;
  target: SiteTarget;
  eoqOverride?: number | null;
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
  /** the distribution step: the stored fit (family, parameters, basis) */
  fit(corrected: Float64Array, itemId: number, siteId: number, leadTimeWeeks: number | undefined): StoredFit | null;
}

export const VARIANTS = ['target', 'normal', 'bootstrap', 'sweep'] as const;
export type Variant = (typeof VARIANTS)[number];

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
  corrected: Float64Array;
  demandClass: DemandClass | null;
  demand: DemandDistribution | null;
}

function plan(item: BacktestItemInput, sized: Map<number, Sized>, targetLevel: number | null): MeioSkuResult[] {
  const sites: MeioSite[] = item.sites.map((s) => {
    const z = sized.get(s.siteId);
    return {
      siteId: s.siteId, demand: z?.demand ?? null, hasSeries: Boolean(z), unitCost: s.unitCost, masterLeadTime: s.masterLeadTime,
      moq: s.moq, orderMultiple: s.orderMultiple, eoqOverride: s.eoqOverride ?? null,
      target: targetLevel === null ? s.target : { ...s.target, target_service: targetLevel },
    };
  });
  return planItemNetwork(sites, item.routes).skus;
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
    const sized = new Map<number, Sized>();
    for (const s of item.sites) {
      if (!s.history) continue;
      const cut = s.history.length - T;
      const before = cut > 0 ? Float64Array.from(Array.from(s.history).slice(0, cut)) : new Float64Array(0);
      if (cut <= 0 || openWeeks(before) < o.minHistoryWeeks) {
        skipped.push({ itemId: item.itemId, siteId: s.siteId, originWeeks: T, reason: `fewer than ${o.minHistoryWeeks} open weeks before the origin` });
        continue;
      }
      const corrected = models.correct(before, item.itemId, s.siteId);
      const fit = models.fit(corrected, item.itemId, s.siteId, s.masterLeadTime ?? undefined);
      // the meio step hands weeklyDemandOf the raw weekly history (what an empirical fit stands for): here the pre-origin part
      const demand = fit ? weeklyDemandOf(fit, Array.from(before)) : null;
      sized.set(s.siteId, { site: s, cut, corrected, demandClass: characterize(corrected, { period: 1 }).demand_class, demand });
    }
    if (!sized.size) continue;
    const ours = plan(item, sized, null);
    // a repairable item is not replayed (below): sizing it again along the sweep would be work for nothing
    const replayable = ours.some((r) => sized.has(r.siteId) && r.echelonModel !== 'metric');
    const sweeps = replayable ? (o.sweepTargets ?? []).map((level) => ({ level, skus: plan(item, sized, level) })) : [];
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
        const normal = normalPeerLevel(weeklyMoments(z.corrected), cover, r.targetService);
        rows.push(row('normal', r.targetService, withLevel(policy, normal.level), null));
        const sample = bootstrapLeadTimeDemand(z.corrected, cover, { samples: o.bootstrapSamples, seed: o.seed + item.itemId * 7919 + r.siteId });
        rows.push(row('bootstrap', r.targetService, withLevel(policy, sampleQuantile(sample, r.targetService)), null));
      }
      for (const s of sweeps) {
        const at = s.skus.find((x) => x.siteId === r.siteId);
        const p = at ? simPolicyOf(at) : null;
        if (at && p) rows.push(row('sweep', s.level, p, at));
      }
    }
  }
  return { rows, skipped };
}
