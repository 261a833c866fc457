import { useQuery, useQueryClient } from '@tanstack/react-query';
import { NavLink, Outlet, useNavigate } from 'react-router';
import { api, must } from '../api/client';
import { segmentLimited } from '../lib/permissions';
import { choosePipeline, usePipeline, usePipelines } from '../session/pipeline';
import { setSession } from '../session/store';
import { useSession } from '../session/useSession';

const PAGES = [
  ['/queue', 'Work queue'],
  ['/runs', 'Runs'],
  ['/versions', 'Plan versions'],
  ['/inventory', 'Inventory'],
  ['/assistant', 'Assistant'],
] as const;

export function Layout() {
  const session = useSession()!;
  const pipelines = usePipelines();
  const pipeline = usePipeline();
  const navigate = useNavigate();
  const client = useQueryClient();
  const accounts = useQuery({
    queryKey: ['accounts', session.user.email],
    queryFn: async () => must(await api.GET('/api/auth/probe', { params: { query: { email: session.user.email } } })).accounts,
    staleTime: 300_000,
  });

  async function signOut() {
    await api.POST('/api/auth/logout').catch(() => undefined);
    setSession(null);
    client.clear();
    navigate('/login');
  }

  async function switchAccount(accountId: string) {
    const r = must(await api.POST('/api/auth/switch-account', { body: { account_id: accountId } }));
    if ('access_token' in r) {
      setSession({ token: r.access_token, user: r.user });
      client.clear();
      navigate('/queue');
    }
  }

  return (
    <div className="shell">
      <a className="skip" href="#main">Skip to content</a>
      <header className="top">
        <span className="brand">Planner's workbench</span>
        <nav aria-label="Pages">
          <ul>
            {PAGES.map(([to, label]) => (
              <li key={to}><NavLink to={to}>{label}</NavLink></li>
            ))}
          </ul>
        </nav>
        <div className="who">
          <label>
            <span>Pipeline</span>
            <select value={pipeline?.id ?? ''} onChange={(e) => choosePipeline(Number(e.target.value))} disabled={!pipelines.data?.length}>
              {(pipelines.data ?? []).map((p) => <option key={p.id} value={p.id}>{p.name}</option>)}
            </select>
          </label>
          {(accounts.data?.length ?? 0) > 1 && (
            <label>
              <span>Account</span>
              <select value={session.user.account_id} onChange={(e) => void switchAccount(e.target.value)}>
                {accounts.data!.map((a) => <option key={a.id} value={a.id}>{a.name}</option>)}
              </select>
            </label>
          )}
          <span className="user" title={session.user.email}>
            {session.user.name} · {session.user.account_name} · {session.user.role}{segmentLimited(session.user) ? ' · segment-limited' : ''}
          </span>
          <button type="button" onClick={() => void signOut()}>Sign out</button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        <Outlet />
      </main>
    </div>
  );
}
