/**
 * What the meio step reads for a chunk of items (every site of each item's network with its master data, fitted
 * distribution and segments, the routes, the IO overrides) and the results it writes, per SKU-site and per item.
 */
import type { MeioGroupResult, MeioSkuResult } from '../domain/inventory/meio';
import { sql, type Tx } from './pool';

export interface NetworkSiteRow {
  item_id: number;
  site_id: number;
  has_series: boolean;
  unit_cost: number;
  lead_time_weeks: number | null;
  moq: number;
  order_multiple: number;
  on_hand: number;
  distribution_type: string | null;
  params: Record<string, number> | null;
  basis: string | null;
  dist_lead_time_weeks: number | null;
  dist_mean: number | null;
  dist_std: number | null;
  segment_ids: number[];
}

export interface IoOverrideRow {
  id: number;
  pipeline_id: number;
  scenario_id: number | null;
  item_id: number;
  site_id: number;
  sl_override: number | null;
  eoq_override: number | null;
  fr_override: number | null;
  updated_by: string | null;
  created_at: string;
  updated_at: string;
}

const items = (ids: readonly number[]) => sql.array(ids, 'int4');

/**
 * Every site of each item's network: the sites where it has a series and both ends of every route it may take (its
 * own and those for every item).
 */
export async function networkSites(tx: Tx, pipelineId: number, itemIds: readonly number[]): Promise<NetworkSiteRow[]> {
  if (!itemIds.length) return [];
  return [...(await tx.any(sql.unsafe`
    WITH its AS (SELECT unnest(${items(itemIds)}::int4[]) AS item_id),
    site_set AS (
      SELECT s.item_id, s.site_id FROM series s WHERE s.item_id = ANY(${items(itemIds)}::int4[])
      UNION SELECT i.item_id, r.from_site_id FROM its i JOIN routes r ON r.item_id = i.item_id OR r.item_id IS NULL
      UNION SELECT i.item_id, r.to_site_id FROM its i JOIN routes r ON r.item_id = i.item_id OR r.item_id IS NULL
    )
    SELECT ss.item_id, ss.site_id, (se.item_id IS NOT NULL) AS has_series,
      COALESCE(x.unit_cost, it.avg_unit_cost, 0)::float8 AS unit_cost, x.lead_time_weeks::float8 AS lead_time_weeks,
      COALESCE(x.moq, 0)::float8 AS moq, COALESCE(x.order_multiple, 1)::float8 AS order_multiple, COALESCE(x.on_hand, 0)::float8 AS on_hand,
      d.distribution_type, d.params, d.basis, d.lead_time_weeks AS dist_lead_time_weeks, d.mean AS dist_mean, d.std AS dist_std,
      COALESCE((SELECT array_agg(m.segment_id ORDER BY m.segment_id) FROM segment_members m WHERE m.item_id = ss.item_id AND m.site_id = ss.site_id), '{}') AS segment_ids
    FROM site_set ss
    JOIN items it ON it.id = ss.item_id
    LEFT JOIN series se ON se.item_id = ss.item_id AND se.site_id = ss.site_id
    -- looked up row by row (each is one row of a primary key): as joins, PostgreSQL hashed the whole of item_site and
    -- of the pipeline's distributions for every chunk, a cost that grew with the tenant in each of them
    LEFT JOIN LATERAL (SELECT * FROM item_site x WHERE x.item_id = ss.item_id AND x.site_id = ss.site_id LIMIT 1) x ON true
    LEFT JOIN LATERAL (
      SELECT * FROM series_distributions d WHERE d.pipeline_id = ${pipelineId} AND d.item_id = ss.item_id AND d.site_id = ss.site_id LIMIT 1
    ) d ON true
    ORDER BY ss.item_id, ss.site_id`))] as NetworkSiteRow[];
}

const OVERRIDE_COLUMNS = sql.fragment`id, pipeline_id, scenario_id, item_id, site_id, sl_override::float8 AS sl_override,
  eoq_override::float8 AS eoq_override, fr_override::float8 AS fr_override, updated_by, created_at, updated_at`;

