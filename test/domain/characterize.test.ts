import {
  acf, characterize, isCompatible, mannKendall, METHODS, recommendMethods, trendMA,
} from '../../domain/characterization/characterize';

/** mulberry32: tiny seeded PRNG, uniform on [0, 1) */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
function gaussian(r: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r());
}
const whiteNoise = (seed: number, n = 156): number[] => {
  const r = prng(seed);
  return Array.from({ length: n }, () => 100 + 10 * gaussian(r));
};

describe('demand statistics', () => {
  test('hand-computed ADI, CV², zero ratio, mean, std on a tiny series', () => {
    // 3 demands in 8 periods: ADI = 8/3; sizes 3, 5, 4: mean 4, sample variance 1 → CV² = 1/16
    // mean 12/8 = 1.5; Σ(y - 1.5)² = 5·2.25 + 2.25 + 12.25 + 6.25 = 32 → std = sqrt(32/7)
    const c = characterize([0, 3, 0, 0, 5, 0, 4, 0], { period: 1 });
    expect(c.n_observations).toBe(8);
    expect(c.n_nonzero).toBe(3);
    expect(c.adi).toBeCloseTo(8 / 3, 12);
    expect(c.cv2).toBeCloseTo(1 / 16, 12);
    expect(c.zero_ratio).toBe(5 / 8);
    expect(c.mean).toBe(1.5);
    expect(c.std).toBeCloseTo(Math.sqrt(32 / 7), 12);
    expect(c.cov).toBeCloseTo(Math.sqrt(32 / 7) / 1.5, 12);
    expect(c.demand_class).toBe('intermittent');
    expect(c.is_intermittent).toBe(true);
    expect(c.min).toBe(0);
    expect(c.max).toBe(5);
  });

  test('Syntetos-Boylan class at the four quadrants', () => {
    const cases: Array<[number[], string, boolean]> = [
      [[10, 11, 9, 10, 12, 10, 9, 11, 10, 10], 'smooth', false], // ADI 1, CV² ≈ 0.01
      [[1, 20, 2, 30, 1, 25, 3, 40, 2, 35], 'erratic', false], // ADI 1, CV² ≈ 0.9
      [[0, 10, 0, 0, 11, 0, 9, 0, 10, 0], 'intermittent', true], // ADI 2.5, CV² ≈ 0.007
      [[0, 1, 0, 0, 50, 0, 2, 0, 40, 0], 'lumpy', true], // ADI 2.5, CV² ≈ 1.2
    ];
    for (const [y, cls, intermittent] of cases) {
      const c = characterize(y, { period: 1 });
      expect(c.demand_class).toBe(cls);
      expect(c.is_intermittent).toBe(intermittent);
    }
    // the cut-offs: ADI 4/3 > 1.32 (3 demands in 4 periods) is intermittent; ADI 1.25 is not
    expect(characterize([5, 5, 0, 5], { period: 1 }).is_intermittent).toBe(true);
    expect(characterize([5, 5, 5, 0, 5], { period: 1 }).is_intermittent).toBe(false);
  });

  test('all-zero and empty series stay finite', () => {
    const z = characterize(new Array(20).fill(0), { period: 52 });
    expect(z).toMatchObject({ n_observations: 20, n_nonzero: 0, adi: 20, cv2: 0, zero_ratio: 1, cov: 0, is_intermittent: true });
    expect(z.recommended_methods).toEqual(['naive', 'moving_average']);
    const e = characterize([], { period: 52 });
    expect(e.n_observations).toBe(0);
    expect(e.recommended_methods).toEqual([]);
    for (const v of Object.values(e)) if (typeof v === 'number') expect(Number.isFinite(v)).toBe(true);
  });

  test('NaN periods are dropped', () => {
    const c = characterize([0, 3, NaN, 0, 0, 5, 0, 4, NaN, 0], { period: 1 });
    expect(c.n_observations).toBe(8);
    expect(c.adi).toBeCloseTo(8 / 3, 12);
  });
});

