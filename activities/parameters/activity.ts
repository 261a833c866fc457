import type { SeriesKey } from '../../db/etl';
import { appendLog } from '../../db/jobs';
import { materialiseAssignments } from '../../db/parameterResolution';
import { dropAssignmentsOfOtherTypes, seriesChunks } from '../../db/parameterSets';
import { withTenant, type Db } from '../../db/pool';
import { PARAMETER_TYPES } from '../../domain/parameters/defaults';
import { checkpoint } from '../jobs/activity';

export type { ResolvedParameters, ResolvedType, ValueSource } from '../../domain/parameters/resolve';

export interface ResolvePlan {
  total: number;
  chunks: Array<{ from: SeriesKey; to: SeriesKey; count: number }>;
}

/** The parameters_resolve job (POST /api/parameters/resolve with many series): plan, chunks, finalise. */
export function createParameterActivities({ db }: { db: Db }) {
  return {
    async parametersResolvePlan(input: { accountId: string; jobId: string; chunkSize: number }): Promise<ResolvePlan> {
      return withTenant(db, input.accountId, async (tx) => {
        const chunks = await seriesChunks(tx, input.chunkSize);
        const total = chunks.reduce((n, c) => n + c.count, 0);
        await appendLog(tx, input.jobId, `parameters: resolving ${total} series in ${chunks.length} chunks`);
        return { total, chunks };
      });
    },

    async parametersResolveChunk(input: { accountId: string; jobId: string; from: SeriesKey; to: SeriesKey; index: number; of: number }): Promise<{ series: number; rows: number }> {
      checkpoint({ index: input.index, phase: 'resolve' });
      return withTenant(db, input.accountId, async (tx) => {
        const r = await materialiseAssignments(tx, input.from, input.to, input.jobId);
        await appendLog(tx, input.jobId, `parameters: chunk ${input.index + 1}/${input.of}: ${r.series} series, ${r.rows} assignments`);
        return r;
      });
    },

    async parametersResolveFinalize(input: { accountId: string; jobId: string }): Promise<{ dropped: number }> {
      return withTenant(db, input.accountId, async (tx) => ({ dropped: await dropAssignmentsOfOtherTypes(tx, PARAMETER_TYPES) }));
    },
  };
}
