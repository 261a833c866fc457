/**
 * Draws a Vega-Lite spec as SVG with Vega's View, loaded with the first chart (dynamic import of this module).
 *
 * Compiling Vega-Lite and parsing the Vega spec cost more than drawing a few hundred rows, and every SKU-site's chart
 * has one of a handful of shapes: the parsed chart is kept per shape and each chart only swaps its rows in.
 */
import { parse, View, type Runtime } from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import { liftInlineData } from './vegaData';

const KEPT_SHAPES = 32;
const runtimes = new Map<string, Runtime>();

function runtimeOf(shape: Record<string, unknown>, key: string): Runtime {
  const kept = runtimes.get(key);
  if (kept) return kept;
  performance.mark('vega:compile:start');
  const runtime = parse(compile(shape as unknown as TopLevelSpec).spec);
  performance.measure('vega: compile and parse', 'vega:compile:start');
  if (runtimes.size >= KEPT_SHAPES) runtimes.delete(runtimes.keys().next().value!);
  runtimes.set(key, runtime);
  return runtime;
}

export async function drawVegaLite(el: HTMLElement, spec: Record<string, unknown>): Promise<View> {
  const { shape, key, datasets } = liftInlineData(spec);
  const view = new View(runtimeOf(shape, key), { renderer: 'svg' });
  // Vega-Lite's date parsing rewrites fields of the rows it is given: copies keep the page's query data as it came
  for (const [name, rows] of Object.entries(datasets)) view.data(name, rows.map((r) => (typeof r === 'object' && r !== null ? { ...r } : r)));
  performance.mark('vega:draw:start');
  el.replaceChildren();
  await view.initialize(el).runAsync();
  performance.measure('vega: dataflow and SVG', 'vega:draw:start');
  return view;
}