/**
 * Overrides of the items for a pipeline and MEIO scenario: the scenario's own rows win over those for every scenario.
 * `scenarioId` null reads only the rows for every scenario (what the K-curve views apply: their scenarios are not
 * MEIO scenarios).
 */
export async function overridesOf(tx: Tx, pipelineId: number, scenarioId: number | null, itemIds: readonly number[]): Promise<Map<string, IoOverrideRow>> {
  if (!itemIds.length) return new Map();
  const rows = (await tx.any(sql.unsafe`
    SELECT DISTINCT ON (item_id, site_id) ${OVERRIDE_COLUMNS} FROM io_overrides
    WHERE pipeline_id = ${pipelineId} AND (scenario_id = ${scenarioId ?? -1} OR scenario_id IS NULL) AND item_id = ANY(${items(itemIds)}::int4[])
    ORDER BY item_id, site_id, scenario_id NULLS LAST`)) as readonly IoOverrideRow[];
  return new Map(rows.map((r) => [`${r.item_id}_${r.site_id}`, r]));
}

export interface IoOverrideWrite {
  pipeline_id: number;
  scenario_id: number | null;
  item_id: number;
  site_id: number;
  sl_override?: number | null;
  eoq_override?: number | null;
  fr_override?: number | null;
}

/**
 * Upsert per (pipeline, scenario, item, site): fields left out keep their stored value, fields sent as null clear it.
 * `created` tells an insert from an update.
 */
export async function upsertIoOverride(tx: Tx, o: IoOverrideWrite, updatedBy: string | null): Promise<IoOverrideRow & { created: boolean }> {
  const keep = (field: 'sl_override' | 'eoq_override' | 'fr_override') => (o[field] === undefined ? sql.fragment`io_overrides.${sql.identifier([field])}` : sql.fragment`EXCLUDED.${sql.identifier([field])}`);
  return (await tx.one(sql.unsafe`
    INSERT INTO io_overrides (pipeline_id, scenario_id, item_id, site_id, sl_override, eoq_override, fr_override, updated_by)
    VALUES (${o.pipeline_id}, ${o.scenario_id}, ${o.item_id}, ${o.site_id}, ${o.sl_override ?? null}, ${o.eoq_override ?? null}, ${o.fr_override ?? null}, ${updatedBy})
    ON CONFLICT (pipeline_id, COALESCE(scenario_id, 0), item_id, site_id) DO UPDATE SET
      sl_override = ${keep('sl_override')}, eoq_override = ${keep('eoq_override')}, fr_override = ${keep('fr_override')},
      updated_by = EXCLUDED.updated_by, updated_at = now()
    RETURNING ${OVERRIDE_COLUMNS}, (xmax = 0) AS created`)) as IoOverrideRow & { created: boolean };
}

