import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { api, ApiError } from '../api/client';
import { readCallback } from '../lib/sso';
import { clearAttempt, peekAttempt } from '../session/ssoAttempt';
import { setSession } from '../session/store';

/**
 * Where the identity provider sends the browser back: the provider's token is taken from the fragment, the fragment
 * is wiped from the address bar and history at once, and the token is posted to the API's sign-in route for that
 * provider, which checks it with the provider and answers with our own token (or the accounts to choose from).
 */
export function SsoCallback() {
  const navigate = useNavigate();
  const [result] = useState(() => readCallback(window.location.hash, peekAttempt()));
  const [error, setError] = useState(result.ok ? '' : result.reason);
  const [accounts, setAccounts] = useState<Array<{ id: string; name: string }>>([]);
  const [accountId, setAccountId] = useState('');
  const [busy, setBusy] = useState(result.ok);
  const started = useRef(false);

  async function signIn(account?: string) {
    if (!result.ok) return;
    setBusy(true);
    setError('');
    try {
      const body = account ? { account_id: account } : {};
      const r = result.provider === 'microsoft'
        ? await api.POST('/api/auth/microsoft', { body: { access_token: result.token, ...body } })
        : await api.POST('/api/auth/google', { body: { credential: result.token, ...body } });
      if (r.error || !r.data) throw new ApiError(r.response.status, (r.error as { detail?: string })?.detail ?? 'Sign-in failed');
      if ('access_token' in r.data) {
        setSession({ token: r.data.access_token, user: r.data.user });
        navigate('/queue', { replace: true });
        return;
      }
      setAccounts(r.data.accounts);
      setAccountId(r.data.accounts[0]?.id ?? '');
    } catch (err) {
      setError(err instanceof Error ? err.message : 'Sign-in failed');
    } finally {
      setBusy(false);
    }
  }

  useEffect(() => {
    window.history.replaceState(window.history.state, '', window.location.pathname);
    clearAttempt();
    if (started.current) return;
    started.current = true;
    void signIn();
    // once, on arrival: the answer in the fragment is read a single time
  }, []);

  const choose = (e: FormEvent) => {
    e.preventDefault();
    void signIn(accountId);
  };

  return (
    <main id="main" className="login">
      <h1>Planner's workbench</h1>
      {busy && <p role="status">Signing in…</p>}
      {accounts.length > 0 && (
        <form onSubmit={choose} aria-label="Choose an account">
          <label>Account
            <select value={accountId} onChange={(e) => setAccountId(e.target.value)}>
              {accounts.map((a) => <option key={a.id} value={a.id}>{a.name}</option>)}
            </select>
          </label>
          <button type="submit" disabled={busy}>Continue</button>
        </form>
      )}
      {error && (
        <>
          <p className="error" role="alert">{error}</p>
          <p><Link to="/login">Back to sign-in</Link></p>
        </>
      )}
    </main>
  );
}
