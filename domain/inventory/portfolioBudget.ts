/**
 * A portfolio budget shared out over item networks. Each item brings the service-versus-investment curve the meio
 * step traced for it (sampled points, cheapest first) and its weekly demand; the portfolio's service is the
 * demand-weighted fill rate. Marginal analysis over the items' upper concave hulls (Sherbrooke's device: on a hull the
 * ratios fall, so taking hull segments in ratio order is optimal for every budget it stops at) gives each item an
 * investment cap; the last segment is taken in part, so the whole budget is used.
 */
export interface ItemCurve {
  itemId: number;
  weeklyDemand: number;
  points: ReadonlyArray<{ investment: number; fill_rate: number }>;
}

export interface BudgetAllocation {
  /** investment cap per item, for the items whose curve the budget cuts short */
  caps: Map<number, number>;
  /** portfolio demand-weighted fill rate at the caps, as read off the curves */
  fillRate: number;
  /** investment the curves' cheapest points alone need; the caps never go below them */
  floor: number;
  spent: number;
}

function upperHull(points: ReadonlyArray<{ investment: number; fill_rate: number }>): Array<{ x: number; y: number }> {
  const hull: Array<{ x: number; y: number }> = [];
  for (const p of points) {
    const q = { x: p.investment, y: p.fill_rate };
    if (hull.length && q.x <= hull[hull.length - 1].x) {
      if (q.y > hull[hull.length - 1].y) hull[hull.length - 1] = q;
      continue;
    }
    while (hull.length >= 2) {
      const a = hull[hull.length - 2];
      const b = hull[hull.length - 1];
      // b lies on or under the chord a → q: it is never the better stop
      if ((b.y - a.y) * (q.x - a.x) <= (q.y - a.y) * (b.x - a.x)) hull.pop();
      else break;
    }
    hull.push(q);
  }
  return hull;
}

export function allocateBudget(items: readonly ItemCurve[], budget: number): BudgetAllocation {
  const totalDemand = items.reduce((n, i) => n + Math.max(0, i.weeklyDemand), 0);
  const hulls = items.map((i) => upperHull(i.points));
  const at = hulls.map(() => 0);
  let spent = 0;
  let score = 0;
  hulls.forEach((h, k) => {
    if (!h.length) return;
    spent += h[0].x;
    score += (items[k].weeklyDemand / (totalDemand || 1)) * h[0].y;
  });
  const floor = spent;
  const partial = new Map<number, number>();
  // segments in falling ratio order across items; a simple sort is enough: within an item the hull's ratios fall
  const segments: Array<{ item: number; seg: number; dx: number; dy: number; ratio: number }> = [];
  hulls.forEach((h, k) => {
    const w = items[k].weeklyDemand / (totalDemand || 1);
    for (let j = 1; j < h.length; j++) {
      const dx = h[j].x - h[j - 1].x;
      const dy = w * (h[j].y - h[j - 1].y);
      segments.push({ item: k, seg: j, dx, dy, ratio: dx > 0 ? dy / dx : Infinity });
    }
  });
  segments.sort((a, b) => b.ratio - a.ratio || a.item - b.item || a.seg - b.seg);
  for (const s of segments) {
    if (at[s.item] !== s.seg - 1) continue;
    const left = budget - spent;
    if (left <= 0) break;
    if (s.dx <= left) {
      spent += s.dx;
      score += s.dy;
      at[s.item] = s.seg;
    } else {
      partial.set(s.item, left);
      spent += left;
      score += s.dy * (left / s.dx);
      break;
    }
  }
  const caps = new Map<number, number>();
  hulls.forEach((h, k) => {
    if (!h.length) return;
    const top = h[h.length - 1].x;
    const cap = h[at[k]].x + (partial.get(k) ?? 0);
    if (cap < top - 1e-9) caps.set(items[k].itemId, cap);
  });
  return { caps, fillRate: score, floor, spent };
}
