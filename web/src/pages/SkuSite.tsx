import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { Link, useLocation, useParams } from 'react-router';
import { api, ApiError, must } from '../api/client';
import { VegaChart } from '../components/VegaChart';
import { Empty, Failed, Loading } from '../components/Status';
import { formatDay, formatMoney, formatQty, formatScore, formatShare } from '../lib/format';
import { mayDo } from '../lib/permissions';
import { skuChartSpec, type ApiVegaRow } from '../lib/skuChart';
import { usePipeline } from '../session/pipeline';
import { useSession } from '../session/useSession';

/** A read the SKU-site may not have yet (no outliers detected, no best method chosen): a 404 is "none", not an error. */
async function optional<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T | null> {
  const r = await call;
  if (r.response.status === 404) return null;
  return must(r);
}

export function SkuSite() {
  const uid = decodeURIComponent(useParams().uid ?? '');
  // a row of the work queue knows the series' item and site and hands them over, so the supply and stock reads start
  // with the others instead of after the series' own answer (a link opened from elsewhere waits for it)
  const handed = useLocation().state as { item_id?: number; site_id?: number } | null;
  const pipeline = usePipeline();
  const pid = pipeline?.id;
  const user = useSession()!.user;
  const client = useQueryClient();
  const [origin, setOrigin] = useState('');
  const [showOrigins, setShowOrigins] = useState(false);
  const [pegged, setPegged] = useState<number | null>(null);
  const path = { unique_id: uid };
  const enabled = pid !== undefined;
  // the side panels' reads wait for the chart's: a browser sends six requests to a host at once, and the chart is
  // what the planner came for (set per series, so the next SKU-site waits again)
  const [sideReadsFor, setSideReadsFor] = useState<string | null>(null);
  const sideReads = sideReadsFor === uid;

  const key = useQuery({ queryKey: ['sku-key', uid], queryFn: async () => must(await api.GET('/api/adjustments/{unique_id}', { params: { path } })) });
  const vega = useQuery({ queryKey: ['vega', uid, pid], enabled, queryFn: async () => must(await api.GET('/api/series/{unique_id}/vega-spec', { params: { path, query: { pipeline_id: pid } } })) });
  const outliers = useQuery({ queryKey: ['outliers', uid, pid], enabled, queryFn: () => optional(api.GET('/api/series/{unique_id}/outliers', { params: { path, query: { pipeline_id: pid } } })) });
  const best = useQuery({ queryKey: ['best', uid, pid], enabled: enabled && sideReads, queryFn: () => optional(api.GET('/api/series/{unique_id}/best-method', { params: { path, query: { pipeline_id: pid } } })) });
  const explanation = useQuery({ queryKey: ['explain', uid, pid], enabled: enabled && sideReads, queryFn: () => optional(api.GET('/api/series/{unique_id}/method-explanation', { params: { path, query: { pipeline_id: pid } } })) });
  const meioScenarios = useQuery({ queryKey: ['meio-scenarios'], queryFn: async () => must(await api.GET('/api/meio/scenarios', { params: { query: { limit: 100 } } })) });
  const supplyScenarios = useQuery({ queryKey: ['supply-scenarios'], queryFn: async () => must(await api.GET('/api/supply/scenarios', { params: { query: { limit: 100 } } })) });
  const meioId = (meioScenarios.data?.find((s) => s.is_default) ?? meioScenarios.data?.[0])?.id;
  const supplyId = (supplyScenarios.data?.find((s) => s.is_default) ?? supplyScenarios.data?.[0])?.id;
  const item = key.data ? { item_id: key.data.item_id, site_id: key.data.site_id }
    : typeof handed?.item_id === 'number' && typeof handed.site_id === 'number' ? { item_id: handed.item_id, site_id: handed.site_id } : null;

  const targets = useQuery({
    queryKey: ['meio-targets', uid, pid, meioId], enabled: enabled && !!item && meioId !== undefined,
    queryFn: async () => must(await api.GET('/api/meio/scenarios/{id}/results', { params: { path: { id: meioId! }, query: { pipeline_id: pid, level: 'sku', ...item! } } })),
  });
  const inventory = useQuery({
    queryKey: ['inventory', uid, pid, supplyId], enabled: enabled && !!item && supplyId !== undefined,
    queryFn: async () => must(await api.GET('/api/supply/inventory', { params: { query: { pipeline_id: pid!, scenario_id: supplyId!, ...item!, limit: 60 } } })),
  });
  const orders = useQuery({
    queryKey: ['orders', uid, pid, supplyId], enabled: enabled && !!item && supplyId !== undefined,
    queryFn: async () => must(await api.GET('/api/supply/orders', { params: { query: { pipeline_id: pid!, scenario_id: supplyId!, ...item!, include_firm: true, limit: 200 } } })),
  });
  const chain = useQuery({ queryKey: ['chain', item?.item_id, item?.site_id], enabled: !!item && sideReads, queryFn: async () => must(await api.GET('/api/supersession/item/{item_id}', { params: { path: { item_id: item!.item_id }, query: { site_id: item!.site_id } } })) });
  const maintenance = useQuery({ queryKey: ['maintenance', uid], enabled: !!item && sideReads, queryFn: async () => must(await api.GET('/api/maintenance/demand/series', { params: { query: { ...item! } } })) });
  const causalScenarios = useQuery({ queryKey: ['causal-scenarios'], queryFn: async () => must(await api.GET('/api/causal/scenarios', { params: { query: { limit: 20 } } })) });
  const causalId = causalScenarios.data?.[0]?.id;
  const causal = useQuery({ queryKey: ['causal', uid, causalId, pid], enabled: !!item && sideReads && causalId !== undefined, queryFn: () => optional(api.GET('/api/causal/results', { params: { query: { scenario_id: causalId!, pipeline_id: pid, ...item!, limit: 520 } } })) });
  const origins = useQuery({ queryKey: ['origins', uid, pid], enabled: enabled && showOrigins, queryFn: () => optional(api.GET('/api/forecasts/{unique_id}/origins', { params: { path, query: { pipeline_id: pid } } })) });
  const originForecast = useQuery({ queryKey: ['origin', uid, pid, origin], enabled: enabled && !!origin, queryFn: async () => must(await api.GET('/api/forecasts/{unique_id}/origins/{origin_date}', { params: { path: { unique_id: uid, origin_date: origin }, query: { pipeline_id: pid } } })) });
  const pegging = useQuery({ queryKey: ['pegging', pegged], enabled: pegged !== null && supplyId !== undefined, queryFn: async () => must(await api.GET('/api/supply/orders/{order_id}/pegging', { params: { path: { order_id: pegged! }, query: { pipeline_id: pid!, scenario_id: supplyId! } } })) });

  const target = targets.data?.[0] && 'reorder_point' in targets.data[0] ? targets.data[0] : null;
  // drawn once, when every layer's read has answered: a chart that redraws as each layer arrives jumps under the eye
  const layersReady = !!item && !!meioScenarios.data && !!supplyScenarios.data
    && [vega, outliers, targets, inventory, orders, originForecast].every((q) => !q.isLoading);
  const chartReadsSettled = layersReady || [key, vega, meioScenarios, supplyScenarios].some((q) => q.isError);
  useEffect(() => {
    if (chartReadsSettled) setSideReadsFor(uid);
  }, [chartReadsSettled, uid]);
  const spec = useMemo(() => {
    if (!vega.data || !layersReady) return null;
    return skuChartSpec({
      rows: vega.data.data.values as ApiVegaRow[],
      outliers: outliers.data?.points ?? [],
      targets: target ? { reorder_point: target.reorder_point, safety_stock: target.safety_stock, order_up_to: target.order_up_to } : null,
      inventory: inventory.data ?? [],
      orders: orders.data ?? [],
      backtest: Object.entries(originForecast.data?.forecasts ?? {}).flatMap(([method, pts]) => pts.filter((p) => p.yhat !== null).map((p) => ({ ds: p.ds, method, value: p.yhat! }))),
    });
  }, [layersReady, vega.data, outliers.data, target, inventory.data, orders.data, originForecast.data]);

  if (key.isError) return <Failed error={key.error} />;
  const characteristics = (explanation.data?.facts.characteristics ?? null) as Record<string, unknown> | null;
  const causalTotal = (causal.data?.items ?? []).reduce((s, r) => s + r.demand, 0);
  const maintenanceRow = maintenance.data?.series.find((s) => s.unique_id === uid);

  return (
    <section aria-labelledby="sku-title" className="sku">
      <p><Link to="/queue">← Work queue</Link></p>
      <h1 id="sku-title">SKU-site {uid}</h1>
      <div className="sku-grid">
        <div className="panel wide">
          {vega.isError ? <Failed error={vega.error} /> : <VegaChart spec={spec} label={`Demand, forecast, stock targets and supply of ${uid}`} testId="sku-chart" />}
          <div className="row">
            {!showOrigins ? <button type="button" onClick={() => setShowOrigins(true)}>Show backtest origins</button> : origins.isPending ? <Loading what="origins" /> : (
              <label>Backtest origin
                <select value={origin} onChange={(e) => setOrigin(e.target.value)}>
                  <option value="">none</option>
                  {(origins.data?.origins ?? []).map((o) => <option key={o.origin_date} value={o.origin_date}>{o.origin_date} ({o.methods.join(', ')})</option>)}
                </select>
              </label>
            )}
          </div>
          <section aria-labelledby="orders-title">
            <h2 id="orders-title">Orders</h2>
            {orders.isPending ? <Loading what="orders" /> : orders.isError ? <Failed error={orders.error} /> : orders.data.length === 0 ? <Empty>No orders in the plan.</Empty> : (
              <table data-testid="order-table">
                <thead><tr><th scope="col">Order</th><th scope="col">Type</th><th scope="col">Status</th><th scope="col">Quantity</th><th scope="col">Release</th><th scope="col">Arrival</th><th scope="col"><span className="sr-only">Pegging</span></th></tr></thead>
                <tbody>
                  {orders.data.slice(0, 30).map((o) => (
                    <tr key={o.supply_id}>
                      <td>{o.supply_id}</td><td>{o.order_type}{o.is_firm ? ' (firm)' : ''}</td><td>{o.status}</td><td className="num">{formatQty(o.qty)}</td>
                      <td>{formatDay(o.release_date)}</td><td>{formatDay(o.arrival_date)}</td>
                      <td>{!o.is_firm && <button type="button" onClick={() => setPegged(pegged === o.order_id ? null : o.order_id)} aria-expanded={pegged === o.order_id} aria-label={`Pegging: order ${o.supply_id}`}>Pegging</button>}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
            {pegged !== null && (pegging.isPending ? <Loading what="pegging" /> : pegging.isError ? <Failed error={pegging.error} /> : (
              <table aria-label={`Pegging of order ${pegged}`}>
                <thead><tr><th scope="col">Demand</th><th scope="col">Kind</th><th scope="col">Week</th><th scope="col">Quantity</th></tr></thead>
                <tbody>{pegging.data.lines.map((l, i) => <tr key={i}><td>{l.demand_line}</td><td>{l.kind}</td><td>{formatDay(l.week_start)}</td><td className="num">{formatQty(l.qty)}</td></tr>)}</tbody>
              </table>
            ))}
          </section>
        </div>

        <aside className="side" aria-label="Details">
          <section aria-labelledby="ranking-title" className="panel">
            <h2 id="ranking-title">Method ranking</h2>
            {best.isPending ? <Loading what="ranking" /> : !best.data ? <Empty>No method chosen yet.</Empty> : (
              <>
                <p>Chosen: <b>{best.data.locked ? `${best.data.locked_method} (locked)` : best.data.best_method}</b>{best.data.metric ? ` by ${best.data.metric}` : ''}</p>
                <ol data-testid="ranking">{best.data.ranking.map((r) => <li key={r.method}>{r.method} <span className="muted">{formatScore(r.score ?? null)}</span></li>)}</ol>
              </>
            )}
          </section>
          <section aria-labelledby="class-title" className="panel">
            <h2 id="class-title">Demand class</h2>
            {characteristics ? (
              <dl>
                <dt>Class</dt><dd data-testid="demand-class">{String(characteristics.demand_class ?? '–')}</dd>
                <dt>ADI</dt><dd>{formatQty(characteristics.adi as number)}</dd>
                <dt>CV²</dt><dd>{formatQty(characteristics.cv2 as number)}</dd>
              </dl>
            ) : <Empty>Not characterized yet.</Empty>}
            {explanation.data && <p className="muted">{explanation.data.explanation}</p>}
          </section>
          <section aria-labelledby="targets-title" className="panel">
            <h2 id="targets-title">Stock targets</h2>
            {target ? (
              <dl data-testid="targets">
                <dt>Reorder point</dt><dd>{formatQty(target.reorder_point)}</dd>
                <dt>Safety stock</dt><dd>{formatQty(target.safety_stock)}</dd>
                <dt>Order-up-to</dt><dd>{formatQty(target.order_up_to)}</dd>
                <dt>Expected fill rate</dt><dd>{formatShare(target.expected_fill_rate)} (target {formatShare(target.target_service)})</dd>
                <dt>Investment</dt><dd>{formatMoney(target.investment)}</dd>
              </dl>
            ) : <Empty>No MEIO result for this SKU-site.</Empty>}
          </section>
          <section aria-labelledby="chain-title" className="panel">
            <h2 id="chain-title">Supersession</h2>
            {!chain.data?.in_chain ? <Empty>Not in a supersession chain.</Empty> : (
              <ol>
                {[...chain.data.upstream].reverse().map((u) => <li key={u.item_id}>{u.item_xuid} <span className="muted">{u.item_name}</span></li>)}
                <li><b>{chain.data.item_xuid}</b> (this item)</li>
                {chain.data.downstream.map((d) => <li key={d.item_id}>{d.item_xuid} <span className="muted">{d.item_name}</span></li>)}
              </ol>
            )}
          </section>
          <section aria-labelledby="components-title" className="panel">
            <h2 id="components-title">Causal and maintenance</h2>
            <dl>
              <dt>Causal demand</dt><dd>{causal.data ? `${formatQty(causalTotal)} over ${causal.data.items.length} weeks` : causalId === undefined || causal.isFetched ? 'none' : '…'}</dd>
              <dt>Maintenance demand</dt><dd>{maintenanceRow ? `${formatQty(maintenanceRow.total)} over ${maintenance.data!.horizon_weeks} weeks` : 'none'}</dd>
            </dl>
          </section>
          {mayDo(user, 'adjustDemand') && <Adjust uid={uid} onDone={() => { void client.invalidateQueries({ queryKey: ['vega', uid] }); void client.invalidateQueries({ queryKey: ['sku-key', uid] }); }} adjustments={key.data?.adjustments ?? []} />}
        </aside>
      </div>
    </section>
  );
}

function Adjust({ uid, onDone, adjustments }: { uid: string; onDone: () => void; adjustments: ReadonlyArray<{ id: number; ds: string; corrected_y: number; reason: string | null }> }) {
  const [ds, setDs] = useState('');
  const [qty, setQty] = useState('');
  const [reason, setReason] = useState('');
  const save = useMutation({
    mutationFn: async () => must(await api.POST('/api/adjustments/{unique_id}', { params: { path: { unique_id: uid } }, body: { ds, corrected_y: Number(qty), reason } })),
    onSuccess: () => {
      setQty('');
      setReason('');
      onDone();
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  return (
    <section aria-labelledby="adjust-title" className="panel">
      <h2 id="adjust-title">Correct a week's demand</h2>
      <form onSubmit={submit}>
        <label>Week (Monday)<input type="date" required value={ds} onChange={(e) => setDs(e.target.value)} /></label>
        <label>Corrected demand<input type="number" required min={0} step="any" value={qty} onChange={(e) => setQty(e.target.value)} /></label>
        <label>Reason<input type="text" required maxLength={500} value={reason} onChange={(e) => setReason(e.target.value)} /></label>
        <button type="submit" disabled={save.isPending}>Save correction</button>
        {save.isError && <p className="error" role="alert">{save.error instanceof ApiError ? save.error.message : 'Not saved'}</p>}
      </form>
      {adjustments.length > 0 && <ul>{adjustments.map((a) => <li key={a.id}>{formatDay(a.ds)}: {formatQty(a.corrected_y)} <span className="muted">{a.reason}</span></li>)}</ul>}
    </section>
  );
}
