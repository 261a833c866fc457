import { calendarWeeksForSites } from '../../db/calendars';
import { appendLog } from '../../db/jobs';
import { demandChunks, demandInRange, dropAllWeekly, lastDemandWeek, writeWeekly, type DemandColumns, type KeySpan, type SeriesKey, type WeeklyWrite } from '../../db/etl';
import { withTenant, type Db, type Tx } from '../../db/pool';
import { checkpoint } from '../jobs/activity';
import { applyCalendar, mondayOf, toWeekly, weekFactors, weeklyStats } from '../../domain/time/weeks';

export interface EtlPlan {
  endWeek: string | null;
  total: number;
  chunks: Array<{ from: SeriesKey; to: SeriesKey; count: number }>;
}

/**
 * etl: raw demand history → clean weekly series (Monday weeks, zero-filled) with their statistics. The site's
 * calendar applies: closed weeks are stored as missing (y NULL, closed) and left out of the statistics; other weeks
 * carry their capacity factor (docs/PARAMETERS.md#calendars).
 */
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

    async etlChunk(input: { accountId: string; jobId: string; endWeek: string; from: SeriesKey; to: SeriesKey; index: number; of: number; span: KeySpan }): Promise<{ series: number; rows: number }> {
      checkpoint({ index: input.index, phase: 'load' });
      return withTenant(db, input.accountId, async (tx) => {
        const d = await demandInRange(tx, input.from, input.to);
        const calendars = await chunkCalendars(tx, d, input.endWeek);
        const out: WeeklyWrite[] = [];
        let closed = 0;
        let moved = 0;
        let dropped = 0;
        let i = 0;
        while (i < d.ds.length) {
          let j = i;
          while (j < d.ds.length && d.item_id[j] === d.item_id[i] && d.site_id[j] === d.site_id[i]) j += 1;
          let weekly = toWeekly(d.ds.slice(i, j), d.qty.slice(i, j), input.endWeek);
          const cal = calendars.get(d.site_id[i]);
          if (weekly && cal) {
            const effect = applyCalendar(weekly, weekFactors(weekly.start, weekly.y.length, cal.weeks, cal.factors));
            weekly = effect.series;
            closed += effect.closed;
            moved += effect.moved;
            dropped += effect.dropped;
          }
          if (weekly) {
            out.push({
              item_id: d.item_id[i], site_id: d.site_id[i], start: weekly.start, y: Array.from(weekly.y),
              factor: weekly.factor ? Array.from(weekly.factor) : undefined, stats: weeklyStats(weekly),
            });
          }
          i = j;
        }
        checkpoint({ index: input.index, phase: 'write' });
        const rows = await writeWeekly(tx, input.span, out);
        const calendarNote = closed
          ? `; ${closed} closed weeks stored as missing${moved ? `, ${moved} units booked in them moved to open weeks` : ''}${dropped ? `, ${dropped} units of series with no open week left out` : ''}`
          : '';
        await appendLog(tx, input.jobId, `etl: chunk ${input.index + 1}/${input.of}: ${out.length} series, ${rows} weekly rows${calendarNote}`);
        return { series: out.length, rows };
      });
    },

    async etlFinalize(input: { accountId: string; jobId: string; chunks?: number }): Promise<{ dropped: number }> {
      if (input.chunks !== 0) return { dropped: 0 };
      return withTenant(db, input.accountId, async (tx) => {
        const dropped = await dropAllWeekly(tx);
        if (dropped) await appendLog(tx, input.jobId, `etl: removed ${dropped} weekly rows of series without demand`);
        return { dropped };
      });
    },
  };
}

/** Calendar weeks of the chunk's sites, from the first demand week to the end week; sites without a calendar are absent. */
async function chunkCalendars(tx: Tx, d: DemandColumns, endWeek: string): Promise<Map<number, { weeks: string[]; factors: number[] }>> {
  if (!d.ds.length) return new Map();
  let first = d.ds[0];
  for (const ds of d.ds) if (ds < first) first = ds;
  const rows = await calendarWeeksForSites(tx, [...new Set(d.site_id)], mondayOf(first), endWeek);
  const out = new Map<number, { weeks: string[]; factors: number[] }>();
  for (const r of rows) {
    const c = out.get(r.site_id) ?? { weeks: [], factors: [] };
    c.weeks.push(r.week);
    c.factors.push(r.factor);
    out.set(r.site_id, c);
  }
  return out;
}
