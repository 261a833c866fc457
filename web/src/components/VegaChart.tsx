import { useEffect, useRef, useState } from 'react';

/**
 * A Vega-Lite chart drawn as SVG (marks a test or a screen reader can find). vega-embed and Vega are imported on the
 * first chart, so the first page's JavaScript does not carry them.
 */
export function VegaChart({ spec, label, testId }: { spec: Record<string, unknown>; label: string; testId?: string }) {
  const ref = useRef<HTMLDivElement>(null);
  const [state, setState] = useState<'drawing' | 'drawn' | 'failed'>('drawing');
  useEffect(() => {
    let finalize: (() => void) | undefined;
    let cancelled = false;
    setState('drawing');
    void import('vega-embed')
      .then(({ default: embed }) => embed(ref.current!, spec as never, { renderer: 'svg', actions: false }))
      .then((result) => {
        if (cancelled) return result.finalize();
        finalize = () => result.finalize();
        setState('drawn');
      })
      .catch(() => !cancelled && setState('failed'));
    return () => {
      cancelled = true;
      finalize?.();
    };
  }, [spec]);
  return (
    <figure className="chart" aria-label={label} data-testid={testId} data-state={state}>
      <div ref={ref} className="chart-body" />
      {state === 'failed' && <p role="alert">The chart could not be drawn.</p>}
      <figcaption className="sr-only">{label}</figcaption>
    </figure>
  );
}
