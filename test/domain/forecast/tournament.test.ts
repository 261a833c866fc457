import { characterize } from '../../../domain/characterization/characterize';
import { backtest } from '../../../domain/forecast/backtest';
import { combineBands } from '../../../domain/forecast/combination';
import { METHOD_NAMES } from '../../../domain/forecast/registry';
import { candidateMethods, runTournament } from '../../../domain/forecast/tournament';

/** deterministic pseudo-random numbers (mulberry32) */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
function gauss(r: () => number): number {
  return Math.sqrt(-2 * Math.log(r() + 1e-12)) * Math.cos(2 * Math.PI * r());
}

const SEASONAL_METHODS = new Set(['seasonal_naive', 'holt_winters', 'ets', 'arima', 'theta', 'optimized_theta']);

describe('runTournament', () => {
  const r1 = rng(7);
  const seasonal = Array.from({ length: 72 }, (_, t) => 100 + 30 * Math.sin((2 * Math.PI * t) / 12) + 2 * gauss(r1));

  test('a seasonal series: a seasonal method wins', () => {
    const t = runTournament(seasonal, { period: 12, h: 12, backtest: { origins: 3 }, combination: false });
    expect(SEASONAL_METHODS.has(t.best)).toBe(true);
    for (const bad of ['naive', 'ses', 'holt', 'moving_average']) expect(t.ranking.findIndex((r) => r.method === bad)).toBeGreaterThan(t.ranking.findIndex((r) => r.method === t.best));
    expect(t.forecasts[t.best].mean).toHaveLength(12);
    expect(t.best_score).toBe(t.ranking[0].score);
    expect(t.runner_up).toBe(t.ranking[1].method);
    expect(t.runner_up_score).toBe(t.ranking[1].score);
    // the backtest stored every origin's forecasts for the winner
    expect(t.backtest.origins).toHaveLength(3);
    expect(t.backtest.methods[t.best].forecasts).toHaveLength(3);
  });

  test('a constant series: every method is perfect, so no single beats the default combination; without it the tie goes to naive', () => {
    const t = runTournament(new Array(30).fill(10), { period: 1, h: 4 });
    expect(t.best).toBe('combination');
    expect(t.best_score).toBe(0);
    for (const v of t.forecasts.combination.mean) expect(v).toBeCloseTo(10, 12);
    const s = runTournament(new Array(30).fill(10), { period: 1, h: 4, combination: false });
    expect(s.best).toBe('naive');
    expect(s.best_score).toBe(0);
    expect(Array.from(s.forecasts.naive.mean)).toEqual([10, 10, 10, 10]);
  });

  test('a flat noisy series: a level method (not naive, drift or seasonal naive) wins', () => {
    const r = rng(11);
    const y = Array.from({ length: 60 }, () => 50 + 5 * gauss(r));
    const t = runTournament(y, { period: 1, h: 6, methods: ['naive', 'drift', 'ses', 'moving_average', 'holt'], backtest: { origins: 3 } });
    expect(['ses', 'moving_average']).toContain(t.best);
  });

  test('a trending series: a trend method beats the level methods', () => {
    const r = rng(3);
    const y = Array.from({ length: 40 }, (_, t) => 10 + 3 * t + gauss(r));
    const t = runTournament(y, { period: 1, h: 6, methods: ['naive', 'ses', 'moving_average', 'drift', 'holt', 'damped_trend'], combination: false });
    expect(['drift', 'holt', 'damped_trend']).toContain(t.best);
  });

  test('a locked method is the best regardless of its score; the runner-up is the best other', () => {
    const t = runTournament(seasonal, { period: 12, h: 12, locked: 'naive', methods: ['naive', 'seasonal_naive', 'ses'], combination: false });
    expect(t.locked).toBe('naive');
    expect(t.best).toBe('naive');
    expect(t.ranking[0].method).not.toBe('naive');
    expect(t.runner_up).toBe(t.ranking[0].method);
    expect(t.best_score).toBe(t.ranking.find((r) => r.method === 'naive')!.score);
    expect(t.best_score).toBeGreaterThan(t.runner_up_score);
  });

  test('a locked method missing from the method list is added', () => {
    const t = runTournament(seasonal, { period: 12, h: 6, locked: 'drift', methods: ['naive', 'seasonal_naive'] });
    expect(t.methods).toContain('drift');
    expect(t.best).toBe('drift');
  });

  test('a locked method that is not a method is an error', () => {
    expect(() => runTournament(seasonal, { period: 12, h: 6, locked: 'magic' })).toThrow(/not a forecasting method/);
  });

  test('combination: the mean of the top-k forecasts, its backtest from the members\' origin forecasts', () => {
    const methods = ['naive', 'seasonal_naive', 'ses', 'holt_winters', 'theta'];
    const t = runTournament(seasonal, { period: 12, h: 12, methods, combination: { top: 3, weights: 'equal' } });
    const c = t.combination!;
    const singles = t.ranking.filter((r) => r.method !== 'combination').map((r) => r.method);
    expect(c.members).toEqual(singles.slice(0, 3));
    expect(c.weights).toEqual([1 / 3, 1 / 3, 1 / 3]);
    const expected = combineBands(c.members.map((m) => t.forecasts[m]), c.weights);
    for (let i = 0; i < 12; i++) {
      expect(c.forecast.mean[i]).toBeCloseTo(c.members.reduce((s, m) => s + t.forecasts[m].mean[i], 0) / 3, 10);
      expect(c.forecast.lower[i]).toBeCloseTo(expected.lower[i], 12);
      expect(c.forecast.upper[i]).toBeCloseTo(expected.upper[i], 12);
    }
    const bt = t.backtest.methods.combination;
    expect(bt.origins_evaluated).toBe(3);
    for (const f of bt.forecasts) {
      const at = c.members.map((m) => t.backtest.methods[m].forecasts.find((x) => x.origin === f.origin)!);
      for (let i = 0; i < f.mean.length; i++) expect(f.mean[i]).toBeCloseTo((at[0].mean[i] + at[1].mean[i] + at[2].mean[i]) / 3, 10);
    }
    expect(t.ranking.some((r) => r.method === 'combination')).toBe(true);
    expect(t.forecasts.combination).toBe(c.forecast);
  });

  test('combination with inverse-score weights', () => {
    const t = runTournament(seasonal, { period: 12, h: 6, methods: ['seasonal_naive', 'ses', 'theta'], combination: { top: 2, weights: 'inverse_score' } });
    const c = t.combination!;
    const s = c.members.map((m) => t.ranking.find((r) => r.method === m)!.score);
    expect(c.weights[0]).toBeCloseTo(1 / s[0] / (1 / s[0] + 1 / s[1]), 12);
    expect(c.weights[0]).toBeGreaterThanOrEqual(c.weights[1]);
  });

  test('combination members come from the pool (default ets, arima, theta), equal weights by default', () => {
    const methods = ['naive', 'seasonal_naive', 'ses', 'ets', 'theta', 'arima', 'combination'];
    const e = runTournament(seasonal, { period: 12, h: 6, methods });
    expect([...e.combination!.members].sort()).toEqual(['arima', 'ets', 'theta']);
    expect(e.combination!.weights).toEqual([1 / 3, 1 / 3, 1 / 3]);
    const t = runTournament(seasonal, { period: 12, h: 6, methods, combination: { weights: 'inverse_score' } });
    const c = t.combination!;
    expect([...c.members].sort()).toEqual(['arima', 'ets', 'theta']);
    const s = c.members.map((m) => t.ranking.find((r) => r.method === m)!.score);
    const inv = s.map((v) => 1 / v);
    c.weights.forEach((w, i) => expect(w).toBeCloseTo(inv[i] / inv.reduce((a, b) => a + b, 0), 12));
    const p = runTournament(seasonal, { period: 12, h: 6, methods: ['naive', 'seasonal_naive', 'ses', 'ets', 'theta'], combination: { pool: ['naive', 'ses', 'seasonal_naive'], top: 2 } });
    expect(p.combination!.members).toHaveLength(2);
    expect(p.combination!.members.every((m) => ['naive', 'ses', 'seasonal_naive'].includes(m))).toBe(true);
  });

  test('margin: the combination ranks on score × (1 − margin); margin 0 is the plain lowest score', () => {
    const methods = ['naive', 'seasonal_naive', 'ses', 'theta', 'combination'];
    const plain = runTournament(seasonal, { period: 12, h: 6, methods, combination: { margin: 0, pool: ['seasonal_naive', 'theta', 'ses'] } });
    for (const r of plain.ranking) expect(r.selection_score).toBe(r.score);
    expect(plain.best).toBe([...plain.ranking].sort((a, b) => a.score - b.score)[0].method);
    const pref = runTournament(seasonal, { period: 12, h: 6, methods, combination: { margin: 0.5, pool: ['seasonal_naive', 'theta', 'ses'] } });
    const c = pref.ranking.find((r) => r.method === 'combination')!;
    expect(c.selection_score).toBeCloseTo(c.score * 0.5, 12);
    const bestSingle = pref.ranking.find((r) => r.method !== 'combination')!;
    expect(pref.best).toBe(bestSingle.score < c.score * 0.5 ? bestSingle.method : 'combination');
    expect(pref.best_score).toBe(pref.ranking[0].score);
  });

  test('the score metric is a parameter', () => {
    const t = runTournament(seasonal, { period: 12, h: 6, methods: ['naive', 'seasonal_naive', 'ses', 'theta'], score: 'rmse', combination: false });
    expect(t.score).toBe('rmse');
    for (const r of t.ranking) expect(r.score).toBe(t.backtest.methods[r.method].metrics.rmse);
    const scores = t.ranking.map((r) => r.score);
    expect([...scores].sort((a, b) => a - b)).toEqual(scores);
  });

  test('deterministic, whatever the order of the method list', () => {
    const methods = ['theta', 'naive', 'ses', 'seasonal_naive', 'ets', 'combination'];
    const a = runTournament(seasonal, { period: 12, h: 6, methods });
    const b = runTournament(seasonal, { period: 12, h: 6, methods: [...methods].reverse() });
    const plain = (x: unknown) => JSON.parse(JSON.stringify(x, (_k, v) => (v instanceof Float64Array ? Array.from(v) : v)));
    expect(plain(b)).toEqual(plain(a));
  });

  test('default candidates: every method that can run; characteristics narrow them', () => {
    const all = candidateMethods(seasonal, { period: 12 });
    // the characterization catalogue; the registry extras (drift, imapa) only when named
    expect(all.singles).toEqual(METHOD_NAMES.filter((m) => m !== 'drift' && m !== 'imapa'));
    expect(candidateMethods(seasonal, { period: 12, methods: ['drift', 'naive'] }).singles).toEqual(['naive', 'drift']);
    expect(all.combination).toBe(true);
    const ch = characterize(seasonal, { period: 12 });
    const rec = candidateMethods(seasonal, { period: 12, characteristics: ch });
    expect(rec.singles).toEqual(ch.recommended_methods.filter((m) => m !== 'combination'));
    const t = runTournament(seasonal, { period: 12, h: 6, characteristics: ch });
    expect(t.methods.filter((m) => m !== 'combination')).toEqual(rec.singles);
  });

  test('an intermittent series with the characterization recommendations', () => {
    const r = rng(5);
    const y = Array.from({ length: 104 }, () => (r() < 0.25 ? 1 + Math.round(5 * r()) : 0));
    const ch = characterize(y, { period: 52 });
    expect(ch.is_intermittent).toBe(true);
    const t = runTournament(y, { period: 52, h: 13, characteristics: ch });
    expect(t.methods).toEqual(expect.arrayContaining(['croston', 'sba', 'tsb', 'adida']));
    expect(t.forecasts[t.best].mean.every((v) => v >= 0)).toBe(true);
  });

  test('methods that cannot run are skipped with the reason', () => {
    const t = runTournament([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12], { period: 12, h: 3, methods: ['naive', 'holt_winters', 'croston', 'bogus'] });
    expect(t.skipped).toEqual(
      expect.arrayContaining([
        { method: 'holt_winters', reason: expect.stringContaining('two full periods') },
        { method: 'bogus', reason: expect.stringContaining('unknown') },
      ]),
    );
    expect(t.methods).toEqual(expect.arrayContaining(['naive', 'croston']));
  });

  test('a series too short for any backtest origin: preference order, NaN scores', () => {
    const t = runTournament([3, 5, 4], { period: 1, h: 2, methods: ['naive', 'ses', 'theta'] });
    expect(t.backtest.origins).toEqual([]);
    expect(t.best).toBe('ses');
    expect(t.best_score).toBeNaN();
    expect(t.combination).toBeNull();
  });

  test('the backtest inside the tournament is the plain backtest', () => {
    const methods = ['naive', 'seasonal_naive', 'ses'];
    const t = runTournament(seasonal, { period: 12, h: 6, methods, combination: false, backtest: { origins: 2, step: 4 } });
    const b = backtest(seasonal, methods, { h: 6, period: 12, origins: 2, step: 4 });
    for (const m of methods) expect(t.backtest.methods[m].metrics).toEqual(b.methods[m].metrics);
  });
});

