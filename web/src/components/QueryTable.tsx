import type { ReactNode } from 'react';
import { Empty, Failed, Loading } from './Status';

/** What a list read through TanStack Query offers a table: its state and, once read, its rows. */
export interface ListQuery<T> {
  isPending: boolean;
  isError: boolean;
  error: unknown;
  data: readonly T[] | undefined;
}

/**
 * A list the API answered, as a table: while it loads, when it failed and when it is empty, every page says so the
 * same way. A column whose heading only a screen reader needs (a row's actions) is given as `{ hidden }`.
 */
export function QueryTable<T>({ query, what, empty, testId, columns, row }: {
  query: ListQuery<T>;
  what: string;
  empty: string;
  testId: string;
  columns: ReadonlyArray<string | { hidden: string }>;
  row: (item: T) => ReactNode;
}) {
  if (query.isPending) return <Loading what={what} />;
  if (query.isError || !query.data) return <Failed error={query.error} />;
  if (query.data.length === 0) return <Empty>{empty}</Empty>;
  return (
    <table data-testid={testId}>
      <thead>
        <tr>{columns.map((c) => <th scope="col" key={typeof c === 'string' ? c : c.hidden}>{typeof c === 'string' ? c : <span className="sr-only">{c.hidden}</span>}</th>)}</tr>
      </thead>
      <tbody>{query.data.map(row)}</tbody>
    </table>
  );
}
