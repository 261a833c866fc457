import { consume, directionOf } from '../../../domain/netting/consume';

// Every expected figure below is worked out by hand from the rule in domain/netting/consume.ts: own bucket, then
// backward nearest first, then forward nearest first; demand buckets in calendar order.

test('backward: demand beyond its own bucket eats the earlier buckets, nearest first', () => {
  // week 2 orders 250 against 100 a week: 100 of its own, then 100 of week 1, then 50 of week 0
  const c = consume([100, 100, 100, 100], [0, 0, 250, 0], { backward: 2, forward: 0 });
  expect(c.consumed).toEqual([50, 100, 100, 0]);
  expect(c.netted).toEqual([50, 0, 0, 100]);
  expect(c.over).toEqual([0, 0, 0, 0]);
  expect(c.allocations).toEqual([{ demand: 2, forecast: 2, qty: 100 }, { demand: 2, forecast: 1, qty: 100 }, { demand: 2, forecast: 0, qty: 50 }]);
  expect([c.same, c.backward, c.forward, c.direction]).toEqual([100, 150, 0, 'backward']);
});

test('backward reach stops at B buckets: nearer ones first, the rest is over-consumed', () => {
  // 80 in week 3 with B = 2: 30 own, 30 of week 2, 20 of week 1; week 0 is out of reach and keeps its 30
  const c = consume([30, 30, 30, 30], [0, 0, 0, 80], { backward: 2, forward: 0 });
  expect(c.consumed).toEqual([0, 20, 30, 30]);
  expect(c.netted).toEqual([30, 10, 0, 0]);
  expect(c.over).toEqual([0, 0, 0, 0]);
  // with B = 1 only week 2 is in reach: 30 own + 30 of week 2, 20 over
  const short = consume([30, 30, 30, 30], [0, 0, 0, 80], { backward: 1, forward: 0 });
  expect(short.netted).toEqual([30, 30, 0, 0]);
  expect(short.over).toEqual([0, 0, 0, 20]);
});

test('forward: demand beyond its own bucket eats the later buckets', () => {
  // 150 in week 0: 100 own, 50 of week 1
  const c = consume([100, 100, 100, 100], [150, 0, 0, 0], { backward: 0, forward: 2 });
  expect(c.consumed).toEqual([100, 50, 0, 0]);
  expect(c.netted).toEqual([0, 50, 100, 100]);
  expect(c.over).toEqual([0, 0, 0, 0]);
  expect([c.same, c.backward, c.forward, c.direction]).toEqual([100, 0, 50, 'forward']);
});

test('both: backward is exhausted before forward is touched', () => {
  // 120 in week 1 against 50 a week, B = F = 1: 50 own, 50 of week 0 (backward), 20 of week 2 (forward)
  const c = consume([50, 50, 50, 50], [0, 120, 0, 0], { backward: 1, forward: 1 });
  expect(c.consumed).toEqual([50, 50, 20, 0]);
  expect(c.netted).toEqual([0, 0, 30, 50]);
  expect(c.allocations.map((a) => a.forecast)).toEqual([1, 0, 2]);
  expect([c.same, c.backward, c.forward, c.direction]).toEqual([50, 50, 20, 'both']);
  // backward first even when forward could cover it all: 150 in week 1 takes 50 of week 0, never week 2
  const first = consume([100, 100, 100], [0, 150, 0], { backward: 1, forward: 1 });
  expect(first.netted).toEqual([50, 0, 100]);
  expect(first.direction).toBe('backward');
});

test('demand buckets go in calendar order: a later bucket finds what earlier ones left', () => {
  // week 0: 10 own, 5 of week 1 (forward). week 1: the 5 left of its own, nothing left in week 0, 10 of week 2
  const c = consume([10, 10, 10], [15, 15, 0], { backward: 1, forward: 1 });
  expect(c.consumed).toEqual([10, 10, 10]);
  expect(c.netted).toEqual([0, 0, 0]);
  expect(c.over).toEqual([0, 0, 0]);
  expect(c.allocations).toEqual([
    { demand: 0, forecast: 0, qty: 10 }, { demand: 0, forecast: 1, qty: 5 },
    { demand: 1, forecast: 1, qty: 5 }, { demand: 1, forecast: 2, qty: 10 },
  ]);
  expect([c.backward, c.forward, c.direction]).toEqual([0, 15, 'forward']);
});

