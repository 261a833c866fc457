/**
 * The rules that turn a pipeline's results into the forecast and io issues of the exception log and of
 * GET /api/exceptions (docs/EXCEPTIONS.md). Supply issues are not derived here: they are the supply run's own
 * exceptions, copied as they are.
 */

export type ExceptionType = 'forecast' | 'io' | 'supply';
export const EXCEPTION_TYPES: readonly ExceptionType[] = ['forecast', 'io', 'supply'];
export type Severity = 'high' | 'medium' | 'low';

export interface Issue {
  type: ExceptionType;
  code: string;
  severity: Severity;
  description: string;
  [extra: string]: unknown;
}

/** MASE of the best method above this: the forecast does worse than the naive one-step forecast did in-sample, by half. */
export const MASE_MAX = 1.5;
/** MASE above twice the limit is a high-severity issue. */
export const MASE_HIGH = 2 * MASE_MAX;
/** |backtest bias| / mean weekly demand above this: the best method over- or under-forecasts by more than 20 %. */
export const BIAS_MAX = 0.2;
/** A fill rate this far below the target (absolute) makes a missed target high severity. */
export const SERVICE_GAP_HIGH = 0.1;

export interface ForecastFacts {
  best_method: string | null;
  /** backtest MASE of the best method */
  mase: number | null;
  /** backtest bias (mean of forecast − actual) of the best method */
  bias: number | null;
  /** mean weekly demand (characterization) */
  mean: number | null;
}

export interface IoFacts {
  meets_target: boolean;
  target_service: number;
  expected_fill_rate: number | null;
  diagnostics: ReadonlyArray<{ code: string; detail?: string }>;
}

const pct = (x: number) => `${(100 * x).toFixed(1)} %`;

export function forecastIssues(f: ForecastFacts): Issue[] {
  if (f.best_method === null) {
    return [{ type: 'forecast', code: 'no_best_method', severity: 'high', description: 'no best method was chosen for this series: run the backtest and best-method steps' }];
  }
  const out: Issue[] = [];
  if (f.mase !== null && Number.isFinite(f.mase) && f.mase > MASE_MAX) {
    out.push({
      type: 'forecast', code: 'high_mase', severity: f.mase > MASE_HIGH ? 'high' : 'medium', value: f.mase, threshold: MASE_MAX,
      description: `best method ${f.best_method} has a backtest MASE of ${f.mase.toFixed(2)} (limit ${MASE_MAX})`,
    });
  }
  // Relative to the mean so one threshold fits a series of 5 a week and one of 5,000; a series without demand has no bias to speak of.
  if (f.bias !== null && Number.isFinite(f.bias) && f.mean !== null && f.mean > 0) {
    const rel = f.bias / f.mean;
    if (Math.abs(rel) > BIAS_MAX) {
      out.push({
        type: 'forecast', code: 'bias', severity: Math.abs(rel) > 2 * BIAS_MAX ? 'high' : 'medium', value: rel, threshold: BIAS_MAX,
        description: `best method ${f.best_method} ${rel > 0 ? 'over' : 'under'}-forecasts by ${pct(Math.abs(rel))} of mean demand (limit ±${pct(BIAS_MAX)})`,
      });
    }
  }
  return out;
}

export function ioIssues(f: IoFacts): Issue[] {
  const noDistribution = f.diagnostics.find((d) => d.code === 'no_distribution');
  if (noDistribution) {
    return [{ type: 'io', code: 'no_distribution', severity: 'high', description: noDistribution.detail ?? 'no fitted demand distribution: run the distribution step' }];
  }
  if (f.meets_target) return [];
  const fill = f.expected_fill_rate;
  const gap = fill === null ? Infinity : f.target_service - fill;
  const why = f.diagnostics.map((d) => d.detail ?? d.code).join('; ');
  return [{
    type: 'io', code: 'below_target', severity: gap > SERVICE_GAP_HIGH ? 'high' : 'medium', value: fill, threshold: f.target_service,
    description: `expected service ${fill === null ? 'unknown' : pct(fill)} below the target ${pct(f.target_service)}${why ? ` (${why})` : ''}`,
  }];
}

/** Parses the `types` filter; the unknown name, if any, for the 400. */
export function parseTypes(text: string): { types: ExceptionType[]; unknown: string | null } {
  const names = text.split(',').map((s) => s.trim()).filter(Boolean);
  const bad = names.find((n) => !(EXCEPTION_TYPES as readonly string[]).includes(n));
  return { types: [...new Set(names)] as ExceptionType[], unknown: bad ?? null };
}
