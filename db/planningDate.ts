/**
 * The planning today of a pipeline: the one date every reader and step plans from (docs/HISTORY.md "The planning
 * date"). The supply step's week 0 and its active supersession edges, the meio step's extra demand streams, the
 * freeze's archive date, and the supersession reads all ask here, so an edge the API shows as active is the edge the
 * plan used, in the week the freeze files it under (document 2 §4.4 rule 1, §4.5 freeze rule 2).
 */
import { sql, type Tx } from './pool';

export const PLANNING_DATE_SOURCES = ['override', 'pipeline', 'pipeline_setting', 'global', 'forecast', 'history', 'today'] as const;
export type PlanningDateSource = (typeof PLANNING_DATE_SOURCES)[number];

export interface PlanningDate {
  date: string;
  source: PlanningDateSource;
}

/** The tenant, not one pipeline: the date stored under pipeline id −1. */
export const TENANT_PIPELINE = -1;

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * In order, the first that exists:
 *   override          PLANNING_DATE_OVERRIDE of the environment (replays of a past week)
 *   pipeline          the date stored for the pipeline (PUT /api/history/planning-date)
 *   pipeline_setting  the pipeline's `settings.planning_date`
 *   global            the tenant's date stored under pipeline id −1
 *   forecast          the first week of the pipeline's forecasts (the newest start week)
 *   history           the Monday after the last week of history
 *   today             the UTC calendar date
 * forecast and history come before the calendar because a plan of data that ends in June is for that June, not for
 * the day someone runs it (rule 1: never the calendar date while the pipeline says otherwise). They are the pipeline's
 * own data, so the tenant (pipeline −1) goes from the stored dates straight to the calendar.
 */
export async function resolvePlanningDate(tx: Tx, pipelineId: number, override: string | null | undefined = process.env.PLANNING_DATE_OVERRIDE): Promise<PlanningDate> {
  if (override && ISO_DATE.test(override)) return { date: override, source: 'override' };
  const ofPipeline = pipelineId !== TENANT_PIPELINE;
  // One source at a time, in order: the meio and supply steps ask in every chunk, and the last two read whole tables
  // (the pipeline's forecasts; every weekly row, 15 million at 100,000 series). Asked in one statement, every chunk
  // paid for both scans even when an earlier source answered.
  const sources: Array<[Exclude<PlanningDateSource, 'override' | 'today'>, ReturnType<typeof sql.unsafe> | null]> = [
    ['pipeline', ofPipeline ? sql.unsafe`SELECT to_char(planning_date, 'YYYY-MM-DD') FROM pipeline_planning_dates WHERE pipeline_id = ${pipelineId}` : null],
    ['pipeline_setting', ofPipeline ? sql.unsafe`
      SELECT to_char((settings->>'planning_date')::date, 'YYYY-MM-DD') FROM scenario_pipelines
      WHERE id = ${pipelineId} AND settings->>'planning_date' ~ '^\\d{4}-\\d{2}-\\d{2}$'` : null],
    ['global', sql.unsafe`SELECT to_char(planning_date, 'YYYY-MM-DD') FROM pipeline_planning_dates WHERE pipeline_id = ${TENANT_PIPELINE}`],
    ['forecast', ofPipeline ? sql.unsafe`SELECT to_char(max(start_week), 'YYYY-MM-DD') FROM forecast_results WHERE pipeline_id = ${pipelineId}` : null],
    ['history', ofPipeline ? sql.unsafe`SELECT to_char(max(week) + 7, 'YYYY-MM-DD') FROM series_weekly` : null],
  ];
  for (const [source, query] of sources) {
    if (!query) continue;
    const date = (await tx.maybeOneFirst(query)) as string | null;
    if (date) return { date, source };
  }
  return { date: new Date().toISOString().slice(0, 10), source: 'today' };
}