test('over-consumption: actuals beyond the forecast inside the window stay with their own bucket', () => {
  // 50 in the last week, B = F = 1: 10 own, 10 of week 2; there is no week 4, so 30 are over-consumed
  const c = consume([10, 10, 10, 10], [0, 0, 0, 50], { backward: 1, forward: 1 });
  expect(c.consumed).toEqual([0, 0, 10, 10]);
  expect(c.netted).toEqual([10, 10, 0, 0]);
  expect(c.over).toEqual([0, 0, 0, 30]);
  // the window is clipped at the start as well: week 0 cannot look back into history
  const early = consume([10, 10], [25, 0], { backward: 3, forward: 0 });
  expect([early.consumed, early.over]).toEqual([[10, 0], [15, 0]]);
});

test('zero forecast: every order is over-consumption, nothing is consumed, no direction', () => {
  const c = consume([0, 0, 0, 0], [5, 0, 0, 3], { backward: 2, forward: 2 });
  expect(c.consumed).toEqual([0, 0, 0, 0]);
  expect(c.netted).toEqual([0, 0, 0, 0]);
  expect(c.over).toEqual([5, 0, 0, 3]);
  expect(c.allocations).toEqual([]);
  expect([c.same, c.backward, c.forward, c.direction]).toEqual([0, 0, 0, 'none']);
});

test('a window of (0, 0) consumes within the bucket only, and own-bucket consumption has no direction', () => {
  const c = consume([10, 10, 10], [4, 25, 0], { backward: 0, forward: 0 });
  expect(c.consumed).toEqual([4, 10, 0]);
  expect(c.netted).toEqual([6, 0, 10]);
  expect(c.over).toEqual([0, 15, 0]);
  expect(c.direction).toBe('none');
});

test('missing, NaN and negative quantities count as nothing', () => {
  const c = consume([null, Number.NaN, -5, 8], [3, null, -2, 2], { backward: 0, forward: 3 });
  // week 0 has no forecast of its own: its 3 go forward past the empty weeks 1 and 2 to week 3
  expect(c.consumed).toEqual([0, 0, 0, 5]);
  expect(c.netted).toEqual([0, 0, 0, 3]);
  expect(c.over).toEqual([0, 0, 0, 0]);
});

test('integers reconcile exactly: forecast = consumed + netted per bucket, demand = consumed + over in total', () => {
  let seed = 12345;
  const next = (m: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % m;
  };
  for (let run = 0; run < 200; run += 1) {
    const n = 1 + next(12);
    const forecast = Array.from({ length: n }, () => next(5000));
    const demand = Array.from({ length: n }, () => (next(3) === 0 ? 0 : next(9000)));
    const c = consume(forecast, demand, { backward: next(4), forward: next(4) });
    forecast.forEach((f, i) => expect(c.consumed[i] + c.netted[i]).toBe(f));
    const total = (xs: number[]) => xs.reduce((s, x) => s + x, 0);
    expect(total(c.consumed) + total(c.over)).toBe(total(demand));
    expect(total(forecast) - total(c.consumed)).toBe(total(c.netted));
    expect(c.same + c.backward + c.forward).toBe(total(c.consumed));
    expect(c.netted.every((x) => x >= 0) && c.over.every((x) => x >= 0)).toBe(true);
  }
});

test('bad shapes are refused', () => {
  expect(() => consume([1, 2], [1], { backward: 0, forward: 0 })).toThrow(RangeError);
  expect(() => consume([1], [1], { backward: -1, forward: 0 })).toThrow(/window.backward/);
  expect(() => consume([1], [1], { backward: 0, forward: 1.5 })).toThrow(/window.forward/);
});

test('directionOf names the way consumption moved', () => {
  expect([directionOf(0, 0), directionOf(1, 0), directionOf(0, 1), directionOf(2, 3)]).toEqual(['none', 'backward', 'forward', 'both']);
});
