/**
 * The pipeline steps (spec §1) plus eoq and allocation. Pure data: the API lists it, the workflows read it.
 * `available` turns true in the issue that implements the step; until then a run fails with "step not available yet".
 */
export interface StepInfo {
  id: string;
  label: string;
  description: string;
  available: boolean;
}

export const STEPS: readonly StepInfo[] = [
  { id: 'etl', label: 'ETL', description: 'Turns imported demand history into clean weekly series per item and site (weeks start Monday, gaps filled with zeros) and their statistics.', available: true },
  { id: 'outlier', label: 'Outlier correction', description: 'Detects outliers in the weekly demand and writes corrected values.', available: true },
  { id: 'characterization', label: 'Characterization', description: 'Demand classification (smooth, erratic, intermittent, lumpy), seasonality and trend tests, recommended methods.', available: true },
  { id: 'forecast', label: 'Forecast', description: 'Fits the tournament of forecasting methods and forecasts the horizon with prediction intervals.', available: true },
  { id: 'backtest', label: 'Backtest', description: 'Rolling-origin backtests of every method: MAE, RMSE, MASE, bias, coverage.', available: true },
  { id: 'backtest-forecast', label: 'Backtest forecasts', description: 'Stores the forecasts made at each backtest origin for evolution and convergence views.', available: true },
  { id: 'best-method', label: 'Best method', description: 'Picks the best method per series by the configured score, respecting locked methods.', available: true },
  { id: 'distribution', label: 'Distribution fitting', description: 'Fits normal, gamma, Poisson, negative binomial and empirical demand distributions; chooses by Kolmogorov-Smirnov.', available: true },
  { id: 'meio', label: 'Multi-echelon inventory optimisation', description: 'Per item across its network of sites: safety-stock placement (guaranteed-service model), the exact (r,Q), (s,S) or base-stock policy of every stocking site for its service target, and the service-versus-investment curve the greedy optimiser traces.', available: true },
  { id: 'supply', label: 'Supply planning', description: 'Nets demand against stock and firm orders and plans supply along sourcing routes for 52 weeks: orders, pegging, projected inventory, exceptions; followed by allocation as its child.', available: true },
  { id: 'eoq', label: 'EOQ and lot sizing', description: 'Economic order quantities, order frequencies and Wagner-Whitin lot sizing.', available: true },
  { id: 'allocation', label: 'Allocation', description: 'Allocates planned supply to demand; runs as a child of supply or on its own.', available: true },
  { id: 'service-backtest', label: 'Service backtest', description: 'Sizes every SKU-site\'s stock policy as of an origin weeks before the end of its history (outlier correction, distribution and meio as the pipeline runs them), replays it and two textbook peers week by week on the demand that came, and records achieved against target fill rate and the stock it took. Not in run-all unless asked.', available: true },
];

/** The ten steps of spec §1 in pipeline order, with eoq before supply (its lot sizes feed the plan): what run-all runs. */
export const PIPELINE_ORDER = ['etl', 'outlier', 'characterization', 'forecast', 'backtest', 'backtest-forecast', 'best-method', 'distribution', 'meio', 'eoq', 'supply'] as const;

export const STEP_IDS = STEPS.map((s) => s.id);

export const isStepAvailable = (id: string): boolean => STEPS.some((s) => s.id === id && s.available);
