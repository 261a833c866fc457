import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import {
  completeAllocationRun, demandPlans, enginePoolOrders, failAllocationRun, firmPoolOrders, replaceAllocationResults,
  startAllocationRun, type AllocationResultWrite,
} from '../../db/allocation';
import { appendLog, heartbeat } from '../../db/jobs';
import { withTenant, type Db } from '../../db/pool';
import { latestSupplyRun } from '../../db/supplyReads';
import { defaultSupplyScenarioId, getSupplyScenario } from '../../db/supplyScenarios';
import { DEFAULT_ALLOCATION_PARAMS, type ConservationViolation } from '../../domain/allocation/model';
import { buildSupplyPool } from '../../domain/allocation/pool';
import { checkpoint } from '../jobs/activity';
import { demandLines, planningInstant } from '../../domain/allocation/demandLines';
import { ALLOCATION_LIMITS, solveAllocation, type AllocationLimits } from '../../domain/allocation/solve';

export interface AllocationRunInput {
  accountId: string;
  jobId: string;
  pipelineId: number | null;
  /** null: the default supply scenario */
  supplyScenarioId: number | null;
  /** tests shrink them to reach the greedy-only path with a small case */
  limits?: Partial<AllocationLimits>;
}

export interface AllocationRunResult {
  supply_run_id: string;
  method: 'lp' | 'greedy';
  /** (item, site) groups with both supply and demand */
  groups: number;
  rows: number;
  slices: number;
  greedy_objective: number;
  lp_objective: number | null;
}

const round = (x: number, digits = 6) => Number(x.toFixed(digits));
const fmt = (x: number) => x.toLocaleString('en-US', { maximumFractionDigits: 3 });
// The progress row is a database write: often enough to watch, rarely enough not to cost.
const PROGRESS_EVERY_MS = 1000;

function describeViolations(kind: string, v: ConservationViolation[]): string {
  return `${kind}: ${v.length} conservation violation(s): ${v.slice(0, 5).map((x) => `${x.kind} ${x.id} ${x.detail}`).join('; ')}`;
}

/**
 * The allocation step (docs/SUPPLY.md "Allocation step"): the pool of the newest completed supply run of the
 * (pipeline, supply scenario) against its SKU-sites' forecast lines, solved by the greedy and, when it fits, the
 * HiGHS LP; one activity on the compute queue, which heartbeats between slices.
 */
