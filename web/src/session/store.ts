/**
 * The signed-in session: the token and the user it belongs to, kept in this tab's sessionStorage (gone when the tab
 * closes, never in a URL, a cookie or a log) and mirrored in memory for the client.
 */
export interface SessionUser {
  id: string;
  email: string;
  name: string;
  role: 'admin' | 'user' | 'superadmin';
  account_id: string;
  account_name: string;
  is_superadmin?: boolean;
  can_run_process?: boolean;
  can_create_override?: boolean;
  allowed_segments?: number[];
  allowed_segments_edit?: number[];
}

export interface Session {
  token: string;
  user: SessionUser;
}

const KEY = 'workbench.session';
let session: Session | null = read();
const listeners = new Set<() => void>();

function read(): Session | null {
  try {
    const raw = sessionStorage.getItem(KEY);
    return raw ? (JSON.parse(raw) as Session) : null;
  } catch {
    return null;
  }
}

export const currentSession = (): Session | null => session;
export const currentToken = (): string | null => session?.token ?? null;

export function setSession(next: Session | null): void {
  session = next;
  if (next) sessionStorage.setItem(KEY, JSON.stringify(next));
  else sessionStorage.removeItem(KEY);
  for (const l of listeners) l();
}

/** The API said the token is no longer good (expired, revoked, user deactivated): back to sign-in. */
export const expireSession = (): void => setSession(null);

export function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
