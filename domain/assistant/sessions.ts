/**
 * Assistant session memory (spec §4.7 rules 4 and 5): kept in the API process only (a restart or another replica
 * starts empty), at most 6 turns per session, evicted after 60 minutes idle, cleared by POST /api/assistant/clear and
 * on logout. Time comes from the caller so the rules are testable without waiting.
 */

export const MAX_TURNS_PER_SESSION = 6;
export const SESSION_TTL_SECONDS = 3600;
export const RESULT_SUMMARY_MAX = 200;

export interface UserTurn { role: 'user'; content: string; ts: string }
export interface AssistantTurn { role: 'assistant'; content: string; ts: string; sql: string; result_summary: string }
export type Turn = UserTurn | AssistantTurn;

/** Rule 4: explicit session id; `u:<jti>`; `u:<user id or e-mail>`; `ip:<client host>`; `anonymous`. */
export function resolveSessionId(who: { sessionId?: string | null; jti?: string | null; userId?: string | null; email?: string | null; ip?: string | null }): string {
  const explicit = who.sessionId?.trim();
  if (explicit) return explicit;
  if (who.jti) return `u:${who.jti}`;
  if (who.userId || who.email) return `u:${who.userId || who.email}`;
  if (who.ip) return `ip:${who.ip}`;
  return 'anonymous';
}

interface Session { turns: Turn[]; lastSeen: number; owner: string }

/** Sessions of all tenants, keyed by tenant and session id so two tenants' `anonymous` never meet. */
export class SessionMemory {
  private readonly sessions = new Map<string, Session>();
  constructor(private readonly maxTurns = MAX_TURNS_PER_SESSION, private readonly ttlSeconds = SESSION_TTL_SECONDS) {}

  private key(tenant: string, sessionId: string) {
    return `${tenant}\u0000${sessionId}`;
  }

  private evict(now: number): void {
    for (const [k, s] of this.sessions) if (now - s.lastSeen > this.ttlSeconds * 1000) this.sessions.delete(k);
  }

  /** The turns of a session, oldest first (empty when unknown or expired). */
  history(tenant: string, sessionId: string, now: number): Turn[] {
    this.evict(now);
    return [...(this.sessions.get(this.key(tenant, sessionId))?.turns ?? [])];
  }

  /** Adds turns; only the last `maxTurns` are kept. `owner` (the token id) lets logout clear what its token created. */
  append(tenant: string, sessionId: string, owner: string, turns: Turn[], now: number): void {
    this.evict(now);
    const k = this.key(tenant, sessionId);
    const s = this.sessions.get(k) ?? { turns: [], lastSeen: now, owner };
    s.turns.push(...turns.map((t) => (t.role === 'assistant' ? { ...t, result_summary: t.result_summary.slice(0, RESULT_SUMMARY_MAX) } : t)));
    if (s.turns.length > this.maxTurns) s.turns.splice(0, s.turns.length - this.maxTurns);
    s.lastSeen = now;
    s.owner = owner;
    this.sessions.set(k, s);
  }

  /** Clears one session; true when it held turns. */
  clear(tenant: string, sessionId: string, now: number): boolean {
    this.evict(now);
    return this.sessions.delete(this.key(tenant, sessionId));
  }

  /** The token ids that wrote the tenant's sessions. */
  owners(tenant: string): string[] {
    const out = new Set<string>();
    for (const [k, s] of this.sessions) if (k.startsWith(`${tenant}\u0000`)) out.add(s.owner);
    return [...out];
  }

  /** Clears every session a token created (logout). */
  clearOwner(tenant: string, owner: string): number {
    let n = 0;
    for (const [k, s] of this.sessions) {
      if (k.startsWith(`${tenant}\u0000`) && s.owner === owner) {
        this.sessions.delete(k);
        n++;
      }
    }
    return n;
  }

  stats(tenant: string, now: number): { sessions: number; total_turns: number; max_turns_per_session: number; ttl_seconds: number } {
    this.evict(now);
    let sessions = 0;
    let turns = 0;
    for (const [k, s] of this.sessions) {
      if (!k.startsWith(`${tenant}\u0000`)) continue;
      sessions++;
      turns += s.turns.length;
    }
    return { sessions, total_turns: turns, max_turns_per_session: this.maxTurns, ttl_seconds: this.ttlSeconds };
  }
}

/** A short text of a result for the session memory: at most 200 characters. */
export function resultSummary(rowCount: number, columns: readonly string[], rows: ReadonlyArray<Record<string, unknown>>, error?: string): string {
  if (error) return `error: ${error}`.slice(0, RESULT_SUMMARY_MAX);
  const first = rows[0] ? columns.slice(0, 4).map((c) => `${c}=${JSON.stringify(rows[0][c])}`).join(', ') : '';
  return `${rowCount} row${rowCount === 1 ? '' : 's'} (${columns.slice(0, 6).join(', ')})${first ? `; first: ${first}` : ''}`.slice(0, RESULT_SUMMARY_MAX);
}
