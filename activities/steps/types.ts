import type { RunScope, StepSeries, WeeklySeries } from '../../db/seriesSteps';
import type { Tx } from '../../db/pool';
import type { ResolvedParameters } from '../../domain/parameters/resolve';

/** What a step handler knows about the run it works for. */
export interface StepRun {
  tx: Tx;
  jobId: string;
  scope: RunScope;
  scenarioId: number | null;
  /** meio: the MEIO scenario (null: the tenant's default) */
  meioScenarioId?: number | null;
  /** supply: the supply scenario (null: the tenant's default) */
  supplyScenarioId?: number | null;
  /** run-forecast: the methods asked for (null: the parameters decide) */
  methods: string[] | null;
  /** chunk index and count, for log lines */
  index: number;
  of: number;
}

interface StepHandlerBase {
  parameterTypes: readonly string[];
  /** 'item': chunks hold whole items (every site of an item in one chunk), for steps that plan across a network */
  chunkBy?: 'series' | 'item';
  /** after every chunk (optional): e.g. drop results of series that left the scope */
  finalize?(run: Omit<StepRun, 'index' | 'of'>): Promise<string | null>;
}

export type StepOutcome = Promise<{ rows: number; note?: string }>;

/**
 * One per-series pipeline step. `run` gets the chunk's weekly series and their resolved parameters (the types listed
 * in parameterTypes, keyed `<item_id>_<site_id>`), computes with the pure engines and rewrites its own rows for
 * exactly these series and the run's pipeline, so a retried chunk writes the same result again.
 */
export interface HistoryStepHandler extends StepHandlerBase {
  reads?: 'history';
  run(run: StepRun, series: WeeklySeries[], params: Map<string, ResolvedParameters>): StepOutcome;
}

/** A step that plans from other steps' results and needs only the chunk's series keys, not their weekly history. */
export interface KeysStepHandler extends StepHandlerBase {
  reads: 'keys';
  run(run: StepRun, series: StepSeries[], params: Map<string, ResolvedParameters>): StepOutcome;
}

export type SeriesStepHandler = HistoryStepHandler | KeysStepHandler;
