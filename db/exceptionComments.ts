/** Planners' comments on exception-log rows (migration 037): a history per row, oldest first. */
import type { ExceptionStatus } from './exceptionLog';
import { sql, type Tx } from './pool';

export interface ExceptionComment {
  id: number;
  exception_id: number;
  author: string;
  comment: string;
  /** the status the row was set to with this comment; null for a comment alone */
  status: ExceptionStatus | null;
  created_at: string;
}

const COLUMNS = sql.fragment`id, exception_id, author, comment, status, created_at`;

export async function addExceptionComment(tx: Tx, exceptionId: number, author: string, comment: string, status: ExceptionStatus | null): Promise<ExceptionComment> {
  return (await tx.one(sql.unsafe`
    INSERT INTO exception_comment (exception_id, author, comment, status) VALUES (${exceptionId}, ${author}, ${comment}, ${status})
    RETURNING ${COLUMNS}`)) as ExceptionComment;
}

export async function listExceptionComments(tx: Tx, exceptionId: number): Promise<ExceptionComment[]> {
  return [...((await tx.any(sql.unsafe`SELECT ${COLUMNS} FROM exception_comment WHERE exception_id = ${exceptionId} ORDER BY id`)) as unknown as ExceptionComment[])];
}