describe('seasonality', () => {
  test('a noisy weekly sine is seasonal', () => {
    for (let seed = 1; seed <= 10; seed++) {
      const r = prng(seed);
      const y = Array.from({ length: 156 }, (_, t) => 100 + 20 * Math.sin((2 * Math.PI * t) / 52) + 5 * gaussian(r));
      const c = characterize(y, { period: 52 });
      expect(c.has_seasonality).toBe(true);
      expect(c.seasonal_strength).toBeGreaterThan(0.8);
      expect(c.recommended_methods).toEqual(expect.arrayContaining(['seasonal_naive', 'holt_winters', 'ets']));
    }
    // a monthly one too
    const r = prng(99);
    const m = Array.from({ length: 48 }, (_, t) => 100 + 20 * Math.cos((2 * Math.PI * t) / 12) + 5 * gaussian(r));
    expect(characterize(m, { period: 12 }).has_seasonality).toBe(true);
  });

  test('white noise is not seasonal (5 % test: at most a few of 40 seeds)', () => {
    expect(characterize(whiteNoise(1), { period: 52 }).has_seasonality).toBe(false);
    let hits = 0;
    for (let seed = 1; seed <= 40; seed++) if (characterize(whiteNoise(seed), { period: 52 }).has_seasonality) hits++;
    expect(hits).toBeLessThanOrEqual(4);
  });

  test('a level shift is not seasonal, and fewer than two periods are never tested', () => {
    const r = prng(8);
    const shift = Array.from({ length: 156 }, (_, t) => (t < 70 ? 100 : 140) + 5 * gaussian(r));
    expect(characterize(shift, { period: 52 }).has_seasonality).toBe(false);
    const y = Array.from({ length: 100 }, (_, t) => 100 + 20 * Math.sin((2 * Math.PI * t) / 52));
    const c = characterize(y, { period: 52 });
    expect(c.has_seasonality).toBe(false);
    expect(c.seasonal_strength).toBe(0);
    expect(characterize(whiteNoise(3), { period: 1 }).has_seasonality).toBe(false);
  });

  test('acf and the moving-average trend', () => {
    expect(acf([1, 2, 3, 4], 1)).toBeCloseTo(0.25, 12); // (-1.5·-0.5 + -0.5·0.5 + 0.5·1.5) / 5
    const line = Array.from({ length: 20 }, (_, t) => 3 + 2 * t);
    for (const order of [4, 5]) {
      const t = trendMA(line, order);
      line.forEach((v, i) => expect(t[i]).toBeCloseTo(v, 9));
    }
  });
});

describe('trend', () => {
  test('Mann-Kendall statistic against hand-computed examples', () => {
    // 1,3,2,4: five concordant pairs, one discordant → S = 4; Var = 4·3·13/18 = 26/3; Z = 3/sqrt(26/3)
    const a = mannKendall([1, 3, 2, 4]);
    expect(a.s).toBe(4);
    expect(a.var_s).toBeCloseTo(26 / 3, 12);
    expect(a.z).toBeCloseTo(3 / Math.sqrt(26 / 3), 12);
    expect(a.p_value).toBeCloseTo(0.3082, 3);
    expect(a.tau).toBeCloseTo(4 / 6, 12);
    // with a tie: 1,2,2,3 → S = 5; Var = (156 - 2·1·9) / 18 = 23/3; Z = 4 / sqrt(23/3)
    const b = mannKendall([1, 2, 2, 3]);
    expect(b.s).toBe(5);
    expect(b.var_s).toBeCloseTo(23 / 3, 12);
    expect(b.z).toBeCloseTo(4 / Math.sqrt(23 / 3), 12);
    // decreasing
    const c = mannKendall([5, 4, 3, 2, 1]);
    expect(c.s).toBe(-10);
    expect(c.z).toBeCloseTo(-9 / Math.sqrt((5 * 4 * 15) / 18), 12);
  });

  test('a noisy linear trend has a trend, white noise has not', () => {
    const r = prng(4);
    const y = Array.from({ length: 104 }, (_, t) => 50 + 0.3 * t + 5 * gaussian(r));
    const c = characterize(y, { period: 52 });
    expect(c.has_trend).toBe(true);
    expect(c.trend_z).toBeGreaterThan(1.96);
    expect(c.trend_strength).toBeGreaterThan(0.5);
    expect(c.recommended_methods).toEqual(expect.arrayContaining(['holt', 'damped_trend']));
    const w = characterize(whiteNoise(2), { period: 52 });
    expect(w.has_trend).toBe(false);
    expect(w.recommended_methods).not.toContain('holt');
  });
});

