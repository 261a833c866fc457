import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { applyRetention, copiesSideBySide, freezeVersion, mondayOf, type VersionRow } from '../../db/history';
import { resolvePlanningDate } from '../../db/planningDate';
import { appendLog, insertJob } from '../../db/jobs';
import { getPipeline } from '../../db/pipelines';
import { withTenant, type Db } from '../../db/pool';
import { checkpoint } from '../jobs/activity';

const HEARTBEAT_MS = 5_000;

/** Copies side by side: one PostgreSQL backend each, as many as a small machine's cores. */
const COPY_LANES = 2;

export interface FreezeInput {
  accountId: string;
  jobId: string;
  pipelineId: number;
  comment: string | null;
  pin: boolean;
  createdBy: string | null;
  source: 'api' | 'schedule';
}

export interface FreezeResult {
  version: VersionRow;
  replaced_archive_date: string | null;
  planning_date: string;
  planning_date_source: string;
}

/**
 * The freeze (document 2 §4.5) as one activity and one transaction: what it copies becomes visible all at once when
 * it commits, and a freeze that fails, is killed or loses its worker leaves the registry and tables as they were (the
 * copies run side by side in transactions of their own, on the freeze's snapshot, into tables that are not partitions
 * until the freeze attaches them; db/history.ts). The copies check for a kill between tables.
 */
export function createHistoryActivities({ db }: { db: Db }) {
  const freezeInTransaction = (input: FreezeInput): Promise<FreezeResult> => withTenant(db, input.accountId, async (tx) => {
    if (!(await getPipeline(tx, input.pipelineId))) throw ApplicationFailure.nonRetryable(`freeze: pipeline ${input.pipelineId} not found`, 'NoPipeline');
    const planning = await resolvePlanningDate(tx, input.pipelineId);
    const archiveDate = mondayOf(planning.date);
    // each table's copy milliseconds (its pieces' sum), and the freeze's own spans around them, for a log line that
    // says where a slow freeze went
    const copyMs = new Map<string, number>();
    const spans: Array<[string, number]> = [];
    const runCopies = copiesSideBySide(db, input.accountId, COPY_LANES, {
      before: (table) => checkpoint({ phase: 'copy', table }),
      after: (table, ms) => copyMs.set(table, (copyMs.get(table) ?? 0) + ms),
    });
    spans.push(['copies', performance.now()]);
    const out = await freezeVersion(tx, {
      pipelineId: input.pipelineId, archiveDate, comment: input.comment, pin: input.pin, createdBy: input.createdBy, jobId: input.jobId, source: input.source,
    }, (phase) => {
      checkpoint({ phase });
      spans.push([phase, performance.now()]);
    }, runCopies);
    const end = performance.now();
    const ms = spans.map(([phase, at], i) => `${phase} ${Math.round((spans[i + 1]?.[1] ?? end) - at)}`);
    await appendLog(tx, input.jobId, `freeze: pipeline ${input.pipelineId}, planning date ${planning.date} (${planning.source}) → archive date ${archiveDate}; `
      + `${out.version.row_count_total} rows in ${Object.values(out.version.table_counts).filter((n) => n > 0).length} tables`
      + `${out.replaced_archive_date ? `; replaced the un-pinned version of ${out.replaced_archive_date}` : ''}`
      + `; ms: ${ms.join(', ')} (on_hand with KPIs and registry); the copies on ${COPY_LANES} connections side by side, ms: ${[...copyMs].map(([t, n]) => `${t} ${Math.round(n)}`).join(', ')}`);
    return { ...out, planning_date: planning.date, planning_date_source: planning.source };
  });

  return {
    /** A scheduled freeze has no API request to write its job row: the workflow asks for it here (idempotent). */
    async historyEnsureJob(input: { accountId: string; jobId: string; pipelineId: number; createdBy: string | null; source: string }): Promise<void> {
      await withTenant(db, input.accountId, (tx) => insertJob(tx, {
        job_id: input.jobId, kind: 'freeze', step: 'freeze', pipeline_id: input.pipelineId, created_by: input.createdBy, params: { source: input.source },
      }));
    },

    async historyFreeze(input: FreezeInput): Promise<FreezeResult> {
      checkpoint({ phase: 'start' });
      // one table's copy is a single statement that may take seconds: beat meanwhile, so a dead worker (not a slow
      // copy) is what the heartbeat timeout catches
      const ctx = Context.current();
      const timer = setInterval(() => ctx.heartbeat({ phase: 'copy' }), HEARTBEAT_MS);
      try {
        return await freezeInTransaction(input);
      } finally {
        clearInterval(timer);
      }
    },

    /** Retention (§8) after a scheduled freeze or on demand: the archive dates deleted. */
    async historyRetention(input: { accountId: string; jobId: string; pipelineId: number }): Promise<string[]> {
      return withTenant(db, input.accountId, async (tx) => {
        const deleted = await applyRetention(tx, input.pipelineId);
        if (deleted.length) await appendLog(tx, input.jobId, `retention: deleted the versions of ${deleted.join(', ')}`);
        return deleted;
      });
    },
  };
}
