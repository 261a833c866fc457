import { chooseChart } from '../../../domain/assistant/chart';

const t = 'title';

test('rule 3: the hint wins when its columns exist, else the result decides', () => {
  const rows = [{ site: 'A', qty: 1 }, { site: 'B', qty: 2 }];
  expect(chooseChart(['site', 'qty'], rows, { type: 'line', x_col: 'site', y_cols: ['qty'], title: 'Mine' }, t)).toEqual({ type: 'line', x_col: 'site', y_cols: ['qty'], title: 'Mine' });
  // a hint naming a missing column is ignored
  expect(chooseChart(['site', 'qty'], rows, { type: 'line', x_col: 'week', y_cols: ['qty'] }, t).type).toBe('bar');
  expect(chooseChart(['site', 'qty'], rows, { type: 'pie', x_col: 'site', y_cols: ['qty'] }, t).type).toBe('bar');
});

test('rule 3: 0 rows none, 1 row kpi, date + numeric line', () => {
  expect(chooseChart(['a'], [], null, t)).toEqual({ type: 'none', x_col: null, y_cols: [], title: t });
  expect(chooseChart(['n', 'label'], [{ n: 4, label: 'x' }], null, t)).toEqual({ type: 'kpi', x_col: null, y_cols: ['n'], title: t });
  const weeks = [{ week: '2026-01-05', forecast: 3, method: 'ets' }, { week: '2026-01-12', forecast: 4, method: 'ets' }];
  expect(chooseChart(['week', 'forecast', 'method'], weeks, null, t)).toEqual({ type: 'line', x_col: 'week', y_cols: ['forecast'], title: t });
});

test('rule 3: category + one numeric ≤ 30 rows bar, + two numerics bar_stacked, else table', () => {
  const mk = (n: number, cols = 1) => Array.from({ length: n }, (_, i) => ({ c: `c${i}`, v1: i, ...(cols > 1 ? { v2: i * 2 } : {}) }));
  expect(chooseChart(['c', 'v1'], mk(30), null, t)).toEqual({ type: 'bar', x_col: 'c', y_cols: ['v1'], title: t });
  expect(chooseChart(['c', 'v1'], mk(31), null, t).type).toBe('table');
  expect(chooseChart(['c', 'v1', 'v2'], mk(5, 2), null, t)).toEqual({ type: 'bar_stacked', x_col: 'c', y_cols: ['v1', 'v2'], title: t });
  expect(chooseChart(['c', 'v1', 'v2'], mk(31, 2), null, t).type).toBe('table');
  expect(chooseChart(['a', 'b'], [{ a: 'x', b: 'y' }, { a: 'z', b: 'w' }], null, t).type).toBe('table');
  expect(chooseChart(['v1', 'v2'], [{ v1: 1, v2: 2 }, { v1: 3, v2: 4 }], null, t).type).toBe('table');
});