describe('complexity and recommendations', () => {
  test('complexity levels', () => {
    expect(characterize(whiteNoise(2), { period: 52 }).complexity_level).toBe('low');
    const r = prng(6);
    const lumpy = Array.from({ length: 156 }, () => (r() < 0.2 ? Math.round(1 + 100 * r() ** 3) : 0));
    const l = characterize(lumpy, { period: 52 });
    expect(l.demand_class).toBe('lumpy');
    expect(l.complexity_level).toBe('high');
    // short history of smooth demand: medium
    expect(characterize(whiteNoise(2, 20), { period: 52 }).complexity_level).toBe('medium');
  });

  test('smooth series: ses, theta, optimized_theta, arima, naive, combination in canonical order', () => {
    expect(characterize(whiteNoise(2), { period: 52 }).recommended_methods)
      .toEqual(['naive', 'ses', 'theta', 'optimized_theta', 'arima', 'combination']);
    expect(recommendMethods({ n_observations: 156, period: 52, is_intermittent: false, has_seasonality: true, has_trend: true }))
      .toEqual(['naive', 'seasonal_naive', 'ses', 'holt', 'damped_trend', 'holt_winters', 'ets', 'theta', 'optimized_theta', 'arima', 'combination']);
    // short history: arima (10) drops out, three candidates remain → still a combination
    expect(recommendMethods({ n_observations: 5, period: 52, is_intermittent: false, has_seasonality: false, has_trend: false }))
      .toEqual(['naive', 'ses', 'theta', 'optimized_theta', 'combination']);
  });

  test('intermittent series: croston family, moving average and naive', () => {
    const c = characterize([0, 3, 0, 0, 5, 0, 4, 0, 0, 2, 0, 0], { period: 52 });
    expect(c.recommended_methods).toEqual(['naive', 'moving_average', 'croston', 'sba', 'tsb', 'adida', 'combination']);
    // a single demand: the croston family cannot run, no combination
    expect(characterize([0, 0, 7, 0, 0, 0], { period: 52 }).recommended_methods).toEqual(['naive', 'moving_average']);
  });

  test('every recommended name is a known method', () => {
    for (let seed = 1; seed <= 5; seed++) {
      for (const m of characterize(whiteNoise(seed), { period: 52 }).recommended_methods) expect(METHODS).toContain(m);
    }
  });
});

describe('isCompatible', () => {
  const base = { n_observations: 156, period: 52, n_nonzero: 150, min: 0 };
  test('holt_winters needs two full periods, seasonal_naive one', () => {
    expect(isCompatible('holt_winters', base)).toEqual({ compatible: true });
    const hw = isCompatible('holt_winters', { ...base, n_observations: 103 });
    expect(hw.compatible).toBe(false);
    expect(hw.reason).toMatch(/two full periods/);
    expect(isCompatible('holt_winters', { ...base, period: 1 }).compatible).toBe(false);
    expect(isCompatible('seasonal_naive', { ...base, n_observations: 52 }).compatible).toBe(true);
    expect(isCompatible('seasonal_naive', { ...base, n_observations: 51 }).compatible).toBe(false);
  });

  test('croston needs two non-zero demands (given or derived from the zero ratio)', () => {
    expect(isCompatible('croston', { ...base, n_nonzero: 1 })).toMatchObject({ compatible: false });
    expect(isCompatible('sba', { n_observations: 10, zero_ratio: 0.8 }).compatible).toBe(true);
    expect(isCompatible('tsb', { n_observations: 10, zero_ratio: 0.9 }).compatible).toBe(false);
    expect(isCompatible('adida', { ...base, min: -1 }).reason).toMatch(/non-negative/);
  });

  test('multiplicative variants need positive data', () => {
    expect(isCompatible('holt_winters', base, { seasonal: 'multiplicative' }).compatible).toBe(false);
    expect(isCompatible('ets', { ...base, min: 0.5 }, { error: 'M', trend: 'A' }).compatible).toBe(true);
    expect(isCompatible('ets', { n_observations: 40, zero_ratio: 0.1 }, { seasonal: 'mul' }).compatible).toBe(false);
    expect(isCompatible('holt_winters', base, { seasonal: 'additive' }).compatible).toBe(true);
  });

  test('history length and unknown names', () => {
    expect(isCompatible('arima', { n_observations: 9 }).compatible).toBe(false);
    expect(isCompatible('arima', { n_observations: 10 }).compatible).toBe(true);
    expect(isCompatible('naive', { n_observations: 0 })).toEqual({ compatible: false, reason: 'no history' });
    expect(isCompatible('prophet', base)).toEqual({ compatible: false, reason: "unknown method 'prophet'" });
  });
});
