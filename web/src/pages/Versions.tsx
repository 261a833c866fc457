import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { api, must } from '../api/client';
import { QueryTable } from '../components/QueryTable';
import { VegaChart } from '../components/VegaChart';
import { Empty, Failed, Loading } from '../components/Status';
import { compareKpiSpec } from '../lib/charts';
import { formatDelta, formatMoney, formatQty, formatShare, formatTime } from '../lib/format';
import { mayDo } from '../lib/permissions';
import { usePipeline, usePipelines } from '../session/pipeline';
import { useSession } from '../session/useSession';

const LIVE = 'live';

export function Versions() {
  const user = useSession()!.user;
  const pipeline = usePipeline();
  const pipelines = usePipelines();
  const pid = pipeline?.id;
  const client = useQueryClient();
  const [comment, setComment] = useState('');
  const [base, setBase] = useState('');
  const [target, setTarget] = useState(LIVE);

  const versions = useQuery({ queryKey: ['versions', pid], enabled: pid !== undefined, queryFn: async () => must(await api.GET('/api/history/versions', { params: { query: { pipeline_id: pid!, limit: 100 } } })) });
  const schedule = useQuery({ queryKey: ['schedule', pid], enabled: pid !== undefined, queryFn: async () => must(await api.GET('/api/history/schedule', { params: { query: { pipeline_id: pid! } } })) });
  const freeze = useMutation({
    mutationFn: async () => must(await api.POST('/api/history/freeze', { body: { pipeline_id: pid!, ...(comment ? { comment } : {}) } })),
    onSuccess: () => {
      setComment('');
      void client.invalidateQueries({ queryKey: ['versions', pid] });
    },
  });
  const baseDate = base || versions.data?.[1]?.archive_date || versions.data?.[0]?.archive_date || '';
  const compare = useQuery({
    queryKey: ['compare', pid, baseDate, target],
    enabled: pid !== undefined && !!baseDate,
    queryFn: async () => must(await api.GET('/api/compare/versions', { params: { query: { pipeline_id: pid!, base: baseDate, ...(target !== LIVE ? { target } : {}), dimension: 'kpi' } } })),
  });
  const kpiRows = compare.data && compare.data.dimension === 'kpi' ? compare.data.rows : [];
  const label = (d: string) => (d === LIVE ? 'live plan' : d);
  const spec = useMemo(() => (kpiRows.length ? compareKpiSpec(kpiRows.map((r) => ({ metric: r.metric, base: num(r.base), target: num(r.target), delta: num(r.delta) })), label(baseDate), label(target)) : null), [kpiRows, baseDate, target]);

  if (pipelines.isPending) return <Loading what="pipelines" />;
  if (!pipeline) return <Empty>No pipeline yet.</Empty>;
  return (
    <section aria-labelledby="versions-title">
      <h1 id="versions-title">Plan versions of {pipeline.name}</h1>
      <div className="queue">
        <section className="panel wide" aria-labelledby="list-title">
          <h2 id="list-title">Versions</h2>
          {mayDo(user, 'freeze') && (
            <form className="filters" aria-label="Freeze now" onSubmit={(e) => { e.preventDefault(); freeze.mutate(); }}>
              <label>Comment<input type="text" maxLength={500} value={comment} onChange={(e) => setComment(e.target.value)} /></label>
              <button type="submit" disabled={freeze.isPending}>{freeze.isPending ? 'Freezing…' : 'Freeze now'}</button>
              {freeze.isError && <Failed error={freeze.error} />}
              {freeze.data && <span role="status">{'archive_date' in freeze.data
                ? `Frozen as ${freeze.data.archive_date}${freeze.data.replaced_archive_date ? ' (replaced this week\'s version)' : ''}`
                : `Still freezing: job ${freeze.data.job_id} (see Runs)`}</span>}
            </form>
          )}
          <QueryTable query={versions} what="versions" empty="No versions frozen yet." testId="version-table"
            columns={['Week', 'Frozen at', 'By', 'Fill rate', 'Inventory value', 'Shortage', 'Comment']} row={(v) => (
              <tr key={v.id}>
                <td>{v.archive_date}{v.pinned ? ' 📌' : ''}</td><td>{formatTime(v.snapshot_ts)}</td><td>{v.source === 'schedule' ? 'schedule' : v.created_by ?? '–'}</td>
                <td className="num">{formatShare(v.kpis.fill_rate)}</td><td className="num">{formatMoney(v.kpis.inventory_value)}</td><td className="num">{formatQty(v.kpis.shortage_qty)}</td><td>{v.comment ?? ''}</td>
              </tr>
            )} />
        </section>
        <section className="panel" aria-labelledby="schedule-title">
          <h2 id="schedule-title">Weekly freeze</h2>
          {schedule.isPending ? <Loading what="the schedule" /> : schedule.isError ? <Failed error={schedule.error} /> : !schedule.data.exists ? <Empty>No weekly schedule for this pipeline.</Empty> : (
            <p data-testid="next-run">{schedule.data.paused ? 'Paused. ' : ''}Next run: <b>{formatTime(schedule.data.next_runs[0] ?? null)}</b>{schedule.data.timezone ? ` (${schedule.data.timezone})` : ''}</p>
          )}
        </section>
      </div>

      <section className="panel" aria-labelledby="compare-title">
        <h2 id="compare-title">Compare</h2>
        <form className="filters" aria-label="Versions to compare" onSubmit={(e) => e.preventDefault()}>
          <label>Base
            <select aria-label="Base version" value={baseDate} onChange={(e) => setBase(e.target.value)}>
              {(versions.data ?? []).map((v) => <option key={v.id} value={v.archive_date}>{v.archive_date}</option>)}
            </select>
          </label>
          <label>Against
            <select aria-label="Compared version" value={target} onChange={(e) => setTarget(e.target.value)}>
              <option value={LIVE}>live plan</option>
              {(versions.data ?? []).map((v) => <option key={v.id} value={v.archive_date}>{v.archive_date}</option>)}
            </select>
          </label>
        </form>
        {!baseDate ? <Empty>Freeze a version to compare.</Empty> : compare.isPending ? <Loading what="the comparison" /> : compare.isError ? <Failed error={compare.error} /> : (
          <div className="compare">
            <table data-testid="compare-table">
              <thead><tr><th scope="col">KPI</th><th scope="col">{label(baseDate)}</th><th scope="col">{label(target)}</th><th scope="col">Change</th></tr></thead>
              <tbody>
                {kpiRows.map((r) => (
                  <tr key={r.metric}><td>{r.metric}</td><td className="num">{formatQty(num(r.base))}</td><td className="num">{formatQty(num(r.target))}</td><td className={`num ${r.improved === true ? 'better' : r.improved === false ? 'worse' : ''}`}>{formatDelta(num(r.delta))}</td></tr>
                ))}
              </tbody>
            </table>
            {spec && <VegaChart spec={spec} label={`KPIs of ${label(baseDate)} against ${label(target)}`} testId="compare-chart" />}
          </div>
        )}
      </section>
    </section>
  );
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
