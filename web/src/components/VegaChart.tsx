import { useEffect, useRef, useState } from 'react';

/**
 * A Vega-Lite chart drawn as SVG (marks a test or a screen reader can find). Vega and Vega-Lite are imported on the
 * first chart, so the first page's JavaScript does not carry them. Without a spec yet (its reads still loading) the
 * chart's frame is laid out already, so the page around it does not move when it draws.
 */
export function VegaChart({ spec, label, testId }: { spec: Record<string, unknown> | null; label: string; testId?: string }) {
  const ref = useRef<HTMLDivElement>(null);
  const [state, setState] = useState<'waiting' | 'drawing' | 'drawn' | 'failed'>('waiting');
  useEffect(() => {
    if (!spec) {
      setState('waiting');
      return undefined;
    }
    let finalize: (() => void) | undefined;
    let cancelled = false;
    setState('drawing');
    void import('../lib/vegaView')
      .then(({ drawVegaLite }) => drawVegaLite(ref.current!, spec))
      .then((view) => {
        if (cancelled) return view.finalize();
        finalize = () => view.finalize();
        setState('drawn');
      })
      .catch(() => !cancelled && setState('failed'));
    return () => {
      cancelled = true;
      finalize?.();
    };
  }, [spec]);
  return (
    <figure className="chart" aria-label={label} aria-busy={state === 'waiting' || state === 'drawing'} data-testid={testId} data-state={state}>
      <div ref={ref} className="chart-body" />
      {state === 'waiting' && <p className="muted" role="status">Loading the chart…</p>}
      {state === 'failed' && <p role="alert">The chart could not be drawn.</p>}
      <figcaption className="sr-only">{label}</figcaption>
    </figure>
  );
}
