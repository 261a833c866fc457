import { characterizationStep } from '../characterization/step';
import { distributionStep } from '../distribution/step';
import { eoqStep } from '../eoq/step';
import { backtestForecastStep, backtestStep, bestMethodStep, forecastStep } from '../forecast/step';
import { meioStep } from '../meio/step';
import { outlierStep } from '../outlier/step';
import { serviceBacktestStep } from '../serviceBacktest/step';
import { supplyStep } from '../supply/step';
import type { SeriesStepHandler } from './types';

/**
 * The per-series steps the generic chunked activity can run, by step id (lib/steps.ts). A step's handler lives with
 * its engine (activities/<step>/step.ts); registering it here is what makes runStep dispatch to it.
 */
export const STEP_HANDLERS: Record<string, SeriesStepHandler> = {
  outlier: outlierStep,
  characterization: characterizationStep,
  forecast: forecastStep,
  backtest: backtestStep,
  'backtest-forecast': backtestForecastStep,
  'best-method': bestMethodStep,
  distribution: distributionStep,
  meio: meioStep,
  eoq: eoqStep,
  supply: supplyStep,
  'service-backtest': serviceBacktestStep,
};
