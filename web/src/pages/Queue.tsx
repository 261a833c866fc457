import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Fragment, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { api, must } from '../api/client';
import { ExceptionComments } from '../components/ExceptionComments';
import { Empty, Failed, Loading } from '../components/Status';
import { bySeverity, daysFrom, formatQty, worstSeverity } from '../lib/format';
import { visibleSegments } from '../lib/permissions';
import { alertsQuery, EXCEPTION_TYPES, exceptionLogQuery, filtersFromSearch, pageCount, pageRange, PAGE_SIZES, searchFromFilters, withFilter, type QueueFilters } from '../lib/queueQuery';
import { usePipeline, usePipelines } from '../session/pipeline';
import { useSession } from '../session/useSession';

const SNOOZE_DAYS = 7;

export function Queue() {
  const [search, setSearch] = useSearchParams();
  const filters = filtersFromSearch(search);
  const pipeline = usePipeline();
  const pipelines = usePipelines();
  const pipelineId = filters.pipeline ?? pipeline?.id ?? null;
  const user = useSession()!.user;
  const client = useQueryClient();
  const set = (f: QueueFilters) => setSearch(searchFromFilters(f));
  const [expanded, setExpanded] = useState<number | null>(null);

  const segments = useQuery({ queryKey: ['segments'], queryFn: async () => must(await api.GET('/api/segments')) });
  const log = useQuery({
    queryKey: ['exception-log', pipelineId, filters],
    enabled: pipelineId !== null,
    queryFn: async () => must(await api.GET('/api/exception-log', { params: { query: exceptionLogQuery(filters, pipelineId!) } })),
  });
  const alerts = useQuery({
    queryKey: ['alerts', pipelineId, filters.segment, filters.status],
    enabled: pipelineId !== null,
    queryFn: async () => must(await api.GET('/api/alerts', { params: { query: alertsQuery(filters, pipelineId!) } })),
  });

  const setStatus = useMutation({
    mutationFn: async (v: { id: number; status: 'resolved' | 'snoozed' | 'open' }) =>
      must(await api.PATCH('/api/exception-log/{exception_id}/status', {
        params: { path: { exception_id: v.id } },
        body: v.status === 'snoozed' ? { status: 'snoozed', snoozed_until: daysFrom(new Date(), SNOOZE_DAYS) } : { status: v.status },
      })),
    onSuccess: () => client.invalidateQueries({ queryKey: ['exception-log'] }),
  });
  const decide = useMutation({
    mutationFn: async (v: { id: number; decision: 'approve' | 'reject' }) =>
      must(v.decision === 'approve'
        ? await api.POST('/api/alerts/{alert_id}/approve', { params: { path: { alert_id: v.id } } })
        : await api.POST('/api/alerts/{alert_id}/reject', { params: { path: { alert_id: v.id } } })),
    onSuccess: () => client.invalidateQueries({ queryKey: ['alerts'] }),
  });

  if (pipelines.isPending) return <Loading what="pipelines" />;
  if (!pipelineId) return <Empty>No pipeline yet: create one (POST /api/scenario-pipeline) to have a work queue.</Empty>;
  const rows = bySeverity(log.data?.items ?? [], (r) => worstSeverity(r.issues));
  const sku = (uid: string) => `/sku/${encodeURIComponent(uid)}`;

  return (
    <section aria-labelledby="queue-title">
      <h1 id="queue-title">Work queue</h1>
      <form className="filters" aria-label="Filters" onSubmit={(e) => e.preventDefault()}>
        <label>Segment
          <select value={filters.segment ?? ''} onChange={(e) => set(withFilter(filters, { segment: Number(e.target.value) || null }))}>
            <option value="">All I may see</option>
            {visibleSegments(user, segments.data ?? []).map((s) => <option key={s.id} value={s.id}>{s.name}</option>)}
          </select>
        </label>
        <fieldset>
          <legend>Type</legend>
          {EXCEPTION_TYPES.map((t) => (
            <label key={t} className="check">
              <input type="checkbox" checked={filters.types.includes(t)}
                onChange={(e) => set(withFilter(filters, { types: e.target.checked ? [...filters.types, t] : filters.types.filter((x) => x !== t) }))} />
              {t}
            </label>
          ))}
        </fieldset>
        <label>Status
          <select value={filters.status} onChange={(e) => set(withFilter(filters, { status: e.target.value as QueueFilters['status'] }))}>
            <option value="open">open</option>
            <option value="snoozed">snoozed</option>
            <option value="resolved">closed</option>
          </select>
        </label>
        <label>Rows
          <select value={filters.pageSize} onChange={(e) => set(withFilter(filters, { pageSize: Number(e.target.value) }))}>
            {PAGE_SIZES.map((n) => <option key={n} value={n}>{n}</option>)}
          </select>
        </label>
      </form>

      <div className="queue">
        <section aria-labelledby="exceptions-title" className="panel wide">
          <h2 id="exceptions-title">Exceptions {log.data && <span className="muted">({pageRange(log.data.page, log.data.page_size, log.data.total)})</span>}</h2>
          {log.isPending ? <Loading what="the exception log" /> : log.isError ? <Failed error={log.error} /> : rows.length === 0 ? <Empty>Nothing in the queue for these filters.</Empty> : (
            <table data-testid="exception-table">
              <thead><tr><th scope="col">Severity</th><th scope="col">Item</th><th scope="col">Site</th><th scope="col">Issues</th><th scope="col">Status</th><th scope="col"><span className="sr-only">Actions</span></th></tr></thead>
              <tbody>
                {rows.map((r) => {
                  const sev = worstSeverity(r.issues);
                  const label = `${r.item_code} at ${r.site_name}`;
                  const open = expanded === r.id;
                  return (
                    <Fragment key={r.id}>
                      <tr data-exception-id={r.id} data-unique-id={r.unique_id}>
                        <td><span className={`sev sev-${sev}`}>{sev}</span></td>
                        <td><Link to={sku(r.unique_id)} state={{ item_id: r.item_id, site_id: r.site_id }}>{r.item_code}</Link> <span className="muted">{r.item_name}</span></td>
                        <td>{r.site_name}</td>
                        <td><ul className="issues">{r.issues.map((i, n) => <li key={n}><b>{i.type}</b> {i.description}</li>)}</ul></td>
                        <td>{r.status}{r.snoozed_until ? ` until ${r.snoozed_until}` : ''}</td>
                        <td className="actions">
                          {r.status !== 'resolved' && <button type="button" onClick={() => setStatus.mutate({ id: r.id, status: 'resolved' })} aria-label={`Close: ${r.item_code} at ${r.site_name}`}>Close</button>}
                          {r.status === 'open' && <button type="button" onClick={() => setStatus.mutate({ id: r.id, status: 'snoozed' })} aria-label={`Snooze ${SNOOZE_DAYS} days: ${r.item_code} at ${r.site_name}`}>Snooze {SNOOZE_DAYS} days</button>}
                          {r.status !== 'open' && <button type="button" onClick={() => setStatus.mutate({ id: r.id, status: 'open' })} aria-label={`Reopen: ${r.item_code} at ${r.site_name}`}>Reopen</button>}
                          <button type="button" onClick={() => setExpanded(open ? null : r.id)} aria-expanded={open} aria-label={`Comments: ${label}`}>Comments</button>
                        </td>
                      </tr>
                      {open && (
                        <tr className="detail" id={`detail-${r.id}`} data-detail-of={r.id}>
                          <td colSpan={6}><ExceptionComments exceptionId={r.id} label={label} /></td>
                        </tr>
                      )}
                    </Fragment>
                  );
                })}
              </tbody>
            </table>
          )}
          {setStatus.isError && <Failed error={setStatus.error} />}
          {log.data && (
            <nav className="pager" aria-label="Exception pages">
              <button type="button" disabled={filters.page <= 1} onClick={() => set({ ...filters, page: filters.page - 1 })}>Previous</button>
              <span>Page {filters.page} of {pageCount(log.data.total, log.data.page_size)}</span>
              <button type="button" disabled={filters.page >= pageCount(log.data.total, log.data.page_size)} onClick={() => set({ ...filters, page: filters.page + 1 })}>Next</button>
            </nav>
          )}
        </section>

        <section aria-labelledby="alerts-title" className="panel">
          <h2 id="alerts-title">Alerts {alerts.data && <span className="muted">({alerts.data.total})</span>}</h2>
          {alerts.isPending ? <Loading what="alerts" /> : alerts.isError ? <Failed error={alerts.error} /> : alerts.data.items.length === 0 ? <Empty>No alerts.</Empty> : (
            <ul className="alerts" data-testid="alert-list">
              {bySeverity(alerts.data.items, (a) => a.severity).map((a) => (
                <li key={a.id}>
                  <span className={`sev sev-${a.severity}`}>{a.severity}</span> <Link to={sku(a.unique_id)} state={{ item_id: a.item_id, site_id: a.site_id }}>{a.unique_id}</Link>
                  <p>{a.message} <span className="muted">({a.metric_name} {formatQty(a.value)} {a.comparison} {formatQty(a.threshold)})</span></p>
                  {a.status === 'open' && (
                    <span className="actions">
                      <button type="button" onClick={() => decide.mutate({ id: a.id, decision: 'approve' })} aria-label={`Handled: alert ${a.id}`}>Handled</button>
                      <button type="button" onClick={() => decide.mutate({ id: a.id, decision: 'reject' })} aria-label={`Needs action: alert ${a.id}`}>Needs action</button>
                    </span>
                  )}
                </li>
              ))}
            </ul>
          )}
        </section>
      </div>
    </section>
  );
}
