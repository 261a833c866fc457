/**
 * Why a series got its forecasting method, in plain sentences: from its characterisation (Syntetos-Boylan class, ADI,
 * CV², seasonality, trend) and the rolling-origin backtest (the best method against the runner-up on the ranking
 * metric). `explainMethod` is deterministic; `explanationMessages` is the prompt a language model gets with the same
 * facts (and the deterministic text as a draft), so both answers rest on exactly the same numbers. Pure: no I/O.
 */
import { ADI_CUTOFF, CV2_CUTOFF } from '../characterization/characterize';

export interface MethodMetrics {
  mae: number | null;
  rmse: number | null;
  mase: number | null;
  bias: number | null;
  coverage_90: number | null;
  origins_evaluated: number;
}

export interface ExplanationFacts {
  unique_id: string;
  pipeline_id: number;
  best_method: string;
  runner_up_method: string | null;
  /** metric that ranked the methods (mase, mae, rmse or bias); null when no backtest ranked them */
  metric: string | null;
  best_score: number | null;
  runner_up_score: number | null;
  /** how much lower the best score is than the runner-up's, in % of the runner-up's (null when not comparable) */
  improvement_pct: number | null;
  methods_compared: number;
  /** the best-method step used a planner's lock */
  locked: boolean;
  /** the lock in place now (it may have been set after the last run) */
  locked_method: string | null;
  locked_by: string | null;
  characteristics: {
    demand_class: string;
    n_observations: number;
    mean: number | null;
    adi: number | null;
    cv2: number | null;
    zero_ratio: number | null;
    has_seasonality: boolean;
    seasonal_period: number;
    has_trend: boolean;
    /** sign of the Mann-Kendall statistic when stored: +1 up, −1 down */
    trend_direction: 1 | -1 | null;
    complexity_level: string;
  } | null;
  best_metrics: MethodMetrics | null;
  runner_up_metrics: MethodMetrics | null;
}

export { ADI_CUTOFF, CV2_CUTOFF };

const METHOD_TEXT: Record<string, string> = {
  naive: 'the naive method (next weeks repeat the last week)',
  seasonal_naive: 'the seasonal naive method (next weeks repeat the same weeks one season ago)',
  moving_average: 'a moving average of the recent weeks',
  ses: 'simple exponential smoothing (a level that adapts, no trend or season)',
  holt: "Holt's linear trend method (level and trend)",
  damped_trend: 'a damped trend method (level and a trend that flattens out)',
  holt_winters: 'Holt-Winters (level, trend and season)',
  ets: 'an exponential smoothing (ETS) model chosen by information criterion',
  theta: 'the Theta method (a smoothed level with half the long-run trend)',
  optimized_theta: 'the optimised Theta method',
  arima: 'an automatically selected ARIMA model',
  croston: "Croston's method (demand sizes and intervals between demands smoothed separately)",
  sba: 'the Syntetos-Boylan approximation (Croston with its bias corrected)',
  tsb: 'the TSB method (demand size and probability of demand smoothed separately)',
  adida: 'ADIDA (demand aggregated over time, forecast, then spread back)',
  combination: 'a combination of the best individual methods',
};

const CLASS_TEXT: Record<string, string> = {
  smooth: 'smooth (demand almost every week, with stable sizes)',
  erratic: 'erratic (demand almost every week, with sizes that vary a lot)',
  intermittent: 'intermittent (many weeks without demand, with stable sizes)',
  lumpy: 'lumpy (many weeks without demand, with sizes that vary a lot)',
};

const METRIC_TEXT: Record<string, string> = {
  mase: 'mean absolute scaled error (MASE)',
  mae: 'mean absolute error (MAE)',
  rmse: 'root mean squared error (RMSE)',
  bias: 'absolute bias',
};

const f2 = (v: number) => (Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 10 ? v.toFixed(1) : v.toFixed(2));
const f3 = (v: number) => v.toFixed(3);
const pct = (v: number) => `${(v * 100).toFixed(0)} %`;

/** improvement of `best` over `runner` on a lower-is-better metric (bias by absolute value), in % of the runner-up. */
export function improvementPct(metric: string | null, best: number | null, runner: number | null): number | null {
  if (best === null || runner === null || !Number.isFinite(best) || !Number.isFinite(runner)) return null;
  const [b, r] = metric === 'bias' ? [Math.abs(best), Math.abs(runner)] : [best, runner];
  if (r <= 0) return null;
  return ((r - b) / r) * 100;
}

export const describeMethod = (m: string) => METHOD_TEXT[m] ?? m;

function characterSentences(f: ExplanationFacts): string[] {
  const c = f.characteristics;
  if (!c) return [`Series ${f.unique_id} has not been characterised yet, so only the backtest explains the choice.`];
  const out: string[] = [];
  const parts: string[] = [];
  if (c.adi !== null) parts.push(`an average demand interval (ADI) of ${f2(c.adi)} weeks (${c.adi > ADI_CUTOFF ? 'above' : 'at or below'} the ${ADI_CUTOFF} cut-off)`);
  if (c.cv2 !== null) parts.push(`a squared coefficient of variation of demand sizes (CV²) of ${f2(c.cv2)} (${c.cv2 > CV2_CUTOFF ? 'above' : 'at or below'} ${CV2_CUTOFF})`);
  out.push(`The demand of series ${f.unique_id} is ${CLASS_TEXT[c.demand_class] ?? c.demand_class}: over ${c.n_observations} weeks of history it has ${parts.length ? parts.join(' and ') : 'no computable ADI or CV²'}${c.zero_ratio !== null ? `, and ${pct(c.zero_ratio)} of its weeks have no demand` : ''}.`);
  const season = c.has_seasonality ? `a seasonal pattern (period ${c.seasonal_period} weeks) was detected` : 'no seasonal pattern was detected';
  const trend = c.has_trend ? `${c.trend_direction === 1 ? 'an upward' : c.trend_direction === -1 ? 'a downward' : 'a'} trend was detected` : 'no significant trend was detected';
  out.push(`${season[0].toUpperCase()}${season.slice(1)}, and ${trend}.`);
  return out;
}

