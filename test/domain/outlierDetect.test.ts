import { detectOutliers, median, sortedQuantile } from '../../domain/outlier/detect';

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
const flagged = (flags: Uint8Array): number[] => [...flags].flatMap((f, i) => (f ? [i] : []));

describe('helpers', () => {
  test('median and type-7 quantiles', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    const s = [1, 2, 3, 4, 5, 6, 7, 8, 9, 100];
    expect(sortedQuantile(s, 0.25)).toBeCloseTo(3.25, 12);
    expect(sortedQuantile(s, 0.75)).toBeCloseTo(7.75, 12);
  });
});

describe('hampel', () => {
  test('flags a planted spike in a smooth series and replaces it by the rolling median', () => {
    const r = prng(7);
    const y = Array.from({ length: 80 }, (_, t) => 100 + 10 * Math.sin((2 * Math.PI * t) / 52) + 2 * gaussian(r));
    y[40] += 40;
    const out = detectOutliers(y, { method: 'hampel' });
    expect(flagged(out.flags)).toEqual([40]);
    expect(out.outliers).toHaveLength(1);
    const o = out.outliers[0];
    expect(o.index).toBe(40);
    expect(o.value).toBe(y[40]);
    expect(o.score).toBeGreaterThan(3);
    expect(o.corrected).toBe(median(y.slice(34, 47)));
    expect(out.corrected[40]).toBe(o.corrected);
    // everything else untouched
    for (let i = 0; i < y.length; i++) if (i !== 40) expect(out.corrected[i]).toBe(y[i]);
  });

  test('clip correction moves the spike to median + 3 scaled MADs', () => {
    const y = [10, 11, 9, 10, 12, 10, 9, 11, 10, 50, 10, 11, 9, 10, 12, 10, 9, 11];
    const out = detectOutliers(y, { method: 'hampel', window: 3, correction: 'clip' });
    expect(flagged(out.flags)).toEqual([9]);
    const w = y.slice(6, 13);
    const m = median(w);
    const s = 1.4826 * median(w.map((v) => Math.abs(v - m)));
    expect(out.corrected[9]).toBeCloseTo(m + 3 * s, 12);
    expect(out.outliers[0].score).toBeCloseTo((50 - m) / s, 12);
  });

  test('leaves a broad seasonal peak alone', () => {
    const r = prng(11);
    const y = Array.from({ length: 156 }, (_, t) => 100 + 40 * Math.sin((2 * Math.PI * t) / 52) + 2 * gaussian(r));
    const out = detectOutliers(y, { method: 'hampel' });
    const peaks = [13, 65, 117];
    for (const p of peaks) for (let i = p - 4; i <= p + 4; i++) expect(out.flags[i]).toBe(0);
  });

  test('with a period, a sharp peak recurring every season is kept while a one-off spike is still flagged', () => {
    const r = prng(3);
    const y = Array.from({ length: 156 }, () => 100 + 3 * gaussian(r));
    for (const p of [47, 99, 151]) y[p] += 80; // one promotion week a year
    y[70] += 60; // a one-off
    const plain = flagged(detectOutliers(y, { method: 'hampel' }).flags);
    expect(plain).toEqual(expect.arrayContaining([47, 70, 99, 151]));
    const seasonal = flagged(detectOutliers(y, { method: 'hampel', period: 52 }).flags);
    expect(seasonal).toContain(70);
    expect(seasonal).toEqual(plain.filter((i) => ![47, 99, 151].includes(i)));
  });

  test('a lone spike in an otherwise flat series is flagged (zero MAD falls back to a global scale)', () => {
    const y = new Array(30).fill(5);
    y[12] = 9;
    const out = detectOutliers(y, { method: 'hampel' });
    expect(flagged(out.flags)).toEqual([12]);
    expect(out.corrected[12]).toBe(5);
    expect(Number.isFinite(out.outliers[0].score)).toBe(true);
  });
});

