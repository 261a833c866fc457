import { cacheKey, ResponseCache } from '../../../domain/assistant/cache';
import { resolveSessionId, resultSummary, SessionMemory, type Turn } from '../../../domain/assistant/sessions';

const u = (content: string): Turn => ({ role: 'user', content, ts: 't' });

test('rule 4: explicit, token id, user, ip, anonymous', () => {
  expect(resolveSessionId({ sessionId: 's1', jti: 'j', userId: '7', ip: '1.2.3.4' })).toBe('s1');
  expect(resolveSessionId({ sessionId: '  ', jti: 'j', userId: '7' })).toBe('u:j');
  expect(resolveSessionId({ userId: '7', email: 'a@b' })).toBe('u:7');
  expect(resolveSessionId({ email: 'a@b' })).toBe('u:a@b');
  expect(resolveSessionId({ ip: '1.2.3.4' })).toBe('ip:1.2.3.4');
  expect(resolveSessionId({})).toBe('anonymous');
});

test('rule 5: 6 turns kept, 60 minutes idle evicts, clear and logout forget, tenants apart', () => {
  const m = new SessionMemory();
  for (let i = 1; i <= 8; i++) m.append('A', 's', 'jti1', [u(`q${i}`)], 1000 * i);
  expect(m.history('A', 's', 9000).map((t) => t.content)).toEqual(['q3', 'q4', 'q5', 'q6', 'q7', 'q8']);
  expect(m.history('B', 's', 9000)).toEqual([]);
  expect(m.stats('A', 9000)).toEqual({ sessions: 1, total_turns: 6, max_turns_per_session: 6, ttl_seconds: 3600 });
  expect(m.history('A', 's', 8000 + 3600_000)).toHaveLength(6);
  expect(m.history('A', 's', 8000 + 3600_001)).toEqual([]);
  m.append('A', 's', 'jti1', [u('x')], 0);
  m.append('A', 't', 'jti2', [u('y')], 0);
  expect(m.owners('A').sort()).toEqual(['jti1', 'jti2']);
  expect(m.clearOwner('A', 'jti1')).toBe(1);
  expect(m.history('A', 's', 0)).toEqual([]);
  expect(m.clear('A', 't', 0)).toBe(true);
  expect(m.clear('A', 't', 0)).toBe(false);
});

test('assistant turns keep a result summary of at most 200 characters', () => {
  const m = new SessionMemory();
  m.append('A', 's', 'j', [{ role: 'assistant', content: 'a', ts: 't', sql: 'SELECT 1', result_summary: 'x'.repeat(500) }], 0);
  const [turn] = m.history('A', 's', 0);
  expect(turn.role === 'assistant' && turn.result_summary.length).toBe(200);
  expect(resultSummary(2, ['a', 'b'], [{ a: 1, b: 'x' }])).toBe('2 rows (a, b); first: a=1, b="x"');
  expect(resultSummary(0, [], [], 'boom')).toBe('error: boom');
});

test('the response cache: 64 entries, least recently used out first, 300 seconds', () => {
  const c = new ResponseCache<number>();
  for (let i = 0; i < 64; i++) c.set(`k${i}`, i, 0);
  expect(c.get('k0', 1)).toBe(0); // k0 is now the most recent
  c.set('k64', 64, 2);
  expect(c.size).toBe(64);
  expect(c.get('k1', 3)).toBeUndefined();
  expect(c.get('k0', 3)).toBe(0);
  expect(c.get('k64', 2 + 300_000)).toBe(64);
  expect(c.get('k64', 2 + 300_001)).toBeUndefined();
  c.dropPrefix('k');
  expect(c.size).toBe(0);
  expect(cacheKey('T', 3, null, '  Top  10 Items ')).toBe('T|3||top 10 items');
});
