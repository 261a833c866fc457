/**
 * A small fleet in the demo tenant (docs/CAUSAL.md), so the /api/causal/* views and `forecast_causal` show something:
 * a truck type whose parts are the first series' items (a three-level BOM), 6 trucks at two customers, 12 weeks of
 * operating hours before the planning today, coverage of the customers' sites, failure rates, a fleet plan that grows
 * one customer's fleet, and two scenarios, "Baseline" and "Usage +20 %". Idempotent: a tenant that has any asset type
 * is left as is. No run is started: POST /api/causal/scenarios/run computes the results.
 */
import { resolvePlanningDate, TENANT_PIPELINE } from '../../db/planningDate';
import {
  ASSET_RECORD, ASSET_TYPE_RECORD, assetTypeCount, BOM_RECORD, COVERAGE_RECORD, customerByCode, DEPLOYMENT_RECORD, FAILURE_RATE_RECORD,
  firstSeriesKeys, FLEET_PLAN_RECORD, SCENARIO_RECORD, USAGE_RECORD, usageTypeId,
} from '../../db/causal';
import type { Tx } from '../../db/pool';
import { insertRecord } from '../../db/records';
import { addWeeks, dateOfDay, dayNumber, mondayOf } from '../../domain/time/weeks';

export async function seedDemoCausal(tx: Tx): Promise<{ asset_types: number; assets: number; scenarios: number }> {
  const none = { asset_types: 0, assets: 0, scenarios: 0 };
  if ((await assetTypeCount(tx)) > 0) return none;
  const parts = await firstSeriesKeys(tx, 3);
  if (parts.length === 0) return none;
  const part = (k: number) => parts[k % parts.length];
  const today = mondayOf((await resolvePlanningDate(tx, TENANT_PIPELINE)).date);
  const hours = await usageTypeId(tx, 'hours');
  const id = async (t: Parameters<typeof insertRecord>[1], v: Record<string, unknown>) => (await insertRecord(tx, t, v)).id as number;

  const truck = await id(ASSET_TYPE_RECORD, { code: 'TRUCK-40T', name: 'Truck 40 t', description: 'Demo fleet' });
  const logi = await customerByCode(tx, 'DEMO-LOGI', 'Demo Logistics');
  const build = await customerByCode(tx, 'DEMO-BUILD', 'Demo Build');
  // BOM: truck → 2 × part 0 → 3 × part 1; truck → 1 × part 2 (distinct items only, however few series there are)
  const items = [...new Set(parts.map((p) => p.item_id))];
  await id(BOM_RECORD, { asset_type_id: truck, item_id: items[0], qty_per_asset: 2 });
  if (items[1] !== undefined) await id(BOM_RECORD, { parent_item_id: items[0], item_id: items[1], qty_per_asset: 3 });
  if (items[2] !== undefined) await id(BOM_RECORD, { asset_type_id: truck, item_id: items[2], qty_per_asset: 1 });
  for (const [k, item] of items.entries()) await id(FAILURE_RATE_RECORD, { asset_type_id: truck, item_id: item, usage_type_id: hours, rate: [0.0005, 0.0002, 0.001][k], source: 'manual' });

  const siteA = part(0).site_id;
  const siteB = part(1).site_id;
  let assets = 0;
  for (const [customer, n, site] of [[logi, 4, siteA], [build, 2, siteB]] as const) {
    for (let k = 0; k < n; k += 1) {
      assets += 1;
      const asset = await id(ASSET_RECORD, { asset_type_id: truck, serial_number: `TRK-${String(assets).padStart(3, '0')}`, status: 'active', in_service_date: addWeeks(today, -104) });
      await id(DEPLOYMENT_RECORD, { asset_id: asset, customer_id: customer, site_id: site, start_date: addWeeks(today, -52) });
    }
    // three 4-week periods of operating hours before today: 50 h a truck a week, a little more each period
    for (let p = 0; p < 3; p += 1) {
      const start = addWeeks(today, -12 + 4 * p);
      await id(USAGE_RECORD, { asset_type_id: truck, customer_id: customer, usage_type_id: hours, period_start: start, period_end: dateOfDay(dayNumber(start) + 27), total_usage: n * 50 * 4 * (1 + 0.05 * p) });
    }
  }
  // Demo Logistics is served 70 / 30 by its two sites; everyone else by site A
  await id(COVERAGE_RECORD, { asset_type_id: truck, customer_id: logi, site_id: siteA, coverage_pct: 70 });
  if (siteB !== siteA) await id(COVERAGE_RECORD, { asset_type_id: truck, customer_id: logi, site_id: siteB, coverage_pct: 30 });
  await id(COVERAGE_RECORD, { asset_type_id: truck, customer_id: null, site_id: siteA, coverage_pct: 100 });
  await id(FLEET_PLAN_RECORD, { asset_type_id: truck, customer_id: logi, start_date: addWeeks(today, 12), end_date: null, quantity: 6, notes: 'two more trucks' });

  await id(SCENARIO_RECORD, { name: 'Baseline', description: 'The fleet as recorded', usage_mode: 'fleet_total', start_date: today, horizon_weeks: 52 });
  await id(SCENARIO_RECORD, { name: 'Usage +20 %', description: 'Every usage total 20 % higher', usage_mode: 'fleet_total', start_date: today, horizon_weeks: 52, usage_multiplier: 1.2 });
  return { asset_types: 1, assets, scenarios: 2 };
}
