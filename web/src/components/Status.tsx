import type { ReactNode } from 'react';

/** What a query shows while it loads or after it failed: the API's own detail, never a stack. */
export function Loading({ what }: { what: string }) {
  return <p className="muted" role="status">Loading {what}…</p>;
}

export function Failed({ error }: { error: unknown }) {
  return <p className="error" role="alert">{error instanceof Error ? error.message : 'Something went wrong'}</p>;
}

export function Empty({ children }: { children: ReactNode }) {
  return <p className="muted">{children}</p>;
}
