import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { api, must } from '../api/client';
import { QueryTable } from '../components/QueryTable';
import { Empty, Failed } from '../components/Status';
import { formatDuration, formatTime } from '../lib/format';
import { temporalRunUrl } from '../lib/links';
import { mayDo } from '../lib/permissions';
import { SseParser } from '../lib/sse';
import { usePipeline } from '../session/pipeline';
import { currentToken } from '../session/store';
import { useSession } from '../session/useSession';

interface LogLine { id: number; ts: string; level: string; message: string; job_id: string }

/** The job's log lines as they come (SSE read through fetch so the token stays in a header), and its end. */
function useJobStream(jobId: string | null) {
  const [lines, setLines] = useState<LogLine[]>([]);
  const [end, setEnd] = useState<{ status: string; error: string | null } | null>(null);
  useEffect(() => {
    setLines([]);
    setEnd(null);
    if (!jobId) return;
    const abort = new AbortController();
    void (async () => {
      try {
        const res = await fetch(`/api/pipeline/jobs/${encodeURIComponent(jobId)}/stream`, { headers: { Authorization: `Bearer ${currentToken()}`, Accept: 'text/event-stream' }, signal: abort.signal });
        if (!res.ok || !res.body) return setEnd({ status: 'unavailable', error: `log stream answered ${res.status}` });
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        const parser = new SseParser();
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          for (const e of parser.push(value)) {
            if (e.event === 'log') setLines((prev) => [...prev.slice(-499), JSON.parse(e.data) as LogLine]);
            else if (e.event === 'end') setEnd(JSON.parse(e.data));
          }
        }
      } catch {
        // aborted when the page or the chosen job changes
      }
    })();
    return () => abort.abort();
  }, [jobId]);
  return { lines, end };
}

export function Runs() {
  const user = useSession()!.user;
  const pipeline = usePipeline();
  const client = useQueryClient();
  const [step, setStep] = useState('all');
  const [selected, setSelected] = useState<string | null>(null);
  const mayRun = mayDo(user, 'startRun');

  const steps = useQuery({ queryKey: ['steps'], queryFn: async () => must(await api.GET('/api/pipeline/steps')) });
  const jobs = useQuery({
    queryKey: ['jobs'],
    queryFn: async () => must(await api.GET('/api/pipeline/jobs', { params: { query: { limit: 20 } } })),
    refetchInterval: (q) => (q.state.data?.some((j) => j.status === 'running' || j.status === 'queued') ? 2000 : false),
  });
  const job = useQuery({
    queryKey: ['job', selected],
    enabled: !!selected,
    queryFn: async () => must(await api.GET('/api/pipeline/jobs/{job_id}', { params: { path: { job_id: selected! }, query: { log_limit: 1 } } })),
  });
  const stream = useJobStream(selected);
  const logEnd = useRef<HTMLOListElement>(null);
  useEffect(() => {
    if (stream.end) {
      void client.invalidateQueries({ queryKey: ['jobs'] });
      void client.invalidateQueries({ queryKey: ['job', selected] });
    }
  }, [stream.end, client, selected]);
  // a block body: Chromium's scrollIntoView now returns a promise, and an effect may return only its clean-up
  useEffect(() => {
    void logEnd.current?.lastElementChild?.scrollIntoView({ block: 'nearest' });
  }, [stream.lines.length]);

  const start = useMutation({
    mutationFn: async () => {
      const body = { pipeline_id: pipeline!.id };
      return must(step === 'all'
        ? await api.POST('/api/pipeline/run-all', { body })
        : await api.POST('/api/pipeline/run/{step}', { params: { path: { step: step as 'etl' } }, body }));
    },
    onSuccess: (r) => {
      setSelected(r.job_id);
      void client.invalidateQueries({ queryKey: ['jobs'] });
    },
  });
  const kill = useMutation({
    mutationFn: async (id: string) => must(await api.POST('/api/pipeline/jobs/{job_id}/kill', { params: { path: { job_id: id } } })),
    onSuccess: () => void client.invalidateQueries({ queryKey: ['jobs'] }),
  });
  const reset = useMutation({
    mutationFn: async () => must(await api.POST('/api/pipeline/jobs/reset')),
    onSuccess: () => void client.invalidateQueries({ queryKey: ['jobs'] }),
  });

  const status = stream.end?.status ?? job.data?.status;
  return (
    <section aria-labelledby="runs-title">
      <h1 id="runs-title">Runs</h1>
      {mayRun ? (
        <form className="filters" aria-label="Start a run" onSubmit={(e) => { e.preventDefault(); start.mutate(); }}>
          <label>What to run
            <select value={step} onChange={(e) => setStep(e.target.value)}>
              <option value="all">run-all (every step in order)</option>
              {(steps.data ?? []).filter((s) => s.available).map((s) => <option key={s.id} value={s.id}>{s.label}</option>)}
            </select>
          </label>
          <button type="submit" disabled={!pipeline || start.isPending}>Start on {pipeline?.name ?? '…'}</button>
          <button type="button" onClick={() => reset.mutate()}>Reset stale jobs</button>
          {start.isError && <Failed error={start.error} />}
          {reset.data && <span role="status">{reset.data.reset.length} job(s) reset</span>}
        </form>
      ) : <p className="muted">Starting runs needs the run permission (can_run_process) or an admin role.</p>}

      <div className="queue">
        <section className="panel wide" aria-labelledby="jobs-title">
          <h2 id="jobs-title">Jobs</h2>
          <QueryTable query={jobs} what="jobs" empty="No jobs yet." testId="job-table" columns={['Job', 'Step', 'Status', 'Started', 'Took', { hidden: 'Actions' }]} row={(j) => (
            <tr key={j.job_id} data-job-id={j.job_id} aria-selected={selected === j.job_id}>
              <td><button type="button" className="link" onClick={() => setSelected(j.job_id)}>{j.job_id.slice(0, 8)}</button></td>
              <td>{j.step ?? j.kind}</td>
              <td className={`job-${j.status}`}>{j.status}</td>
              <td>{formatTime(j.started_at)}</td>
              <td>{formatDuration(j.started_at, j.finished_at)}</td>
              <td className="actions">
                <a href={temporalRunUrl(j.job_id, window.location)} target="_blank" rel="noreferrer">Temporal</a>
                {mayRun && (j.status === 'running' || j.status === 'queued') && <button type="button" onClick={() => kill.mutate(j.job_id)} aria-label={`Kill: job ${j.job_id.slice(0, 8)}`}>Kill</button>}
              </td>
            </tr>
          )} />
        </section>
        <section className="panel" aria-labelledby="log-title">
          <h2 id="log-title">Live log</h2>
          {!selected ? <Empty>Choose or start a job to follow its log.</Empty> : (
            <>
              <p>Job <code>{selected.slice(0, 8)}</code>: <b data-testid="job-status">{status ?? '…'}</b>
                {job.data?.children.length ? <span className="muted"> · {job.data.children.filter((c) => c.status === 'completed').length} of {job.data.children.length} steps done</span> : null}
              </p>
              {stream.end?.error && <p className="error">{stream.end.error}</p>}
              <ol className="log" ref={logEnd} aria-live="polite" data-testid="job-log">
                {stream.lines.map((l) => <li key={l.id} className={`log-${l.level}`}><time>{l.ts.slice(11, 19)}</time> {l.message}</li>)}
              </ol>
            </>
          )}
        </section>
      </div>
    </section>
  );
}
