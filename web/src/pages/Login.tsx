import { useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Navigate, useNavigate } from 'react-router';
import { api, ApiError, must } from '../api/client';
import { authorizeUrl, SSO_CALLBACK_PATH, type SsoProvider } from '../lib/sso';
import { startAttempt } from '../session/ssoAttempt';
import { setSession } from '../session/store';
import { useSession } from '../session/useSession';

export function Login() {
  const session = useSession();
  const navigate = useNavigate();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [accounts, setAccounts] = useState<Array<{ id: string; name: string }>>([]);
  const [accountId, setAccountId] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  // the form does not wait for this: a server without single sign-on answers an empty list
  const providers = useQuery({ queryKey: ['sso-providers'], queryFn: async () => must(await api.GET('/api/auth/login/providers')).providers, staleTime: Infinity });

  if (session) return <Navigate to="/queue" replace />;

  function signInWith(p: SsoProvider) {
    const attempt = startAttempt(p);
    window.location.assign(authorizeUrl(p, `${window.location.origin}${SSO_CALLBACK_PATH}`, attempt));
  }

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError('');
    try {
      const r = await api.POST('/api/auth/login', { body: { email, password, ...(accountId ? { account_id: accountId } : {}) } });
      if (r.error || !r.data) throw new ApiError(r.response.status, (r.error as { detail?: string })?.detail ?? 'Sign-in failed');
      if ('access_token' in r.data) {
        setSession({ token: r.data.access_token, user: r.data.user });
        navigate('/queue');
      } else {
        setAccounts(r.data.accounts);
        setAccountId(r.data.accounts[0]?.id ?? '');
        setError('This e-mail has several accounts: choose one.');
      }
    } catch (err) {
      setError(err instanceof Error ? err.message : 'Sign-in failed');
    } finally {
      setBusy(false);
    }
  }

  return (
    <main id="main" className="login">
      <h1>Planner's workbench</h1>
      <form onSubmit={(e) => void submit(e)} aria-label="Sign in">
        <label>E-mail<input type="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} /></label>
        <label>Password<input type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} /></label>
        {accounts.length > 0 && (
          <label>Account
            <select value={accountId} onChange={(e) => setAccountId(e.target.value)}>
              {accounts.map((a) => <option key={a.id} value={a.id}>{a.name}</option>)}
            </select>
          </label>
        )}
        {error && <p className="error" role="alert">{error}</p>}
        <button type="submit" disabled={busy}>{busy ? 'Signing in…' : 'Sign in'}</button>
      </form>
      {!!providers.data?.length && (
        <section className="sso" aria-label="Single sign-on">
          <p className="muted">or</p>
          {providers.data.map((p) => <button type="button" key={p.id} onClick={() => signInWith(p)}>{p.label}</button>)}
        </section>
      )}
    </main>
  );
}
