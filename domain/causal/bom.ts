/**
 * Bill of materials of the causal model (docs/CAUSAL.md): an asset type holds parts (top edges, `asset_type_id` set)
 * and a part holds sub-parts (`parent_item_id` set). Exploding an asset type walks every level and multiplies the
 * quantities along the way: 2 gearboxes per asset × 3 bearings per gearbox = 6 bearings per asset. A part reached by
 * several paths sums them. Pure: edges in, rows out.
 */

export interface BomEdge {
  id?: number;
  asset_type_id: number | null;
  parent_item_id: number | null;
  item_id: number;
  qty_per_asset: number;
}

export interface ExplodedRow {
  item_id: number;
  /** 1: directly in the asset type, 2: in a level-1 part, ... */
  level: number;
  /** the part it sits in; null at level 1 */
  parent_item_id: number | null;
  /** quantity of this edge (per parent) */
  qty_per_parent: number;
  /** cumulative quantity per asset along this path */
  qty_per_asset: number;
  /** items from the top of the asset down to this one */
  path: number[];
}

/** Longest path followed; deeper trees mean a cycle the write checks missed, and the walk stops there. */
export const MAX_BOM_LEVELS = 50;

/** Every path of the asset type's tree, depth first, children by item id. */
export function explodeBom(edges: readonly BomEdge[], assetTypeId: number): ExplodedRow[] {
  const children = new Map<number, BomEdge[]>();
  for (const e of edges) {
    if (e.parent_item_id === null) continue;
    const list = children.get(e.parent_item_id) ?? [];
    list.push(e);
    children.set(e.parent_item_id, list);
  }
  for (const list of children.values()) list.sort((a, b) => a.item_id - b.item_id);
  const out: ExplodedRow[] = [];
  const walk = (e: BomEdge, level: number, parentQty: number, path: number[]) => {
    if (level > MAX_BOM_LEVELS || path.includes(e.item_id)) return;
    const qty = parentQty * e.qty_per_asset;
    const here = [...path, e.item_id];
    out.push({ item_id: e.item_id, level, parent_item_id: e.parent_item_id, qty_per_parent: e.qty_per_asset, qty_per_asset: qty, path: here });
    for (const c of children.get(e.item_id) ?? []) walk(c, level + 1, qty, here);
  };
  const top = edges.filter((e) => e.asset_type_id === assetTypeId).sort((a, b) => a.item_id - b.item_id);
  for (const e of top) walk(e, 1, 1, []);
  return out;
}

/** Total quantity of each part per asset over every path. */
export function explodedTotals(edges: readonly BomEdge[], assetTypeId: number): Map<number, number> {
  const totals = new Map<number, number>();
  for (const r of explodeBom(edges, assetTypeId)) totals.set(r.item_id, (totals.get(r.item_id) ?? 0) + r.qty_per_asset);
  return totals;
}

/**
 * The items of the cycle a sub-part edge parent → item would close (item already contains parent, at any depth), as
 * [parent, item, ..., parent]; null when it closes none.
 */
export function bomCycle(edges: readonly BomEdge[], parentItemId: number, itemId: number): number[] | null {
  if (parentItemId === itemId) return [parentItemId, itemId];
  const children = new Map<number, number[]>();
  for (const e of edges) {
    if (e.parent_item_id === null) continue;
    children.set(e.parent_item_id, [...(children.get(e.parent_item_id) ?? []), e.item_id]);
  }
  // a path from itemId down to parentItemId
  const seen = new Set<number>();
  const find = (from: number, path: number[]): number[] | null => {
    if (from === parentItemId) return path;
    if (seen.has(from)) return null;
    seen.add(from);
    for (const c of children.get(from) ?? []) {
      const p = find(c, [...path, c]);
      if (p) return p;
    }
    return null;
  };
  const p = find(itemId, [itemId]);
  return p ? [parentItemId, ...p] : null;
}
