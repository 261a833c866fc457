import { ApplicationFailure } from '@temporalio/common';
import {
  allocationAbcConfig, allocationChunks, allocationChunkStats, completeAllocationRun, demandPlans, enginePoolOrders, failAllocationRun,
  firmPoolOrders, replaceAllocationChunk, startAllocationRun, type AllocationChunk, type AllocationResultWrite, type ItemRange,
} from '../../db/allocation';
import { appendLog } from '../../db/jobs';
import { withTenant, type Db } from '../../db/pool';
import { latestSupplyRun } from '../../db/supplyReads';
import { defaultSupplyScenarioId, getSupplyScenario } from '../../db/supplyScenarios';
import { chunkStatsOf, combineChunks } from '../../domain/allocation/chunks';
import { DEFAULT_ALLOCATION_PARAMS, type ConservationViolation } from '../../domain/allocation/model';
import { buildSupplyPool } from '../../domain/allocation/pool';
import { checkpoint } from '../jobs/activity';
import { demandLines, planningInstant } from '../../domain/allocation/demandLines';
import { ALLOCATION_LIMITS, solveAllocation, type AllocationLimits } from '../../domain/allocation/solve';

export interface AllocationPlanInput {
  accountId: string;
  jobId: string;
  pipelineId: number | null;
  /** null: the default supply scenario */
  supplyScenarioId: number | null;
  /** SKU-sites per chunk (whole items): the tenant's pipeline chunk_size */
  chunkSize: number;
}

/** What the run allocates, fixed once before its chunks so they all work on the same supply run and ABC configuration. */
export interface AllocationScope {
  pipeline_id: number;
  scenario_id: number;
  supply_run_id: string;
  planning_date: string;
  abc_config_id: number | null;
}

export interface AllocationPlan {
  scope: AllocationScope;
  /** SKU-sites of the run */
  total: number;
  chunks: AllocationChunk[];
}

export interface AllocationChunkInput {
  accountId: string;
  jobId: string;
  scope: AllocationScope;
  range: ItemRange;
  index: number;
  of: number;
  /** tests shrink them to reach the greedy-only path or many slices with a small case */
  limits?: Partial<AllocationLimits>;
}

export interface AllocationChunkResult {
  groups: number;
  rows: number;
  method: 'lp' | 'greedy';
}

export interface AllocationFinalizeInput {
  accountId: string;
  jobId: string;
  scope: AllocationScope;
  chunks: number;
  limits?: Partial<AllocationLimits>;
}

export interface AllocationRunResult {
  supply_run_id: string;
  method: 'lp' | 'greedy';
  /** (item, site) groups with both supply and demand */
  groups: number;
  rows: number;
  slices: number;
  chunks: number;
  lp_chunks: number;
  greedy_objective: number;
  lp_objective: number | null;
}

const round = (x: number, digits = 6) => Number(x.toFixed(digits));
const fmt = (x: number) => x.toLocaleString('en-US', { maximumFractionDigits: 3 });
// certify.ts: groups whose greedy allocation was proven optimal needed no HiGHS model (reports older than it: none)
const provenText = (proven: number | undefined, groups: number) => `greedy proven optimal in ${fmt(proven ?? 0)} of ${fmt(groups)} groups, HiGHS for the rest`;

function describeViolations(kind: string, v: ConservationViolation[]): string {
  return `${kind}: ${v.length} conservation violation(s): ${v.slice(0, 5).map((x) => `${x.kind} ${x.id} ${x.detail}`).join('; ')}`;
}

function itemsOf(r: ItemRange): string {
  if (r.after === null && r.through === null) return 'every item';
  return `item ids ${[r.after === null ? null : `> ${r.after}`, r.through === null ? null : `<= ${r.through}`].filter((x) => x !== null).join(' and ')}`;
}

/**
 * The allocation step (docs/SUPPLY.md "Allocation step"): the pool of the newest completed supply run of the
 * (pipeline, supply scenario) against its SKU-sites' forecast lines, solved by the greedy and, when the chunk fits,
 * the HiGHS LP. workflows/runStep.ts runs the plan, then the chunks of items on the compute queue with bounded
 * concurrency, then the finalize that completes the run; any failure goes through allocationFail.
 */