/** Rewrites the results of these items for the pipeline and scenario, so a retried chunk writes the same rows again. */
export async function replaceMeioResults(
  tx: Tx, pipelineId: number, scenarioId: number, itemIds: readonly number[],
  skus: ReadonlyArray<{ itemId: number; r: MeioSkuResult }>, groups: ReadonlyArray<{ itemId: number; g: MeioGroupResult; cap?: number | null }>, jobId: string | null,
): Promise<number> {
  await tx.query(sql.unsafe`DELETE FROM meio_results WHERE pipeline_id = ${pipelineId} AND scenario_id = ${scenarioId} AND item_id = ANY(${items(itemIds)}::int4[])`);
  await tx.query(sql.unsafe`DELETE FROM meio_group_results WHERE pipeline_id = ${pipelineId} AND scenario_id = ${scenarioId} AND item_id = ANY(${items(itemIds)}::int4[])`);
  if (skus.length) {
    const n = (v: number | null) => (v === null || !Number.isFinite(v) ? null : v);
    await tx.query(sql.unsafe`
      INSERT INTO meio_results (pipeline_id, scenario_id, item_id, site_id, policy, service_type, target_service, target_source, echelon_model,
        distribution_type, weekly_mean, weekly_std, lead_time_weeks, net_lead_time_weeks, review_period_weeks, ltd_mean, ltd_std, order_qty,
        reorder_point, order_up_to, safety_stock, expected_fill_rate, expected_csl, expected_backorders, expected_on_hand, unit_cost, investment,
        meets_target, diagnostics, job_id)
      SELECT ${pipelineId}, ${scenarioId}, u.item_id, u.site_id, u.policy, u.service_type, u.target_service, u.target_source, u.echelon_model,
        u.distribution_type, u.weekly_mean, u.weekly_std, u.lead_time_weeks, u.net_lead_time_weeks, u.review_period_weeks, u.ltd_mean, u.ltd_std,
        u.order_qty, u.reorder_point, u.order_up_to, u.safety_stock, u.expected_fill_rate, u.expected_csl, u.expected_backorders, u.expected_on_hand,
        u.unit_cost, u.investment, u.meets_target, u.diagnostics::jsonb, ${jobId}
      FROM ${sql.unnest(skus.map(({ itemId, r }) => [
        itemId, r.siteId, r.policy, r.serviceType, r.targetService, r.targetSource, r.echelonModel, r.distributionType, n(r.weeklyMean), n(r.weeklyStd),
        n(r.leadTimeWeeks), n(r.netLeadTimeWeeks), n(r.reviewPeriodWeeks), n(r.ltdMean), n(r.ltdStd), n(r.orderQty), n(r.reorderPoint), n(r.orderUpTo),
        n(r.safetyStock), n(r.expectedFillRate), n(r.expectedCsl), n(r.expectedBackorders), n(r.expectedOnHand), n(r.unitCost), n(r.investment),
        r.meetsTarget, JSON.stringify(r.diagnostics),
      ]), ['int4', 'int4', 'text', 'text', 'float8', 'text', 'text', 'text', 'float8', 'float8', 'float8', 'float8', 'float8', 'float8', 'float8',
        'float8', 'float8', 'float8', 'float8', 'float8', 'float8', 'float8', 'float8', 'float8', 'float8', 'bool', 'text'])}
        AS u(item_id, site_id, policy, service_type, target_service, target_source, echelon_model, distribution_type, weekly_mean, weekly_std,
          lead_time_weeks, net_lead_time_weeks, review_period_weeks, ltd_mean, ltd_std, order_qty, reorder_point, order_up_to, safety_stock,
          expected_fill_rate, expected_csl, expected_backorders, expected_on_hand, unit_cost, investment, meets_target, diagnostics)`);
  }
  if (groups.length) {
    await tx.query(sql.unsafe`
      INSERT INTO meio_group_results (pipeline_id, scenario_id, item_id, n_skus, target_service, expected_fill_rate, investment, meets_target, curve,
        curve_investment, weekly_demand, budget_cap, echelon_model, expected_backorders, job_id)
      SELECT ${pipelineId}, ${scenarioId}, u.item_id, u.n_skus, u.target_service, u.expected_fill_rate, u.investment, u.meets_target, u.curve::jsonb,
        u.curve_investment, u.weekly_demand, u.budget_cap, u.echelon_model, u.expected_backorders, ${jobId}
      FROM ${sql.unnest(groups.map(({ itemId, g, cap }) => [itemId, g.nSkus, g.targetService, g.expectedFillRate, g.investment, g.meetsTarget, JSON.stringify(g.curve),
        g.curveInvestment, g.weeklyDemand, cap ?? null, g.echelonModel, g.expectedBackorders]),
        ['int4', 'int4', 'float8', 'float8', 'float8', 'bool', 'text', 'float8', 'float8', 'float8', 'text', 'float8'])}
        AS u(item_id, n_skus, target_service, expected_fill_rate, investment, meets_target, curve, curve_investment, weekly_demand, budget_cap,
          echelon_model, expected_backorders)`);
  }
  return skus.length;
}

/** Results of items that left the run's scope are dropped at the end of a run, so a run's results are exactly its scope. */
export async function dropMeioResultsOutside(tx: Tx, pipelineId: number, scenarioId: number, jobId: string): Promise<number> {
  const r = await tx.query(sql.unsafe`DELETE FROM meio_results WHERE pipeline_id = ${pipelineId} AND scenario_id = ${scenarioId} AND job_id IS DISTINCT FROM ${jobId}`);
  await tx.query(sql.unsafe`DELETE FROM meio_group_results WHERE pipeline_id = ${pipelineId} AND scenario_id = ${scenarioId} AND job_id IS DISTINCT FROM ${jobId}`);
  return r.rowCount;
}

