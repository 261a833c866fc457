import { sql, withTenant } from '../../db/pool';
import type { TestApp } from './testApp';

/**
 * The causal fixture of docs/CAUSAL.md and test/domain/causal/engine.test.ts, built through the API:
 *   asset type TRK (2 × part P per asset, 0.001 failures per part-hour) and CRANE (1 × P, 0.01, no coverage);
 *   customer C1: TRK 2 800 h over 2026-01-01..01-28 (weekly 700), coverage S100: 30, S200: 10 (→ 0.75 / 0.25),
 *                3 TRK deployed at S100; CRANE 700 h over 2026-01-05..01-11;
 *   customer C2: TRK 1 500 h over 2026-01-01..01-10 (10 days inclusive → weekly 1 050), no coverage of its own → the
 *                global row S200: 50 (→ 1.0); a fleet plan of 4 TRK from 2026-01-01.
 * fleet_total, week of 2026-01-05: P@S100 = 1.05, P@S200 = 0.35 + 2.1 = 2.45, P over every site 3.5.
 * per_asset: C1 × 3, C2 × 4 → P@S100 = 3.15, P@S200 = 1.05 + 8.4 = 9.45.
 */
export interface CausalSeed {
  items: { P: number; G: number; B: number };
  sites: { S100: number; S200: number };
  assetTypes: { TRK: number; CRANE: number };
  customers: { C1: number; C2: number };
  hours: number;
  scenarios: { base: number; perAsset: number };
}

export async function seedCausal(t: TestApp, accountId: string, admin: string): Promise<CausalSeed> {
  const ids = await withTenant(t.db, accountId, async (tx) => {
    const item = async (c: string) => (await tx.oneFirst(sql.unsafe`INSERT INTO items (xuid, name) VALUES (${c}, ${`Part ${c}`}) RETURNING id`)) as number;
    const site = async (c: string) => (await tx.oneFirst(sql.unsafe`INSERT INTO sites (xuid, name) VALUES (${c}, ${`Site ${c}`}) RETURNING id`)) as number;
    return { items: { P: await item('P'), G: await item('G'), B: await item('B') }, sites: { S100: await site('S100'), S200: await site('S200') } };
  });
  const post = async (path: string, body: Record<string, unknown>) => {
    const res = await t.call('post', `/api/causal/${path}`, { token: admin, body });
    if (res.status !== 201 && res.status !== 200) throw new Error(`POST ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const hours = ((await t.call('get', '/api/causal/usage-types', { token: admin })).body as Array<{ id: number; code: string }>).find((u) => u.code === 'hours')!.id;
  const TRK = (await post('asset-types', { code: 'TRK', name: 'Truck 40t' })).id;
  const CRANE = (await post('asset-types', { code: 'CRANE', name: 'Crane' })).id;
  const { P } = ids.items;
  const { S100, S200 } = ids.sites;
  const u1 = await post('asset-usage', { asset_type_id: TRK, customer_code: 'C1', customer_name: 'Acme', usage_type_id: hours, period_start: '2026-01-01', period_end: '2026-01-28', total_usage: 2800 });
  const u2 = await post('asset-usage', { asset_type_id: TRK, customer_code: 'C2', customer_name: 'Globex', usage_type_id: hours, period_start: '2026-01-01', period_end: '2026-01-10', total_usage: 1500 });
  const C1 = u1.customer_id as number;
  const C2 = u2.customer_id as number;
  await post('asset-usage', { asset_type_id: CRANE, customer_id: C1, usage_type_id: hours, period_start: '2026-01-05', period_end: '2026-01-11', total_usage: 700 });
  await post('bom', { asset_type_id: TRK, item_id: P, qty_per_asset: 2 });
  await post('bom', { asset_type_id: CRANE, item_id: P, qty_per_asset: 1 });
  await post('failure-rate', { asset_type_id: TRK, item_id: P, usage_type_id: hours, rate: 0.001 });
  await post('failure-rate', { asset_type_id: CRANE, item_id: P, usage_type_id: hours, rate: 0.01 });
  await post('coverage', { asset_type_id: TRK, customer_id: C1, site_id: S100, coverage_pct: 30 });
  await post('coverage', { asset_type_id: TRK, customer_id: C1, site_id: S200, coverage_pct: 10 });
  await post('coverage', { asset_type_id: TRK, site_id: S200, coverage_pct: 50 });
  for (const n of [1, 2, 3]) {
    const asset = await post('assets', { asset_type_id: TRK, serial_number: `TRK-${n}` });
    await post('asset-deployments', { asset_id: asset.id, customer_id: C1, site_id: S100, start_date: '2025-06-01' });
  }
  await post('fleet-plan', { asset_type_id: TRK, customer_id: C2, start_date: '2026-01-01', quantity: 4 });
  const base = (await post('scenarios', { name: 'Base', start_date: '2026-01-05', horizon_weeks: 2 })).id;
  const perAsset = (await post('scenarios', { name: 'Per asset', usage_mode: 'per_asset', start_date: '2026-01-05', horizon_weeks: 2 })).id;
  return { ...ids, assetTypes: { TRK, CRANE }, customers: { C1, C2 }, hours, scenarios: { base, perAsset } };
}