export function createAllocationActivities({ db }: { db: Db }) {
  return {
    /** Resolves the scope, (re)starts the run's row and cuts the supply run's items into chunks. */
    async allocationPlan(input: AllocationPlanInput): Promise<AllocationPlan> {
      const pipelineId = input.pipelineId ?? 0;
      return withTenant(db, input.accountId, async (tx) => {
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
        await startAllocationRun(tx, { run_id: input.jobId, supply_run_id: run.run_id, pipeline_id: pipelineId, scenario_id: scenarioId });
        const chunks = await allocationChunks(tx, run.run_id, input.chunkSize);
        const scope: AllocationScope = {
          pipeline_id: pipelineId, scenario_id: scenarioId, supply_run_id: run.run_id, planning_date: run.planning_date, abc_config_id: await allocationAbcConfig(tx),
        };
        const total = chunks.reduce((n, c) => n + c.sku_sites, 0);
        await appendLog(tx, input.jobId, `allocation: supply run ${run.run_id}: ${total} SKU-sites of ${chunks.reduce((n, c) => n + c.items, 0)} items in ${chunks.length} chunks`);
        return { scope, total, chunks };
      });
    },

    /**
     * One chunk of items: loads only their pool and plans, solves, checks conservation (a violation fails the run,
     * not retried) and replaces the chunk's rows and report in one transaction. Heartbeats between slices.
     */
    async allocationChunk(input: AllocationChunkInput): Promise<AllocationChunkResult> {
      const { accountId, jobId, scope, range } = input;
      const limits = { ...ALLOCATION_LIMITS, ...input.limits };
      checkpoint({ index: input.index, phase: 'load' });
      const { engine, firm, plans } = await withTenant(db, accountId, async (tx) => ({
        engine: await enginePoolOrders(tx, scope.supply_run_id, range, () => checkpoint({ index: input.index, phase: 'load' })),
        firm: await firmPoolOrders(tx, scope.supply_run_id, range),
        plans: await demandPlans(tx, scope.supply_run_id, scope.abc_config_id, range),
      }));

      // "now" of document 2 §4.3 is the run's week 0, so FIRM_ weeks count from the same instant as SO_ weeks and due weeks.
      const pool = buildSupplyPool(engine, firm, planningInstant(scope.planning_date));
      const lines = demandLines(plans);
      const solved = await solveAllocation({ supplies: pool, demands: lines.lines }, limits, async ({ phase, done, of }) => {
        checkpoint({ index: input.index, phase, done, of });
        // Lets the heartbeat and a cancellation through between slices.
        await new Promise((r) => setImmediate(r));
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
      let engineN = 0;
      let engineQty = 0;
      let firmQty = 0;
      for (const p of pool) {
        if (p.is_firm === 1) firmQty += p.qty;
        else {
          engineN += 1;
          engineQty += p.qty;
        }
      }
      const stats = chunkStatsOf(solved, rows.length, {
        engine: engineN, firm: pool.length - engineN, engine_qty: engineQty, firm_qty: firmQty, refused: engine.length + firm.length - pool.length,
      }, {
        sku_sites: plans.length, forecast_qty: lines.forecast, opening_served_qty: lines.opening_served, lines: lines.lines.length,
        unclassified_sku_sites: plans.filter((p) => p.priority_class === null).length,
      });

      checkpoint({ index: input.index, phase: 'store' });
      await withTenant(db, accountId, async (tx) => {
        if (!(await replaceAllocationChunk(tx, jobId, input.index, range, rows, stats, () => checkpoint({ index: input.index, phase: 'store' })))) {
          throw ApplicationFailure.nonRetryable(`allocation: run ${jobId} is no longer running; chunk ${input.index + 1} not stored`, 'AllocationNotRunning');
        }
        await appendLog(tx, jobId, `allocation: chunk ${input.index + 1}/${input.of} (${itemsOf(range)}): ${plans.length} SKU-sites, ${pool.length} supplies, `
          + `${lines.lines.length} lines, ${solved.groups} groups, ${solved.arcs} arcs; stored the ${solved.method === 'lp' ? 'LP' : 'greedy'} allocation: ${rows.length} rows`);
      });
      return { groups: solved.groups, rows: rows.length, method: solved.method };
    },

    /** Adds the chunks' reports up and completes the run in one transaction: readers see it whole or running. */
    async allocationFinalize(input: AllocationFinalizeInput): Promise<AllocationRunResult> {
      const { accountId, jobId, scope } = input;
      const limits = { ...ALLOCATION_LIMITS, ...input.limits };
      return withTenant(db, accountId, async (tx) => {
        const reports = await allocationChunkStats(tx, jobId);
        if (reports.length !== input.chunks || reports.some((r, i) => r.chunk !== i)) {
          throw ApplicationFailure.nonRetryable(`allocation: ${reports.length} of ${input.chunks} chunk reports found; the run cannot complete`, 'AllocationChunks');
        }
        const c = combineChunks(reports.map((r) => r.stats), limits.maxLpArcs);
        const ratio = c.greedy_pct_of_lp !== null && Number.isFinite(c.greedy_pct_of_lp) ? round(c.greedy_pct_of_lp, 4) : null;
        const summary = {
          planning_date: scope.planning_date,
          now: planningInstant(scope.planning_date).toISOString(),
          greedy_pct_of_lp: ratio,
          method_reason: c.method_reason,
          arcs: c.arcs, groups: c.groups, slices: c.slices, max_lp_arcs: limits.maxLpArcs,
          chunks: c.chunks, lp_chunks: c.lp_chunks,
          greedy: c.greedy,
          lp: c.lp,
          pool: { engine: c.pool.engine, firm: c.pool.firm, engine_qty: c.pool.engine_qty, firm_qty: c.pool.firm_qty },
          demand: { sku_sites: c.demand.sku_sites, forecast_qty: c.demand.forecast_qty, opening_served_qty: c.demand.opening_served_qty, lines: c.demand.lines },
          abc_config_id: scope.abc_config_id,
          unclassified_sku_sites: c.demand.unclassified_sku_sites,
          params: DEFAULT_ALLOCATION_PARAMS,
        };
        const nPool = c.pool.engine + c.pool.firm;
        await appendLog(tx, jobId, `allocation: supply run ${scope.supply_run_id} (pipeline ${scope.pipeline_id}, supply scenario ${scope.scenario_id}, planning date ${scope.planning_date}): `
          + `pool ${nPool} supplies (${c.pool.engine} SO_, ${c.pool.firm} FIRM_), ${c.demand.lines} demand lines from ${c.demand.sku_sites} SKU-sites `
          + `(opening stock served ${fmt(c.demand.opening_served_qty)} of ${fmt(c.demand.forecast_qty)}; ABC configuration ${scope.abc_config_id ?? 'none'}, ${c.demand.unclassified_sku_sites} SKU-sites without class)`);
        // The SQL selects what the pool rule selects: a row the rule refuses means the two disagree.
        if (c.pool.refused > 0) await appendLog(tx, jobId, `allocation: the pool rule refused ${c.pool.refused} rows the pool query selected`, 'warning');
        await completeAllocationRun(tx, jobId, {
          method: c.method, n_supplies: nPool, n_demands: c.demand.lines, supply_qty: c.chosen.supply_qty,
          demand_qty: c.chosen.demand_qty, allocated_qty: c.chosen.served_qty,
          greedy_objective: c.greedy.objective, lp_objective: c.lp_objective, summary,
        });
        const ratioText = `greedy at ${ratio === null ? 'n/a' : `${ratio.toFixed(2)} %`} of the LP`;
        const solvers = c.method === 'lp'
          ? `LP objective ${fmt(c.lp!.objective)} (${fmt(c.lp!.ms)} ms; ${provenText(c.lp!.certified_groups, c.groups)}), greedy objective ${fmt(c.greedy.objective)} (${fmt(c.greedy.ms)} ms), ${ratioText}`
          : c.lp
            ? `greedy objective ${fmt(c.greedy.objective)} (${fmt(c.greedy.ms)} ms); LP in ${c.lp_chunks} of ${c.chunks} chunks (${fmt(c.lp.ms)} ms), ${ratioText} there: ${c.method_reason}`
            : `greedy objective ${fmt(c.greedy.objective)} (${fmt(c.greedy.ms)} ms), no LP: ${c.method_reason}`;
        const stored = c.method === 'lp' ? 'LP' : c.lp ? 'LP and greedy' : 'greedy';
        await appendLog(tx, jobId, `allocation: ${solvers}; stored the ${stored} allocation: ${c.rows} rows, `
          + `${fmt(c.chosen.served_qty)} of ${fmt(c.chosen.demand_qty)} demand served (${fmt(c.chosen.late_qty)} late) from ${fmt(c.chosen.supply_qty)} supply in ${c.groups} item-site groups`
          + (c.chunks > 1 ? ` (${c.chunks} chunks)` : ''));
        return {
          supply_run_id: scope.supply_run_id, method: c.method, groups: c.groups, rows: c.rows, slices: c.slices, chunks: c.chunks, lp_chunks: c.lp_chunks,
          greedy_objective: c.greedy.objective, lp_objective: c.lp_objective,
        };
      });
    },

    /** The run failed or was killed: it ends failed with the error and without rows (no row at all if it never started). */
    async allocationFail(input: { accountId: string; jobId: string; error: string }): Promise<void> {
      await withTenant(db, input.accountId, (tx) => failAllocationRun(tx, input.jobId, input.error));
    },
  };
}
