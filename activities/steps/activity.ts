import { appendLog } from '../../db/jobs';
import type { SeriesKey } from '../../db/etl';
import { keysOfUniqueIds } from '../../domain/series/keys';
import { withTenant, type Db } from '../../db/pool';
import { scopeChunks, scopeItemChunks, seriesInRange, weeklyInRange, type RunScope, type SeriesChunk } from '../../db/seriesSteps';
import { checkpoint } from '../jobs/activity';
import { resolveParametersInRange } from '../../db/parameterResolution';
import { STEP_HANDLERS } from './registry';
import type { SeriesStepHandler, StepOutcome } from './types';
import type { ResolvedParameters } from '../../domain/parameters/resolve';

export interface SeriesStepInput {
  accountId: string;
  jobId: string;
  step: string;
  pipelineId: number | null;
  scenarioId: number | null;
  /** meio: the MEIO scenario (null: the tenant's default) */
  meioScenarioId?: number | null;
  /** supply, allocation: the supply scenario (null: the tenant's default) */
  supplyScenarioId?: number | null;
  segmentId: number | null;
  /** run-forecast: unique ids `<item_id>_<site_id>` */
  series?: string[] | null;
  methods?: string[] | null;
}

export interface SeriesStepPlan {
  total: number;
  chunks: SeriesChunk[];
}

function handlerOf(step: string): SeriesStepHandler {
  const h = STEP_HANDLERS[step];
  if (!h) throw new Error(`no handler for step ${step}`);
  return h;
}

function scopeOf(input: SeriesStepInput): RunScope {
  const keys: SeriesKey[] | null = input.series?.length ? keysOfUniqueIds(input.series) : null;
  return { pipelineId: input.pipelineId ?? 0, segmentId: input.segmentId ?? null, keys };
}

/** The chunked per-series steps: plan the chunks, run one chunk, finalise. runStep drives them for every such step. */
export function createSeriesStepActivities({ db }: { db: Db }) {
  return {
    async seriesStepPlan(input: SeriesStepInput & { chunkSize: number; lanes?: number }): Promise<SeriesStepPlan> {
      const handler = handlerOf(input.step);
      return withTenant(db, input.accountId, async (tx) => {
        const chunks = handler.chunkBy === 'item'
          ? await scopeItemChunks(tx, scopeOf(input), input.chunkSize)
          : await scopeChunks(tx, scopeOf(input), input.chunkSize, input.lanes ?? 1);
        const total = chunks.reduce((n, c) => n + c.count, 0);
        await appendLog(tx, input.jobId, total ? `${input.step}: ${total} series in ${chunks.length} chunks` : `${input.step}: no series with weekly history in scope (run etl first)`);
        return { total, chunks };
      });
    },

    async seriesStepChunk(input: SeriesStepInput & { from: SeriesKey; to: SeriesKey; index: number; of: number }): Promise<{ series: number; rows: number }> {
      const handler = handlerOf(input.step);
      checkpoint({ index: input.index, phase: 'load' });
      return withTenant(db, input.accountId, async (tx) => {
        const scope = scopeOf(input);
        const run = { tx, jobId: input.jobId, scope, scenarioId: input.scenarioId, meioScenarioId: input.meioScenarioId ?? null, supplyScenarioId: input.supplyScenarioId ?? null, methods: input.methods ?? null, index: input.index, of: input.of };
        const compute = async <S extends SeriesKey>(series: S[], step: (series: S[], params: Map<string, ResolvedParameters>) => StepOutcome) => {
          const params = handler.parameterTypes.length ? await resolveParametersInRange(tx, input.from, input.to, handler.parameterTypes, series) : new Map();
          checkpoint({ index: input.index, phase: 'compute' });
          return { count: series.length, ...(await step(series, params)) };
        };
        const r = handler.reads === 'keys'
          ? await compute(await seriesInRange(tx, scope, input.from, input.to), (series, params) => handler.run(run, series, params))
          : await compute(await weeklyInRange(tx, scope, input.from, input.to), (series, params) => handler.run(run, series, params));
        await appendLog(tx, input.jobId, `${input.step}: chunk ${input.index + 1}/${input.of}: ${r.count} series, ${r.rows} rows${r.note ? `; ${r.note}` : ''}`);
        return { series: r.count, rows: r.rows };
      });
    },

    async seriesStepFinalize(input: SeriesStepInput): Promise<void> {
      const handler = handlerOf(input.step);
      if (!handler.finalize) return;
      await withTenant(db, input.accountId, async (tx) => {
        const note = await handler.finalize!({ tx, jobId: input.jobId, scope: scopeOf(input), scenarioId: input.scenarioId, meioScenarioId: input.meioScenarioId ?? null, supplyScenarioId: input.supplyScenarioId ?? null, methods: input.methods ?? null });
        if (note) await appendLog(tx, input.jobId, `${input.step}: ${note}`);
      });
    },
  };
}