describe('iqr', () => {
  test('hand-checked Tukey fences (type-7 quartiles)', () => {
    // Q1 = 3.25, Q3 = 7.75, IQR = 4.5, fences -3.5 and 14.5
    const y = [1, 2, 3, 4, 5, 6, 7, 8, 9, 100];
    const out = detectOutliers(y, { method: 'iqr' });
    expect(flagged(out.flags)).toEqual([9]);
    expect(out.outliers[0]).toEqual({ index: 9, value: 100, corrected: 14.5, score: (100 - 7.75) / 4.5 });
    const med = detectOutliers(y, { method: 'iqr', correction: 'median' });
    expect(med.corrected[9]).toBe(5.5);
    // 14.5 sits on the fence: not an outlier; 14.6 is
    expect(flagged(detectOutliers([1, 2, 3, 4, 5, 6, 7, 8, 9, 14.5], { method: 'iqr' }).flags)).toEqual([]);
  });

  test('a low outlier is clipped to the lower fence', () => {
    // sorted 0, 20..28: Q1 = 21.25, Q3 = 25.75, IQR = 4.5, lower fence 14.5
    const y = [20, 21, 22, 23, 24, 25, 26, 27, 28, 0];
    const out = detectOutliers(y, { method: 'iqr' });
    expect(flagged(out.flags)).toEqual([9]);
    expect(out.corrected[9]).toBe(14.5);
    expect(out.outliers[0].score).toBeCloseTo(21.25 / 4.5, 12);
  });

  test('a custom threshold widens the fences', () => {
    const y = [1, 2, 3, 4, 5, 6, 7, 8, 9, 30];
    expect(flagged(detectOutliers(y, { method: 'iqr' }).flags)).toEqual([9]); // (30 - 7.75) / 4.5 = 4.9
    expect(flagged(detectOutliers(y, { method: 'iqr', threshold: 5 }).flags)).toEqual([]);
  });
});

describe('common rules', () => {
  test('no flags on a constant series', () => {
    for (const method of ['hampel', 'iqr'] as const) {
      const out = detectOutliers(new Array(52).fill(42), { method });
      expect(out.outliers).toEqual([]);
      expect([...out.corrected]).toEqual(new Array(52).fill(42));
    }
  });

  test('intermittent: zeros are never flagged, non-zero sizes are judged against each other', () => {
    const r = prng(5);
    const y = Array.from({ length: 104 }, () => (r() < 0.15 ? 8 + Math.round(4 * r()) : 0));
    const big = y.findIndex((v, i) => i > 50 && v > 0);
    y[big] = 80;
    for (const method of ['hampel', 'iqr'] as const) {
      for (const intermittent of [true, undefined]) {
        const out = detectOutliers(y, { method, intermittent });
        expect(flagged(out.flags)).toEqual([big]);
        y.forEach((v, i) => { if (v === 0) expect(out.corrected[i]).toBe(0); });
        expect(out.corrected[big]).toBeGreaterThan(0);
        expect(out.corrected[big]).toBeLessThan(80);
      }
    }
    // treated as a regular series, IQR would call every demand an outlier (Q1 = Q3 = 0 → fallback scale)
    expect(detectOutliers(y, { method: 'iqr', intermittent: false }).outliers.length).toBeGreaterThan(10);
  });

  test('intermittent: small non-zero demands are not flagged (upward outliers only)', () => {
    const y = [0, 50, 0, 0, 52, 0, 1, 0, 0, 49, 0, 51, 0, 0, 50, 0, 48, 0];
    for (const method of ['hampel', 'iqr'] as const) {
      expect(detectOutliers(y, { method, intermittent: true }).outliers).toEqual([]);
    }
  });

  test('NaN is kept and never flagged; none copies the input', () => {
    const y = [10, 11, NaN, 9, 10, 12, 10, 60, 11, 10, 9, 10];
    const out = detectOutliers(y, { method: 'hampel', window: 3 });
    expect(flagged(out.flags)).toEqual([7]);
    expect(Number.isNaN(out.corrected[2])).toBe(true);
    const none = detectOutliers(y, { method: 'none' });
    expect(none.outliers).toEqual([]);
    expect(none.corrected).not.toBe(y);
    expect([...none.corrected].slice(3)).toEqual(y.slice(3));
  });

  test('never produces negative corrections for non-negative input', () => {
    for (let seed = 1; seed <= 30; seed++) {
      const r = prng(seed);
      const y = Array.from({ length: 60 }, () => (r() < 0.1 ? 200 * r() : r() < 0.3 ? 0 : 20 * r()));
      for (const method of ['hampel', 'iqr'] as const) {
        for (const correction of ['median', 'clip'] as const) {
          const out = detectOutliers(y, { method, correction });
          for (const v of out.corrected) expect(v).toBeGreaterThanOrEqual(0);
        }
      }
    }
  });

  test('rejects bad options', () => {
    expect(() => detectOutliers([1, 2, 3, 4], { method: 'hampel', window: 0 })).toThrow(RangeError);
    expect(() => detectOutliers([1, 2, 3, 4], { method: 'iqr', threshold: -1 })).toThrow(RangeError);
    expect(() => detectOutliers([1, 2, 3, 4], { method: 'zscore' as never })).toThrow(RangeError);
  });
});