/** The curves a scenario budget is shared out over: one per item network of the run. */
export async function groupCurves(tx: Tx, pipelineId: number, scenarioId: number): Promise<Array<{ item_id: number; weekly_demand: number; curve: Array<{ investment: number; fill_rate: number }> }>> {
  return [...(await tx.any(sql.unsafe`
    SELECT item_id, weekly_demand, curve FROM meio_group_results
    WHERE pipeline_id = ${pipelineId} AND scenario_id = ${scenarioId} AND jsonb_array_length(curve) > 0 ORDER BY item_id`))] as Array<{ item_id: number; weekly_demand: number; curve: Array<{ investment: number; fill_rate: number }> }>;
}

/** Weekly demand of every series of the items, oldest first: the sample an empirical fit stands for. */
export async function weeklyValuesOfItems(tx: Tx, itemIds: readonly number[]): Promise<Map<string, number[]>> {
  if (!itemIds.length) return new Map();
  const rows = (await tx.any(sql.unsafe`
    SELECT item_id, site_id, array_agg(y::float8 ORDER BY week) AS y FROM series_weekly
    WHERE item_id = ANY(${items(itemIds)}::int4[]) GROUP BY item_id, site_id`)) as ReadonlyArray<{ item_id: number; site_id: number; y: number[] }>;
  return new Map(rows.map((r) => [`${r.item_id}_${r.site_id}`, r.y]));
}

export interface MeioSummary {
  sku_sites: number;
  meeting_target: number;
  investment: number;
  fill_rate: number | null;
}

export async function meioSummary(tx: Tx, pipelineId: number, scenarioId: number): Promise<MeioSummary> {
  return (await tx.one(sql.unsafe`
    SELECT count(*)::int AS sku_sites, count(*) FILTER (WHERE meets_target)::int AS meeting_target, COALESCE(sum(investment), 0)::float8 AS investment,
      (sum(expected_fill_rate * weekly_mean) FILTER (WHERE weekly_mean > 0 AND expected_fill_rate IS NOT NULL)
        / NULLIF(sum(weekly_mean) FILTER (WHERE weekly_mean > 0 AND expected_fill_rate IS NOT NULL), 0))::float8 AS fill_rate
    FROM meio_results WHERE pipeline_id = ${pipelineId} AND scenario_id = ${scenarioId}`)) as MeioSummary;
}

/**
 * The MEIO scenario a run uses: the one asked for, else the tenant's default, else a default created with the
 * catalogue values (so a pipeline's meio step runs on a fresh tenant without a planner configuring anything first).
 * Null when an asked-for scenario does not exist. Every chunk of the step asks first thing in its transaction, so the
 * lock is only taken when there is none yet: held to the chunk's commit, it had made the chunks run one after the
 * other whatever the number of workers (meio 1.08x faster with two worker processes than with one).
 */
export async function meioScenarioForRun(tx: Tx, scenarioId: number | null): Promise<number | null> {
  if (scenarioId !== null) return (await tx.maybeOneFirst(sql.unsafe`SELECT id FROM meio_scenarios WHERE id = ${scenarioId}`)) as number | null;
  const defaultOf = async () => (await tx.maybeOneFirst(sql.unsafe`SELECT id FROM meio_scenarios ORDER BY is_default DESC, id LIMIT 1`)) as number | null;
  const found = await defaultOf();
  if (found !== null) return found;
  await tx.query(sql.unsafe`SELECT pg_advisory_xact_lock(hashtext(current_schema()), hashtext('meio_scenarios'))`);
  const existing = await defaultOf();
  if (existing !== null) return existing;
  return (await tx.oneFirst(sql.unsafe`
    INSERT INTO meio_scenarios (name, description, is_default, created_by)
    VALUES ('Default', 'created by the first meio run: catalogue service targets and costs', true, 'system') RETURNING id`)) as number;
}
