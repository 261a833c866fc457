import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, must } from '../api/client';
import { formatTime } from '../lib/format';
import { Empty, Failed, Loading } from './Status';

/** The API's limit on a comment (api/routes/exceptions/index.ts): the form says so before the API has to. */
const COMMENT_MAX = 2000;

/**
 * A work-queue row's detail: the comments planners left on it, oldest first, and a comment to add, alone or with
 * closing the row (the status change and its reason in one request, so neither lands without the other).
 */
export function ExceptionComments({ exceptionId, label }: { exceptionId: number; label: string }) {
  const client = useQueryClient();
  const [text, setText] = useState('');
  const comments = useQuery({
    queryKey: ['exception-comments', exceptionId],
    queryFn: async () => must(await api.GET('/api/exception-log/{exception_id}/comments', { params: { path: { exception_id: exceptionId } } })),
  });
  const save = useMutation({
    mutationFn: async (close: boolean) => {
      const path = { exception_id: exceptionId };
      const comment = text.trim();
      if (close) return must(await api.PATCH('/api/exception-log/{exception_id}/status', { params: { path }, body: { status: 'resolved', comment } }));
      return must(await api.POST('/api/exception-log/{exception_id}/comments', { params: { path }, body: { comment } }));
    },
    onSuccess: (_, close) => {
      setText('');
      void client.invalidateQueries({ queryKey: ['exception-comments', exceptionId] });
      if (close) void client.invalidateQueries({ queryKey: ['exception-log'] });
    },
  });
  const submit = (close: boolean) => (e?: FormEvent) => {
    e?.preventDefault();
    if (text.trim()) save.mutate(close);
  };
  const fieldId = `comment-${exceptionId}`;

  return (
    <div className="comments" data-testid="exception-comments">
      {comments.isPending ? <Loading what="comments" /> : comments.isError ? <Failed error={comments.error} /> : comments.data.length === 0 ? <Empty>No comments yet.</Empty> : (
        <ol aria-label={`Comments on ${label}`}>
          {comments.data.map((c) => (
            <li key={c.id} data-comment-id={c.id}>
              <span className="muted">{formatTime(c.created_at)} · {c.author}{c.status ? ` · set ${c.status === 'resolved' ? 'closed' : c.status}` : ''}</span>
              <p>{c.comment}</p>
            </li>
          ))}
        </ol>
      )}
      <form onSubmit={submit(false)} aria-label={`Comment on ${label}`}>
        <label htmlFor={fieldId}>Comment</label>
        <textarea id={fieldId} rows={2} maxLength={COMMENT_MAX} required value={text} onChange={(e) => setText(e.target.value)} />
        <span className="actions">
          <button type="submit" disabled={save.isPending || !text.trim()}>Add comment</button>
          <button type="button" disabled={save.isPending || !text.trim()} onClick={() => submit(true)()}>Close with comment</button>
        </span>
        {save.isError && <Failed error={save.error} />}
      </form>
    </div>
  );
}
