import { getPipeline } from '../../../db/pipelines';
import type { Tx } from '../../../db/pool';
import { mondayOf } from '../../../db/history';
import { badRequest, notFound } from '../../errors';

export async function pipelineOr404(tx: Tx, id: number): Promise<void> {
  if (!(await getPipeline(tx, id))) throw notFound(`pipeline_id: pipeline ${id} not found`);
}

/** A calendar date PostgreSQL accepts: the schema's pattern lets 2026-02-31 and year 0 through. */
export function checkDate(field: string, value: string): void {
  const t = Date.parse(`${value}T00:00:00Z`);
  // JavaScript has a year 0, PostgreSQL does not: 0000-01-03 would reach the database and fail there
  if (Number.isNaN(t) || new Date(t).toISOString().slice(0, 10) !== value || value < '0001-01-01') throw badRequest(`${field}: ${value} is not a valid date`);
}

export function checkArchiveDate(field: string, value: string): string {
  checkDate(field, value);
  if (new Date(`${value}T00:00:00Z`).getUTCDay() !== 1) {
    throw badRequest(`${field}: ${value} is not a Monday; archive dates are Mondays (that week's is ${mondayOf(value)})`);
  }
  return value;
}
