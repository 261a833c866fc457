-- Planners' comments on an exception-log row (the work queue's comment action, issue 26): a history per row, each
-- with who wrote it and when, and the status it was set to when the comment came with a status change (null for a
-- comment alone). The row's id survives refreshes of the log (an upsert on pipeline and SKU-site), so the comments
-- stay with the SKU-site's row; they go when the row goes.
CREATE TABLE IF NOT EXISTS exception_comment (
  id            bigserial PRIMARY KEY,
  exception_id  bigint NOT NULL REFERENCES exception_log(id) ON DELETE CASCADE,
  author        text NOT NULL,
  comment       text NOT NULL CHECK (length(comment) BETWEEN 1 AND 2000),
  status        text CHECK (status IN ('open', 'resolved', 'snoozed')),
  created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS exception_comment_row_idx ON exception_comment (exception_id, id);
