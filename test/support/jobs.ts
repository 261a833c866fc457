import { insertHoldingReferences } from '../../db/heldReferences';
import { sql, withTenant, type Db } from '../../db/pool';
import type { TestApp } from './testApp';

/** Demand for `items` items at one site, one row per week for `weeks` weeks ending 2026-11-16, qty = item id % 7. */
export async function insertWeeklyDemand(db: Db, accountId: string, items: number, weeks: number): Promise<void> {
  await withTenant(db, accountId, async (tx) => {
    await tx.query(sql.unsafe`INSERT INTO sites (xuid, name) VALUES ('S-MAIN', 'Main site') ON CONFLICT (xuid) DO NOTHING`);
    await tx.query(sql.unsafe`INSERT INTO items (xuid, name) SELECT 'I-' || g, 'Item ' || g FROM generate_series(1, ${items}) g ON CONFLICT (xuid) DO NOTHING`);
    // up to a few hundred thousand rows: their two keys are held once, set-based, as the import holds them, instead of
    // two checks per row (7.0 → 2.5 s for 1,500 items × 156 weeks)
    const itemIds = (await tx.anyFirst(sql.unsafe`SELECT id FROM items WHERE xuid LIKE 'I-%'`)) as readonly number[];
    const siteId = (await tx.oneFirst(sql.unsafe`SELECT id FROM sites WHERE xuid = 'S-MAIN'`)) as number;
    await insertHoldingReferences(tx, 'demand_history', [
      { columns: ['item_id'], types: ['int4'], tuples: itemIds.map((id) => [id]) },
      { columns: ['site_id'], types: ['int4'], tuples: [[siteId]] },
    ], sql.unsafe`
      INSERT INTO demand_history (item_id, site_id, ds, qty)
      SELECT i.id, ${siteId}, (date '2026-11-16' - 7 * w)::date, (i.id % 7)
      FROM unnest(${sql.array(itemIds, 'int4')}::int4[]) i(id), generate_series(0, ${weeks - 1}) w
      ON CONFLICT DO NOTHING`);
  });
}

export interface JobBody {
  job_id: string;
  status: string;
  error: string | null;
  progress: { done?: number; total?: number };
  log: Array<{ message: string }>;
  children: Array<{ job_id: string; step: string; status: string }>;
  result: any;
}

/** Polls the job through the API until it reaches one of the statuses. */
export async function waitForJob(t: TestApp, token: string, jobId: string, until: (j: JobBody) => boolean, timeoutMs = 60_000): Promise<JobBody> {
  const deadline = Date.now() + timeoutMs;
  let last: JobBody | undefined;
  while (Date.now() < deadline) {
    const res = await t.call('get', `/api/pipeline/jobs/${jobId}`, { token, query: { log_limit: 1000 } });
    last = res.body as JobBody;
    if (res.status === 200 && until(last)) return last;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`job ${jobId} did not reach the expected state: ${JSON.stringify(last)}`);
}

export const isFinished = (j: JobBody) => ['completed', 'failed', 'killed'].includes(j.status);

export async function createPipeline(t: TestApp, token: string, name: string): Promise<number> {
  const res = await t.call('post', '/api/scenario-pipeline', { token, body: { name } });
  if (res.status !== 201) throw new Error(`pipeline not created: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id as number;
}

/** Waits for the job to finish and fails the test unless it completed without an error. */
export async function completedJob(t: TestApp, token: string, jobId: string, timeoutMs = 120_000): Promise<JobBody> {
  const job = await waitForJob(t, token, jobId, isFinished, timeoutMs);
  expect([job.job_id, job.status, job.error]).toEqual([jobId, 'completed', null]);
  return job;
}

/** The body of an answer that must have this status and no `detail`. */
export function okBody(res: { status: number; body: any }, status = 200): any {
  expect([res.status, res.body?.detail]).toEqual([status, undefined]);
  return res.body;
}
