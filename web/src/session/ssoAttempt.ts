import type { SsoAttempt, SsoProvider } from '../lib/sso';

/** The sign-in this tab started, kept in sessionStorage across the provider's round trip, spent once its answer is read. */
const KEY = 'workbench.sso';

const random = () => btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(24)))).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');

export function startAttempt(p: SsoProvider): SsoAttempt {
  const attempt: SsoAttempt = { provider: p.id, response_type: p.response_type, state: random(), nonce: random() };
  sessionStorage.setItem(KEY, JSON.stringify(attempt));
  return attempt;
}

/** Read without removing: React may render the callback page twice before its effect runs. */
export function peekAttempt(): SsoAttempt | null {
  try {
    const raw = sessionStorage.getItem(KEY);
    return raw ? (JSON.parse(raw) as SsoAttempt) : null;
  } catch {
    return null;
  }
}

/** Once the answer is read, the attempt is spent: the same state is never accepted twice. */
export const clearAttempt = (): void => sessionStorage.removeItem(KEY);
