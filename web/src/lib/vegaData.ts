/**
 * A Vega-Lite spec split into its shape and its inline data. Two SKU-sites' charts differ in their numbers, not in
 * their layers and encodings: with the data lifted out as named sources, the compiled and parsed chart of one shape
 * is reused and only the rows are swapped in (web/src/lib/vegaView.ts).
 */
export interface LiftedSpec {
  /** the spec with each `data: {values}` replaced by `data: {name}` */
  shape: Record<string, unknown>;
  /** the shape as text: equal keys, equal compiled charts */
  key: string;
  /** the lifted rows by source name */
  datasets: Record<string, readonly unknown[]>;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function liftInlineData(spec: Record<string, unknown>): LiftedSpec {
  const datasets: Record<string, readonly unknown[]> = {};
  let n = 0;
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (!isRecord(node)) return node;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(node)) {
      if (k === 'data' && isRecord(v) && Array.isArray(v.values)) {
        // sources are named by their place in the walk, so the same shape always gets the same names
        const name = `inline_${n++}`;
        datasets[name] = v.values;
        const { values: _values, ...rest } = v;
        out[k] = { ...rest, name };
      } else {
        out[k] = walk(v);
      }
    }
    return out;
  };
  const shape = walk(spec) as Record<string, unknown>;
  return { shape, key: JSON.stringify(shape), datasets };
}
