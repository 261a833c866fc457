import { useMutation } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { api, must } from '../api/client';
import { VegaChart } from '../components/VegaChart';
import { Failed } from '../components/Status';
import { assistantChartSpec } from '../lib/charts';
import { usePipeline } from '../session/pipeline';

export function Assistant() {
  const pipeline = usePipeline();
  const [question, setQuestion] = useState('');
  const [sessionId, setSessionId] = useState<string | undefined>(undefined);
  const ask = useMutation({
    mutationFn: async (q: string) => must(await api.POST('/api/assistant/chat', { body: { question: q, ...(pipeline ? { pipeline_id: pipeline.id } : {}), ...(sessionId ? { session_id: sessionId } : {}) } })),
    onSuccess: (r) => setSessionId(r.session_id),
  });
  const answer = ask.data;
  const spec = useMemo(() => (answer ? assistantChartSpec(answer.chart, answer.data as Array<Record<string, unknown>>) : null), [answer]);

  return (
    <section aria-labelledby="assistant-title">
      <h1 id="assistant-title">Assistant</h1>
      <form className="ask" aria-label="Ask the assistant" onSubmit={(e) => { e.preventDefault(); if (question.trim()) ask.mutate(question.trim()); }}>
        <label htmlFor="question">Question about the plan</label>
        <textarea id="question" rows={2} maxLength={2000} value={question} onChange={(e) => setQuestion(e.target.value)} placeholder="e.g. which sites have the most shortages?" />
        <button type="submit" disabled={ask.isPending}>{ask.isPending ? 'Asking…' : 'Ask'}</button>
      </form>
      {ask.isError && <Failed error={ask.error} />}
      {answer && (
        <div className="answer" data-testid="answer">
          <p>{answer.answer}</p>
          {answer.error && <p className="error">{answer.error}</p>}
          {answer.sql && (
            <details open>
              <summary>The SQL it ran</summary>
              <pre data-testid="answer-sql"><code>{answer.sql}</code></pre>
            </details>
          )}
          {spec && <VegaChart spec={spec} label={answer.chart.title || 'Answer chart'} testId="answer-chart" />}
          {answer.columns.length > 0 && (
            <table data-testid="answer-table">
              <caption className="muted">{answer.row_count} row(s){answer.cached ? ', from the cache' : ''}</caption>
              <thead><tr>{answer.columns.map((c) => <th scope="col" key={c}>{c}</th>)}</tr></thead>
              <tbody>{answer.data.slice(0, 200).map((row, i) => <tr key={i}>{answer.columns.map((c) => <td key={c}>{String((row as Record<string, unknown>)[c] ?? '')}</td>)}</tr>)}</tbody>
            </table>
          )}
        </div>
      )}
    </section>
  );
}
