import type { AllocationProblem, AllocationSupply, DemandLine } from '../../domain/allocation/model';
import { createRng, sampleUniformIndex } from '../../domain/inventory/random';

export interface InstanceShape {
  /** Demand lines in total. */
  demands: number;
  /** Average demand lines per (item, site) group. */
  linesPerGroup: number;
  /** Supplies per group as a fraction of its lines (at least one per group). */
  suppliesPerLine: number;
  /** Share of supplies that are firm orders (reliability 1.0); the rest are engine orders (0.85). */
  firmShare: number;
  /** Total supply over total demand, roughly. */
  coverage: number;
  /** Whole quantities (true) or fractional ones. */
  integral: boolean;
}

export const DEFAULT_SHAPE: InstanceShape = { demands: 1000, linesPerGroup: 10, suppliesPerLine: 0.5, firmShare: 0.4, coverage: 0.8, integral: true };

const CLASSES = ['A', 'B', 'B', 'C', 'C', 'C', null, 'X'] as const;

/** A seeded random allocation instance with the pool's shape: SO_/FIRM_ supplies, weeks 0..51, ABC lines. */
export function randomInstance(seed: number, shapeIn: Partial<InstanceShape> = {}): AllocationProblem {
  const shape = { ...DEFAULT_SHAPE, ...shapeIn };
  const rng = createRng(seed);
  const qty = (mean: number) => (shape.integral ? 1 + Math.floor(rng() * 2 * mean) : 0.5 + rng() * 2 * mean);
  const nGroups = Math.max(1, Math.round(shape.demands / shape.linesPerGroup));
  const demands: DemandLine[] = [];
  const supplies: AllocationSupply[] = [];
  for (let i = 0; i < shape.demands; i++) {
    const g = i < nGroups ? i : sampleUniformIndex(rng, nGroups);
    demands.push({
      demand_id: `D${i}`,
      item_id: 1000 + (g >> 2),
      site_id: 1 + (g & 3),
      qty: qty(50),
      due_week: sampleUniformIndex(rng, 52),
      priority_class: CLASSES[sampleUniformIndex(rng, CLASSES.length)]!,
    });
  }
  const nSupplies = Math.max(nGroups, Math.round(shape.demands * shape.suppliesPerLine));
  const supplyMean = (50 * shape.coverage) / shape.suppliesPerLine;
  for (let k = 0; k < nSupplies; k++) {
    const g = k < nGroups ? k : sampleUniformIndex(rng, nGroups);
    const firm = rng() < shape.firmShare;
    supplies.push({
      supply_id: `${firm ? 'FIRM' : 'SO'}_${k}`,
      item_id: 1000 + (g >> 2),
      site_id: 1 + (g & 3),
      qty: qty(supplyMean),
      arrival_week: sampleUniformIndex(rng, 52),
      reliability: firm ? 1.0 : 0.85,
    });
  }
  return { supplies, demands };
}

/** Fisher-Yates with the seeded generator: the same instance in another input order. */
export function shuffled<T>(xs: readonly T[], seed: number): T[] {
  const rng = createRng(seed);
  const out = xs.slice();
  for (let i = out.length - 1; i > 0; i--) {
    const j = sampleUniformIndex(rng, i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
