import { getScenario, SCENARIO_RECORD } from '../../../db/causal';
import { resolvePlanningDate, TENANT_PIPELINE } from '../../../db/planningDate';
import { withTenant } from '../../../db/pool';
import { isValidDate } from '../../../domain/import/validate';
import { mondayOf } from '../../../domain/time/weeks';
import type { CausalRunInput } from '../../../workflows/causal';
import { newJobId, requireTemporal, startJob } from '../../jobs/service';
import { badRequest, notFound } from '../../errors';
import { defineRoute, type RouteTable } from '../define';
import { defineResource } from '../resource';
import { errors, int4, obj, out } from '../schemas';
import { TAG } from './masterData';
import * as s from './schemas';

/*
 * Causal scenarios (core-service.md §4.10) and their run: a scenario holds the usage mode of document 2 §4.6 rule 1
 * and what-if levers (usage, fleet and failure-rate multipliers, start and horizon). Planners may create and edit
 * them (user), as they do forecast scenarios; running one is a job (can_run_process or an admin role).
 */

export function registerCausalScenarioRoutes(table: RouteTable): void {
  defineResource(table, {
    path: '/api/causal/scenarios', tag: TAG, noun: 'Causal scenario', entityType: 'causal_scenario', record: SCENARIO_RECORD,
    permissions: { read: 'user', write: 'user' },
    operations: ['list', 'create', 'update', 'delete'],
    schemas: { row: s.scenarioRow, create: s.scenarioCreate, update: s.scenarioUpdate },
    filters: {
      usage_mode: { schema: { type: 'string', enum: ['fleet_total', 'per_asset'] } },
      search: { schema: { type: 'string', maxLength: 200, description: 'text in the name' }, column: 'name', op: 'ilike' },
    },
    sortable: ['id', 'name', 'created_at', 'updated_at', 'last_run_at'],
    descriptions: {
      list: 'Causal scenarios by name; `last_run_at` says when results were last stored. Paged with `skip` and `limit`; the total in `X-Total-Count`.',
      create: 'A what-if of the causal model. `usage_mode` (document 2 §4.6 rule 1, default fleet_total): in fleet_total the usage rows are the whole fleet\'s and demand = qty_per_asset × failure rate × weekly usage; in per_asset they are one asset\'s and demand is also multiplied by the fleet quantity. The multipliers scale every usage total, fleet quantity and failure rate (the breakdown shows the scaled values). `start_date` (its Monday) and `horizon_weeks` (default 52) set the weeks POST /api/causal/scenarios/run computes. 409 when the name is taken (case-insensitive).',
      update: 'Partial: only the fields sent change; stored results stay until the next run.',
      delete: 'Deletes the scenario and its stored results.',
    },
    hooks: {
      prepare: (b) => (typeof b.name === 'string' ? { ...b, name: b.name.trim() } : b),
      beforeWrite: async ({ values }) => {
        const d = values!.start_date;
        if (typeof d === 'string' && !isValidDate(d)) throw badRequest(`body.start_date: '${d}' is not a valid date (YYYY-MM-DD)`);
      },
    },
  });

  defineRoute(table, {
    method: 'post', path: '/api/causal/scenarios/run', tag: TAG, permission: 'run_process',
    summary: 'Run a causal scenario (a job)',
    description: 'Starts workflow `causalRun` (job kind and step `causal`) and answers at once; follow it with GET /api/pipeline/jobs/{job_id}. The activity loads the causal master data, computes for every week from the start week (body `start_date`, else the scenario\'s, else the planning today of `pipeline_id` (0: the tenant\'s), the date its supply plan starts on (docs/HISTORY.md "The planning date"); its Monday) over `horizon_weeks` (body, else the scenario\'s) the demand of each part at each site: Σ over asset types, customers and usage types of qty_per_asset (BOM exploded over every level) × failure rate × weekly usage (× fleet quantity in per_asset mode) × the customer\'s normalised coverage share of the site, and stores it with each part\'s aggregate over every site (site_id 0). The results of (scenario, pipeline_id) are replaced as a whole; `pipeline_id` (default 0: none) lets a pipeline keep its own copy, which GET /api/analytics/aggregate-demand and the breakdown read. 404 when the scenario does not exist.',
    body: obj({
      scenario_id: s.id('the causal scenario'),
      pipeline_id: int4(0, { default: 0, description: 'the pipeline the results belong to; 0 (default): none' }),
      start_date: s.date('first week (its Monday); default the scenario\'s start_date, else the planning today of pipeline_id (0: the tenant\'s)'),
      horizon_weeks: int4(1, { maximum: 520, description: 'weeks to compute; default the scenario\'s' }),
    }, ['scenario_id']),
    audit: { entityType: 'causal_scenario', action: 'run' },
    responses: {
      200: { description: 'job started', schema: out({ job_id: { type: 'string' }, status: { type: 'string' }, scenario_id: { type: 'integer' }, pipeline_id: { type: 'integer' }, start_week: { type: 'string', format: 'date' }, horizon_weeks: { type: 'integer' } }) },
      ...errors(400, 401, 403, 404),
    },
    handler: async (ctx, { body, user }) => {
      if (body.start_date !== undefined && !isValidDate(body.start_date)) throw badRequest(`body.start_date: '${body.start_date}' is not a valid date (YYYY-MM-DD)`);
      // without a start date the run starts where the pipeline's supply plan does, so the causal stream fills its weeks
      const { sc, planningToday } = await withTenant(ctx.deps.db, user.accountId, async (tx) => ({
        sc: await getScenario(tx, body.scenario_id), planningToday: (await resolvePlanningDate(tx, body.pipeline_id || TENANT_PIPELINE)).date,
      }));
      if (!sc) throw notFound(`Causal scenario ${body.scenario_id} not found`);
      const temporal = requireTemporal(ctx.deps.temporal);
      const startWeek = mondayOf(body.start_date ?? sc.start_date ?? planningToday);
      const horizon = body.horizon_weeks ?? sc.horizon_weeks;
      const jobId = newJobId('causal');
      const input: CausalRunInput = { accountId: user.accountId, jobId, scenarioId: sc.id, pipelineId: body.pipeline_id, startWeek, horizonWeeks: horizon };
      const row = await startJob(ctx.deps.db, temporal, user.accountId, {
        job_id: jobId, kind: 'causal', step: 'causal', pipeline_id: body.pipeline_id || null, scenario_id: sc.id, created_by: user.email,
        params: { start_week: startWeek, horizon_weeks: horizon },
      }, 'causalRun', [input]);
      ctx.state.audit = { ...ctx.state.audit, entityId: sc.id, newValue: { job_id: jobId, start_week: startWeek, horizon_weeks: horizon, pipeline_id: body.pipeline_id } };
      return { job_id: row.job_id, status: row.status, scenario_id: sc.id, pipeline_id: body.pipeline_id, start_week: startWeek, horizon_weeks: horizon };
    },
  });
}
