/**
 * POST /api/methods/check-compatibility: which forecasting methods can run on a series with the given
 * characteristics, by the same rules the forecast step applies (characterization isCompatible, registry canRun for
 * the methods characterization does not list), and which of them characterization would recommend. Pure.
 */
import { ADI_CUTOFF, isCompatible, METHODS, recommendMethods, type DemandClass } from '../characterization/characterize';
import { canRun, COMBINATION, METHOD_NAMES } from './registry';

/** Every method the forecast step knows, in tie-break order, combination last. */
export const ALL_METHODS: readonly string[] = [...METHOD_NAMES, COMBINATION];

export interface CompatibilityRequest {
  n_observations: number;
  season_length?: number;
  demand_class?: DemandClass;
  is_intermittent?: boolean;
  has_seasonality?: boolean;
  has_trend?: boolean;
  zero_ratio?: number;
  n_nonzero?: number;
  min?: number;
  methods?: string[];
}

export interface CompatibilityAnswer {
  characteristics: {
    n_observations: number;
    season_length: number;
    n_nonzero: number;
    is_intermittent: boolean;
    has_seasonality: boolean;
    has_trend: boolean;
  };
  compatible: string[];
  incompatible: Array<{ method: string; reason: string }>;
  recommended: string[];
}

/** An input the rules cannot accept: `field` is the body field to name in the 400. */
export class CompatibilityInputError extends Error {
  constructor(public readonly field: string, message: string) {
    super(message);
  }
}

export const DEFAULT_SEASON_LENGTH = 52;
const INTERMITTENT_CLASSES: ReadonlySet<string> = new Set(['intermittent', 'lumpy']);

export function checkCompatibility(req: CompatibilityRequest): CompatibilityAnswer {
  const n = req.n_observations;
  const period = req.season_length ?? DEFAULT_SEASON_LENGTH;
  if (req.n_nonzero !== undefined && req.n_nonzero > n) {
    throw new CompatibilityInputError('n_nonzero', `${req.n_nonzero} non-zero periods cannot exceed n_observations (${n})`);
  }
  const nonZero = req.n_nonzero ?? (req.zero_ratio !== undefined ? Math.round(n * (1 - req.zero_ratio)) : n);
  const fromClass = req.demand_class !== undefined ? INTERMITTENT_CLASSES.has(req.demand_class) : undefined;
  if (req.is_intermittent !== undefined && fromClass !== undefined && req.is_intermittent !== fromClass) {
    throw new CompatibilityInputError('is_intermittent', `${req.is_intermittent} contradicts demand_class '${req.demand_class}' (intermittent and lumpy are the intermittent classes)`);
  }
  // Without a flag or class, intermittency follows from the share of non-zero periods, as ADI = n / non-zero > 1.32.
  const derived = req.n_nonzero !== undefined || req.zero_ratio !== undefined ? (nonZero === 0 ? n > 0 : n / nonZero > ADI_CUTOFF) : false;
  const isIntermittent = req.is_intermittent ?? fromClass ?? derived;
  const engineInput = { n_observations: n, period, n_nonzero: nonZero, zero_ratio: req.zero_ratio, min: req.min };

  const wanted = req.methods ?? ALL_METHODS;
  wanted.forEach((m, i) => {
    if (!ALL_METHODS.includes(m)) throw new CompatibilityInputError(`methods[${i}]`, `unknown method '${m}' (known: ${ALL_METHODS.join(', ')})`);
  });
  const compatible: string[] = [];
  const incompatible: Array<{ method: string; reason: string }> = [];
  for (const m of [...new Set(wanted)]) {
    const c = (METHODS as readonly string[]).includes(m)
      ? (() => {
        const r = isCompatible(m, engineInput);
        return { ok: r.compatible, reason: r.reason };
      })()
      : canRun(m, { n, nonZero, min: req.min ?? 0 }, period);
    if (c.ok) compatible.push(m);
    else incompatible.push({ method: m, reason: c.reason ?? 'not compatible' });
  }
  const recommended = recommendMethods({
    n_observations: n, period, is_intermittent: isIntermittent, has_seasonality: req.has_seasonality ?? false, has_trend: req.has_trend ?? false,
    n_nonzero: nonZero, zero_ratio: req.zero_ratio, min: req.min,
  }).filter((m) => wanted.includes(m));
  return {
    characteristics: {
      n_observations: n, season_length: period, n_nonzero: nonZero, is_intermittent: isIntermittent,
      has_seasonality: req.has_seasonality ?? false, has_trend: req.has_trend ?? false,
    },
    compatible,
    incompatible,
    recommended,
  };
}
