import { proxyActivities } from '@temporalio/workflow';
// Types only: the workflow bundle must not pull in slonik or node built-ins.
import type * as activities from '../activities';
import type { ImportTableResult } from '../activities/import/activity';

const { importStart, importFinish, importTableFailed } = proxyActivities<activities.Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumAttempts: 5 },
});

// One table is one transaction; a big demand history may take a while, so liveness comes from heartbeats.
const { importTable } = proxyActivities<activities.Activities>({
  startToCloseTimeout: '2 hours',
  heartbeatTimeout: '2 minutes',
  retry: { initialInterval: '1 second', maximumAttempts: 3 },
});

export interface ImportRunInput {
  runId: string;
  accountId: string;
  /** in dependency order (the caller sorts them) */
  tables: string[];
  modes: Record<string, 'upsert' | 'replace'>;
}

export interface ImportRunResult {
  run_id: string;
  status: 'completed' | 'failed';
  tables: ImportTableResult[];
}

const message = (err: unknown): string => {
  const e = err as { cause?: { message?: string }; message?: string };
  return String(e?.cause?.message ?? e?.message ?? err);
};

/**
 * An import run (spec §4.7): one activity per table, in dependency order, so the items and sites a later table
 * refers to are already committed. A table that fails (after retries) is recorded and the next one still runs.
 */
export async function importRun(input: ImportRunInput): Promise<ImportRunResult> {
  const ref = { runId: input.runId, accountId: input.accountId };
  const results: ImportTableResult[] = [];
  try {
    await importStart(ref);
    for (const table of input.tables) {
      const mode = input.modes[table] ?? 'upsert';
      try {
        results.push(await importTable({ ...ref, table, mode }));
      } catch (err) {
        results.push(await importTableFailed({ ...ref, table, mode, error: message(err) }));
      }
    }
  } catch (err) {
    const { status } = await importFinish({ ...ref, error: `import run failed: ${message(err)}` });
    return { run_id: input.runId, status, tables: results };
  }
  const { status } = await importFinish(ref);
  return { run_id: input.runId, status, tables: results };
}