describe('runTournament: locked method below its minimum history', () => {
  test('runs with the engine fallback instead of failing', () => {
    const y = [5, 7, 6, 8, 7, 9, 8, 10, 9, 11];
    const t = runTournament(y, { period: 12, h: 3, methods: ['naive', 'ses'], locked: 'holt_winters' });
    expect(t.best).toBe('holt_winters');
    expect(t.forecasts.holt_winters.mean).toHaveLength(3);
    expect(t.forecasts.holt_winters.params.fallback).toBeDefined();
  });
});

describe('runTournament: combination on a short series', () => {
  test('a member that misses early origins: the combination is scored there from the members that ran', () => {
    const r = rng(21);
    const y = Array.from({ length: 14 }, (_, t) => 20 + 2 * t + gauss(r));
    const t = runTournament(y, { period: 1, h: 4, methods: ['naive', 'ets', 'theta', 'arima', 'combination'], backtest: { origins: 3, step: 1 } });
    expect(t.backtest.origins.map((o) => o.train_end)).toEqual([8, 9, 10]);
    expect(t.backtest.methods.arima.origins_evaluated).toBe(1); // arima needs 10 points
    expect([...t.combination!.members].sort()).toEqual(['arima', 'ets', 'theta']);
    const c = t.backtest.methods.combination;
    expect(c.origins_evaluated).toBe(3);
    expect(c.forecasts.map((f) => f.origin)).toEqual([0, 1, 2]);
    const at = (m: string, o: number) => t.backtest.methods[m].forecasts.find((f) => f.origin === o)!.mean;
    for (let i = 0; i < 4; i++) {
      expect(c.forecasts[0].mean[i]).toBeCloseTo((at('ets', 0)[i] + at('theta', 0)[i]) / 2, 10);
      expect(c.forecasts[2].mean[i]).toBeCloseTo((at('ets', 2)[i] + at('theta', 2)[i] + at('arima', 2)[i]) / 3, 10);
    }
    // the choice rule: a single wins only with 3 origins and less than half the combination's score
    const comb = t.ranking.find((x) => x.method === 'combination')!;
    const overriding = t.ranking.filter((x) => x.method !== 'combination' && x.origins_evaluated >= 3 && x.score < comb.score / 2);
    expect(t.best).toBe(overriding.length ? overriding[0].method : 'combination');
  });

  test('fewer backtest origins than minOrigins: the combination stands whatever the scores', () => {
    const r = rng(21);
    const y = Array.from({ length: 14 }, (_, t) => 20 + 2 * t + gauss(r));
    const methods = ['naive', 'drift', 'holt', 'ets', 'theta', 'arima', 'combination'];
    const two = runTournament(y, { period: 1, h: 4, methods, backtest: { origins: 2, step: 1 } });
    expect(two.backtest.origins).toHaveLength(2);
    expect(two.best).toBe('combination');
    expect(two.ranking[0].method).toBe('combination');
    // the same series with minOrigins 2 and margin 0: the plain lowest score among those scored on both origins
    const plain = runTournament(y, { period: 1, h: 4, methods, backtest: { origins: 2, step: 1 }, combination: { minOrigins: 2, margin: 0 } });
    const c = plain.ranking.find((x) => x.method === 'combination')!;
    const lowest = plain.ranking.filter((x) => x.origins_evaluated >= 2 && x.method !== 'combination').sort((p, q) => p.score - q.score)[0];
    expect(plain.best).toBe(lowest.score < c.score ? lowest.method : 'combination');
  });

});
