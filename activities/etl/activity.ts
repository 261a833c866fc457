import { appendLog } from '../../db/jobs';
import { demandChunks, demandInRange, dropOrphanWeekly, lastDemandWeek, writeWeekly, type SeriesKey, type WeeklyWrite } from '../../db/etl';
import { withTenant, type Db } from '../../db/pool';
import { checkpoint } from '../jobs/activity';
import { toWeekly, weeklyStats } from './weekly';

export interface EtlPlan {
  endWeek: string | null;
  total: number;
  chunks: Array<{ from: SeriesKey; to: SeriesKey; count: number }>;
}

/** etl: raw demand history → clean weekly series (Monday weeks, zero-filled) with their statistics. */
export function createEtlActivities({ db }: { db: Db }) {
  return {
    async etlPlan(input: { accountId: string; jobId: string; chunkSize: number }): Promise<EtlPlan> {
      return withTenant(db, input.accountId, async (tx) => {
        const endWeek = await lastDemandWeek(tx);
        const chunks = endWeek ? await demandChunks(tx, input.chunkSize) : [];
        const total = chunks.reduce((n, c) => n + c.count, 0);
        await appendLog(tx, input.jobId, endWeek ? `etl: ${total} series in ${chunks.length} chunks, up to the week of ${endWeek}` : 'etl: no demand history to process');
        return { endWeek, total, chunks };
      });
    },

    async etlChunk(input: { accountId: string; jobId: string; endWeek: string; from: SeriesKey; to: SeriesKey; index: number; of: number }): Promise<{ series: number; rows: number }> {
      checkpoint({ index: input.index, phase: 'load' });
      return withTenant(db, input.accountId, async (tx) => {
        const d = await demandInRange(tx, input.from, input.to);
        const out: WeeklyWrite[] = [];
        let i = 0;
        while (i < d.ds.length) {
          let j = i;
          while (j < d.ds.length && d.item_id[j] === d.item_id[i] && d.site_id[j] === d.site_id[i]) j += 1;
          const weekly = toWeekly(d.ds.slice(i, j), d.qty.slice(i, j), input.endWeek);
          if (weekly) out.push({ item_id: d.item_id[i], site_id: d.site_id[i], start: weekly.start, y: Array.from(weekly.y), stats: weeklyStats(weekly) });
          i = j;
        }
        checkpoint({ index: input.index, phase: 'write' });
        const rows = await writeWeekly(tx, input.from, input.to, out);
        await appendLog(tx, input.jobId, `etl: chunk ${input.index + 1}/${input.of}: ${out.length} series, ${rows} weekly rows`);
        return { series: out.length, rows };
      });
    },

    async etlFinalize(input: { accountId: string; jobId: string }): Promise<{ dropped: number }> {
      return withTenant(db, input.accountId, async (tx) => {
        const dropped = await dropOrphanWeekly(tx);
        if (dropped) await appendLog(tx, input.jobId, `etl: removed ${dropped} weekly rows of series without demand`);
        return { dropped };
      });
    },
  };
}
