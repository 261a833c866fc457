import { useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { api, must } from '../api/client';
import { VegaChart } from '../components/VegaChart';
import { Empty, Failed, Loading } from '../components/Status';
import { exchangeCurveSpec, fillRateHeatmapSpec, type GroupCurve } from '../lib/charts';
import { usePipeline } from '../session/pipeline';

export function Inventory() {
  const pipeline = usePipeline();
  const pid = pipeline?.id;
  const [chosen, setChosen] = useState<number | null>(null);
  const scenarios = useQuery({ queryKey: ['meio-scenarios'], queryFn: async () => must(await api.GET('/api/meio/scenarios', { params: { query: { limit: 100 } } })) });
  const scenarioId = chosen ?? (scenarios.data?.find((s) => s.is_default) ?? scenarios.data?.[0])?.id ?? null;
  const groups = useQuery({
    queryKey: ['meio-groups', pid, scenarioId], enabled: pid !== undefined && scenarioId !== null,
    queryFn: async () => must(await api.GET('/api/meio/scenarios/{id}/results', { params: { path: { id: scenarioId! }, query: { pipeline_id: pid, level: 'group', limit: 500 } } })),
  });
  const heat = useQuery({
    queryKey: ['fr-heatmap', pid, scenarioId], enabled: pid !== undefined && scenarioId !== null,
    queryFn: async () => must(await api.GET('/api/meio/fr-heatmap', { params: { query: { pipeline_id: pid, scenario_id: scenarioId! } } })),
  });
  const curves = (groups.data ?? []).filter((g): g is Extract<typeof g, { curve: unknown }> => 'curve' in g) as unknown as GroupCurve[];
  const curveSpec = useMemo(() => (curves.length ? exchangeCurveSpec(curves) : null), [groups.data]);
  const heatSpec = useMemo(() => (heat.data?.cells.length ? fillRateHeatmapSpec(heat.data.cells) : null), [heat.data]);

  return (
    <section aria-labelledby="inventory-title">
      <h1 id="inventory-title">Inventory</h1>
      <form className="filters" aria-label="MEIO scenario" onSubmit={(e) => e.preventDefault()}>
        <label>MEIO scenario
          <select value={scenarioId ?? ''} onChange={(e) => setChosen(Number(e.target.value))}>
            {(scenarios.data ?? []).map((s) => <option key={s.id} value={s.id}>{s.name}{s.is_default ? ' (default)' : ''}</option>)}
          </select>
        </label>
      </form>
      <section className="panel" aria-labelledby="curve-title">
        <h2 id="curve-title">Exchange curve: service against investment</h2>
        {groups.isPending ? <Loading what="the exchange curve" /> : groups.isError ? <Failed error={groups.error} /> : !curveSpec ? <Empty>No MEIO results for this scenario yet: run the meio step.</Empty> : (
          <VegaChart spec={curveSpec} label="Expected fill rate against investment, per item" testId="exchange-chart" />
        )}
      </section>
      <section className="panel" aria-labelledby="heat-title">
        <h2 id="heat-title">Fill rate by segment and site</h2>
        {heat.isPending ? <Loading what="the heatmap" /> : heat.isError ? <Failed error={heat.error} /> : !heatSpec ? <Empty>No fill rates yet.</Empty> : (
          <VegaChart spec={heatSpec} label="Expected fill rate by segment and site" testId="heatmap-chart" />
        )}
      </section>
    </section>
  );
}
