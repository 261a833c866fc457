import { hasStructuralZeros } from '../../../domain/characterization/characterize';
import { historyToFit } from '../../../domain/distribution/fitHistory';

describe('the history a demand distribution is fitted on', () => {
  const raw = Float64Array.from([0, 0, 5, 0, 0, 0, 40, 0, NaN, 0, 4, 0]);
  const clipped = Float64Array.from([0, 0, 5, 0, 0, 0, 6, 0, NaN, 0, 4, 0]);

  test('structural zeros: more than 1.32 open weeks per non-zero one; closed weeks do not count', () => {
    // 11 open weeks, 3 with demand: ADI 3.67
    expect(hasStructuralZeros(raw)).toBe(true);
    // 4 open weeks, 3 with demand: ADI 1.33 > 1.32; 4 with demand of 5: 1.25
    expect(hasStructuralZeros(Float64Array.from([1, 0, NaN, 2, 3]))).toBe(true);
    expect(hasStructuralZeros(Float64Array.from([1, 0, 2, 3, 4]))).toBe(false);
    expect(hasStructuralZeros(Float64Array.from([0, 0, NaN]))).toBe(false);
  });

  test('an intermittent or lumpy series keeps its large demands; a regular one takes the outlier step\'s correction', () => {
    expect(historyToFit(raw, clipped)).toBe(raw);
    const regular = Float64Array.from([5, 6, 200, 5, 4]);
    const corrected = Float64Array.from([5, 6, 5, 5, 4]);
    expect(historyToFit(regular, corrected)).toBe(corrected);
  });
});
