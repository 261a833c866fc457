/**
 * The contract every forecasting method implements. Pure: numbers in, numbers out; no database, no Temporal.
 * y is the (outlier-corrected) history, oldest first, equally spaced; h the horizon in periods.
 */
export interface ForecastOptions {
  /** seasonal period: 52 weekly, 12 monthly, 4 quarterly, 1 non-seasonal */
  period: number;
  /** coverage of the prediction interval, e.g. 0.9 for yhat_lower/yhat_upper at 5 % and 95 % */
  level: number;
  /** per-method hyperparameters from the parameter hierarchy (e.g. {alpha: 0.3} or {window: 8}) */
  params?: Record<string, number | string | boolean>;
}

export interface ForecastResult {
  method: string;
  /** point forecast, length h */
  mean: Float64Array;
  /** lower and upper bounds of the central `level` prediction interval, length h; lower <= mean <= upper */
  lower: Float64Array;
  upper: Float64Array;
  /** one-step-ahead in-sample fitted values, length y.length (NaN where undefined) */
  fitted?: Float64Array;
  /** fitted parameters, for explanations and the API */
  params: Record<string, number | string | boolean>;
  /** information criteria when the method is likelihood-based */
  aic?: number;
  aicc?: number;
  bic?: number;
}

export type Forecaster = (y: ArrayLike<number>, h: number, opts: ForecastOptions) => ForecastResult;
