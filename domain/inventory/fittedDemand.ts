/**
 * The demand distribution the inventory engines take, from what the distribution step stored: its chosen family and
 * parameters, fitted to weekly demand or to demand summed over a lead-time block. A block fit is brought back to one
 * week by the family's own divisibility (Poisson λ/L, negative binomial r/L, gamma shape/L, normal by its moments).
 * The empirical fit stores no sample, so the weekly history is passed in.
 */
import type { DemandDistribution } from './leadTimeDemand';

export interface StoredFit {
  distribution_type: string | null;
  params: Record<string, number> | null;
  basis: string | null;
  lead_time_weeks: number | null;
  mean: number | null;
  std: number | null;
}

const positive = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v > 0;

export function weeklyDemandOf(fit: StoredFit, weeklyHistory: readonly number[]): DemandDistribution | null {
  if (!fit.distribution_type) return null;
  const block = fit.basis === 'lead_time' && positive(fit.lead_time_weeks) ? fit.lead_time_weeks : 1;
  const p = fit.params ?? {};
  switch (fit.distribution_type) {
    case 'poisson':
      return positive(p.lambda) ? { type: 'poisson', lambda: p.lambda / block } : null;
    case 'negative_binomial':
      return positive(p.r) && positive(p.p) && p.p < 1 ? { type: 'negative_binomial', r: p.r / block, p: p.p } : null;
    case 'gamma':
      return positive(p.shape) && positive(p.rate) ? { type: 'gamma', shape: p.shape / block, rate: p.rate } : null;
    case 'normal': {
      const mu = typeof p.mu === 'number' ? p.mu : fit.mean;
      const sigma = typeof p.sigma === 'number' ? p.sigma : fit.std;
      if (typeof mu !== 'number' || typeof sigma !== 'number' || !Number.isFinite(mu) || !Number.isFinite(sigma)) return null;
      return { type: 'normal', mu: mu / block, sigma: Math.max(sigma / Math.sqrt(block), 1e-9) };
    }
    case 'empirical': {
      const values = weeklyHistory.filter((v) => Number.isFinite(v) && v >= 0).map(Math.round);
      return values.length ? { type: 'empirical', values } : null;
    }
    default:
      return null;
  }
}