export function createAllocationActivities({ db }: { db: Db }) {
  return {
    async allocationRun(input: AllocationRunInput): Promise<AllocationRunResult> {
      const { accountId, jobId } = input;
      const pipelineId = input.pipelineId ?? 0;
      const limits = { ...ALLOCATION_LIMITS, ...input.limits };
      checkpoint({ phase: 'load' });
      const loaded = await withTenant(db, accountId, async (tx) => {
        const scenarioId = input.supplyScenarioId ?? (await defaultSupplyScenarioId(tx));
        if (scenarioId === null || !(await getSupplyScenario(tx, scenarioId))) {
          throw ApplicationFailure.nonRetryable(input.supplyScenarioId === null
            ? 'allocation: there is no default supply scenario; create one or name the scenario'
            : `allocation: supply scenario ${input.supplyScenarioId} not found`, 'AllocationScope');
        }
        const run = await latestSupplyRun(tx, pipelineId, scenarioId);
        if (!run) {
          throw ApplicationFailure.nonRetryable(
            `allocation: no completed supply run for pipeline ${pipelineId} and supply scenario ${scenarioId}; run the supply step first`, 'AllocationScope');
        }
        await startAllocationRun(tx, { run_id: jobId, supply_run_id: run.run_id, pipeline_id: pipelineId, scenario_id: scenarioId });
        const engine = await enginePoolOrders(tx, run.run_id, () => checkpoint({ phase: 'load' }));
        const firm = await firmPoolOrders(tx, run.run_id);
        const plans = await demandPlans(tx, run.run_id);
        return { scenarioId, run, engine, firm, plans };
      });
      const { run, engine, firm, plans } = loaded;

      try {
        // "now" of document 2 §4.3 is the run's week 0, so FIRM_ weeks count from the same instant as SO_ weeks and due weeks.
        const now = planningInstant(run.planning_date);
        const pool = buildSupplyPool(engine, firm, now);
        const nFirm = pool.filter((p) => p.is_firm === 1).length;
        const dropped = engine.length + firm.length - pool.length;
        const lines = demandLines(plans.plans);
        const unclassified = plans.plans.filter((p) => p.priority_class === null).length;
        await withTenant(db, accountId, async (tx) => {
          await appendLog(tx, jobId, `allocation: supply run ${run.run_id} (pipeline ${pipelineId}, supply scenario ${loaded.scenarioId}, planning date ${run.planning_date}): `
            + `pool ${pool.length} supplies (${pool.length - nFirm} SO_, ${nFirm} FIRM_), ${lines.lines.length} demand lines from ${plans.plans.length} SKU-sites `
            + `(opening stock served ${fmt(lines.opening_served)} of ${fmt(lines.forecast)}; ABC configuration ${plans.abcConfigId ?? 'none'}, ${unclassified} SKU-sites without class)`);
          // The SQL selects what the pool rule selects: a row the rule refuses means the two disagree.
          if (dropped > 0) await appendLog(tx, jobId, `allocation: the pool rule refused ${dropped} rows the pool query selected`, 'warning');
        });

        const ctx = Context.current();
        let lastProgress = 0;
        const solved = await solveAllocation({ supplies: pool, demands: lines.lines }, limits, async ({ phase, done, of }) => {
          checkpoint({ phase, done, of });
          if (Date.now() - lastProgress >= PROGRESS_EVERY_MS || (phase === 'solve' && done === of)) {
            lastProgress = Date.now();
            await withTenant(db, accountId, (tx) => heartbeat(tx, jobId, { done, total: of }));
          }
          // Lets the heartbeat and a cancellation through between slices.
          await new Promise((r) => setImmediate(r));
          if (ctx.cancellationSignal.aborted) throw ctx.cancellationSignal.reason ?? new Error('cancelled');
        });

        const broken = [
          ...(solved.violations.greedy.length ? [describeViolations('greedy', solved.violations.greedy)] : []),
          ...(solved.violations.lp.length ? [describeViolations('LP', solved.violations.lp)] : []),
        ];
        if (broken.length) throw ApplicationFailure.nonRetryable(`allocation: ${broken.join(' | ')}`, 'AllocationConservation');

        const classOf = new Map(lines.lines.map((l) => [l.demand_id, l.priority_class]));
        const rows: AllocationResultWrite[] = solved.chosen.allocations.map((a) => ({
          supply_id: a.supply_id, demand_id: a.demand_id, item_id: a.item_id, site_id: a.site_id, qty: a.qty, is_firm: a.is_firm,
          arrival_week: a.arrival_week, due_week: a.due_week, priority_class: classOf.get(a.demand_id) ?? null,
        }));
        const ratio = solved.greedy_pct_of_lp !== null && Number.isFinite(solved.greedy_pct_of_lp) ? round(solved.greedy_pct_of_lp, 4) : null;
        const summary = {
          planning_date: run.planning_date,
          now: now.toISOString(),
          greedy_pct_of_lp: ratio,
          method_reason: solved.method === 'lp' ? `${solved.arcs} arcs within the LP limit of ${limits.maxLpArcs}` : solved.lp_skipped,
          arcs: solved.arcs, groups: solved.groups, slices: solved.slices, max_lp_arcs: limits.maxLpArcs,
          greedy: { objective: solved.greedy.objective, served_qty: solved.greedy.served_qty, late_qty: solved.greedy.late_qty, ms: solved.greedy_ms },
          lp: solved.lp ? { objective: solved.lp.objective, served_qty: solved.lp.served_qty, late_qty: solved.lp.late_qty, ms: solved.lp_ms, ...solved.lp_stats } : null,
          pool: {
            engine: pool.length - nFirm, firm: nFirm,
            engine_qty: pool.filter((p) => p.is_firm === 0).reduce((n, p) => n + p.qty, 0),
            firm_qty: pool.filter((p) => p.is_firm === 1).reduce((n, p) => n + p.qty, 0),
          },
          demand: { sku_sites: plans.plans.length, forecast_qty: lines.forecast, opening_served_qty: lines.opening_served, lines: lines.lines.length },
          abc_config_id: plans.abcConfigId,
          unclassified_sku_sites: unclassified,
          params: DEFAULT_ALLOCATION_PARAMS,
        };

        checkpoint({ phase: 'store' });
        await withTenant(db, accountId, async (tx) => {
          await replaceAllocationResults(tx, jobId, rows, () => checkpoint({ phase: 'store' }));
          await completeAllocationRun(tx, jobId, {
            method: solved.method, n_supplies: pool.length, n_demands: lines.lines.length, supply_qty: solved.chosen.supply_qty,
            demand_qty: solved.chosen.demand_qty, allocated_qty: solved.chosen.served_qty,
            greedy_objective: solved.greedy.objective, lp_objective: solved.lp?.objective ?? null, summary,
          });
          const lp = solved.lp
            ? `LP objective ${fmt(solved.lp.objective)} (${fmt(solved.lp_ms)} ms), greedy objective ${fmt(solved.greedy.objective)} (${fmt(solved.greedy_ms)} ms), greedy at ${ratio === null ? 'n/a' : `${ratio.toFixed(2)} %`} of the LP`
            : `greedy objective ${fmt(solved.greedy.objective)} (${fmt(solved.greedy_ms)} ms), no LP: ${solved.lp_skipped}`;
          await appendLog(tx, jobId, `allocation: ${lp}; stored the ${solved.method === 'lp' ? 'LP' : 'greedy'} allocation: ${rows.length} rows, `
            + `${fmt(solved.chosen.served_qty)} of ${fmt(solved.chosen.demand_qty)} demand served (${fmt(solved.chosen.late_qty)} late) from ${fmt(solved.chosen.supply_qty)} supply in ${solved.groups} item-site groups`);
        });
        return {
          supply_run_id: run.run_id, method: solved.method, groups: solved.groups, rows: rows.length, slices: solved.slices,
          greedy_objective: solved.greedy.objective, lp_objective: solved.lp?.objective ?? null,
        };
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        // Best effort: the job records the error either way, and a retry resets the run.
        await withTenant(db, accountId, (tx) => failAllocationRun(tx, jobId, message)).catch(() => undefined);
        throw err;
      }
    },
  };
}