function backtestSentences(f: ExplanationFacts): string[] {
  const out: string[] = [];
  const metric = f.metric ? METRIC_TEXT[f.metric] ?? f.metric : null;
  const origins = f.best_metrics?.origins_evaluated ?? 0;
  if (!metric || f.best_score === null) {
    out.push(`No backtest ranked the methods for this series (too little history), so ${f.best_method} was chosen by default.`);
    return out;
  }
  const over = origins ? ` over ${origins} rolling origin${origins === 1 ? '' : 's'}` : '';
  if (!f.runner_up_method || f.runner_up_score === null) {
    out.push(`In the backtest${over}, ${f.best_method} was the only method that could be scored, with a ${metric} of ${f3(f.best_score)}.`);
    return out;
  }
  if (f.locked) {
    // A lock is not a win: say how the locked method compares, in whichever direction.
    const p = f.improvement_pct;
    const cmp = p === null ? '' : p > 0 ? `, ${p.toFixed(1)} % lower` : p < 0 ? `, ${(-p).toFixed(1)} % higher` : ', the same score';
    out.push(`In the backtest${over}, ${f.best_method} scored a ${metric} of ${f3(f.best_score)} against ${f3(f.runner_up_score)} for ${f.runner_up_method}, the best of the other methods${cmp}.`);
  } else {
    const by = f.improvement_pct === null ? '' : f.improvement_pct > 0 ? `, ${f.improvement_pct.toFixed(1)} % lower` : ', a tie broken in favour of the simpler method';
    out.push(`In the backtest${over}, ${f.best_method} had the lowest ${metric} of the ${f.methods_compared} methods compared: ${f3(f.best_score)} against ${f3(f.runner_up_score)} for the runner-up, ${f.runner_up_method}${by}.`);
  }
  const b = f.best_metrics;
  const r = f.runner_up_metrics;
  if (b && r && f.metric !== 'mae' && b.mae !== null && r.mae !== null) {
    out.push(`Its forecasts missed actual demand by ${f2(b.mae)} units a week on average (mean absolute error), against ${f2(r.mae)} for ${f.runner_up_method}.`);
  }
  if (b && b.bias !== null && f.metric !== 'bias') {
    const dir = Math.abs(b.bias) < 1e-9 ? 'no systematic over- or under-forecasting' : b.bias > 0 ? `a tendency to over-forecast by ${f2(b.bias)} units a week` : `a tendency to under-forecast by ${f2(-b.bias)} units a week`;
    out.push(`It showed ${dir}${b.coverage_90 !== null ? `, and its 90 % prediction interval contained ${pct(b.coverage_90)} of the actual weeks` : ''}.`);
  }
  return out;
}

export function explainMethod(f: ExplanationFacts): string {
  const out: string[] = [];
  out.push(...characterSentences(f));
  if (f.locked) {
    out.push(`${f.best_method} is used because a planner locked it${f.locked_by ? ` (${f.locked_by})` : ''}, whatever the backtest scores.`);
  } else {
    out.push(`The method chosen is ${f.best_method}: ${describeMethod(f.best_method)}.`);
  }
  out.push(...backtestSentences(f));
  if (f.locked_method && (!f.locked || f.locked_method !== f.best_method)) {
    out.push(`${f.locked_method} has been locked since the last run; it will be used from the next forecast run.`);
  }
  return out.join(' ');
}

export interface LlmMessage {
  role: 'system' | 'user';
  content: string;
}

/** The prompt: the facts as JSON and the deterministic text as a draft the model may rephrase but not contradict. */
export function explanationMessages(f: ExplanationFacts, draft = explainMethod(f)): LlmMessage[] {
  return [
    {
      role: 'system',
      content: [
        'You explain to a demand planner, in plain English, why a forecasting method was chosen for one time series.',
        'Use only the facts given; do not invent numbers, methods or causes. Round numbers as the draft does.',
        'Cover the demand pattern (class, ADI, CV², seasonality, trend), how the chosen method suits it, and how it beat the runner-up in the backtest (metric and margin); mention a lock if there is one.',
        'Answer with 3 to 6 sentences of plain text: no markdown, no lists, no headings.',
      ].join('\n'),
    },
    { role: 'user', content: `Facts (JSON):\n${JSON.stringify(f, null, 2)}\n\nDraft explanation:\n${draft}` },
  ];
}

/** Cleans a model's answer: plain text, bounded; null when nothing usable is left. */
export function cleanModelAnswer(text: string, maxChars = 4000): string | null {
  const t = text.replace(/```[a-z]*\n?|```/g, '').replace(/^#+\s*/gm, '').replace(/\s+\n/g, '\n').trim();
  if (!t) return null;
  return t.length > maxChars ? `${t.slice(0, maxChars - 1)}…` : t;
}
