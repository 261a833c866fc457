import { assistantChartSpec, compareKpiSpec, exchangeCurveRows, fillRateHeatmapSpec } from '../../web/src/lib/charts';
import { bySeverity, daysFrom, formatDelta, formatDuration, formatQty, formatScore, formatShare, worstSeverity } from '../../web/src/lib/format';
import { temporalRunUrl } from '../../web/src/lib/links';
import { may, mayDo, segmentLimited, visibleSegments, type Caller } from '../../web/src/lib/permissions';
import { alertsQuery, exceptionLogQuery, filtersFromSearch, pageCount, pageRange, searchFromFilters, withFilter } from '../../web/src/lib/queueQuery';
import { SseParser } from '../../web/src/lib/sse';
import { authorizeUrl, readCallback, type SsoAttempt, type SsoProvider } from '../../web/src/lib/sso';
import { skuChartRows, skuChartSpec, targetRules } from '../../web/src/lib/skuChart';
import { liftInlineData } from '../../web/src/lib/vegaData';

const admin: Caller = { role: 'admin' };
const viewer: Caller = { role: 'user', allowed_segments: [2, 5] };
const runner: Caller = { role: 'user', can_run_process: true };
const overrider: Caller = { role: 'user', can_create_override: true };

describe('permissions as the API has them', () => {
  test('each permission against each kind of user', () => {
    const table = (['user', 'admin', 'superadmin', 'run_process', 'create_override'] as const).map((p) => [p, may(admin, p), may(viewer, p), may(runner, p), may(overrider, p), may({ role: 'superadmin', is_superadmin: true }, p)]);
    expect(table).toEqual([
      ['user', true, true, true, true, true],
      ['admin', true, false, false, false, true],
      ['superadmin', false, false, false, false, true],
      ['run_process', true, false, true, false, true],
      ['create_override', true, false, false, true, true],
    ]);
    expect(may(null, 'user')).toBe(false);
    expect(may(null, 'public')).toBe(true);
  });

  test('actions follow their route: a plain user may close exceptions but not start runs or correct demand', () => {
    expect([mayDo(viewer, 'setExceptionStatus'), mayDo(viewer, 'startRun'), mayDo(viewer, 'freeze'), mayDo(viewer, 'adjustDemand')]).toEqual([true, false, false, false]);
    expect([mayDo(runner, 'startRun'), mayDo(runner, 'adjustDemand'), mayDo(overrider, 'adjustDemand'), mayDo(overrider, 'killJob')]).toEqual([true, false, true, false]);
  });

  test('a user limited to segments sees only those; admins and unlimited users see all', () => {
    const segments = [{ id: 1 }, { id: 2 }, { id: 5 }, { id: 9 }];
    expect(visibleSegments(viewer, segments).map((s) => s.id)).toEqual([2, 5]);
    expect(visibleSegments(runner, segments).map((s) => s.id)).toEqual([1, 2, 5, 9]);
    expect(visibleSegments({ role: 'admin', allowed_segments: [2] }, segments).map((s) => s.id)).toEqual([1, 2, 5, 9]);
    expect([segmentLimited(viewer), segmentLimited(runner)]).toEqual([true, false]);
  });
});

describe('formatting', () => {
  test('quantities, shares, deltas and durations', () => {
    expect([formatQty(1234.56), formatQty(12.345), formatQty(null), formatQty(Number.NaN)]).toEqual(['1,235', '12.3', '–', '–']);
    expect([formatScore(0.012345), formatScore(1.75), formatScore(12345.6), formatScore(null)]).toEqual(['0.0123', '1.75', '12,346', '–']);
    expect([formatShare(0.9512), formatShare(1), formatShare(undefined)]).toEqual(['95.1 %', '100.0 %', '–']);
    expect([formatDelta(12.5), formatDelta(-300), formatDelta(0)]).toEqual(['+12.5', '−300', '±0']);
    expect([formatDuration('2026-01-05T10:00:00Z', '2026-01-05T10:00:42Z'), formatDuration('2026-01-05T10:00:00Z', '2026-01-05T10:03:05Z'), formatDuration(null, 'x')]).toEqual(['42 s', '3 min 5 s', '–']);
    expect(daysFrom(new Date('2026-02-26T23:30:00Z'), 7)).toBe('2026-03-05');
  });

  test('rows sort by their worst severity, ties keeping their order', () => {
    expect(worstSeverity([{ severity: 'low' }, { severity: 'high' }, { severity: 'medium' }])).toBe('high');
    expect(worstSeverity([])).toBe('low');
    const rows = [{ id: 1, s: 'low' }, { id: 2, s: 'high' }, { id: 3, s: 'critical' }, { id: 4, s: 'high' }, { id: 5, s: 'odd' }];
    expect(bySeverity(rows, (r) => r.s).map((r) => r.id)).toEqual([3, 2, 4, 1, 5]);
  });
});

describe('work-queue query', () => {
  test('URL to filters: unknown or malformed values fall back to defaults instead of reaching the API', () => {
    expect(filtersFromSearch('pipeline=3&segment=7&types=io,supply,bogus,io&status=snoozed&page=4&size=50'))
      .toEqual({ pipeline: 3, segment: 7, types: ['io', 'supply'], status: 'snoozed', page: 4, pageSize: 50 });
    expect(filtersFromSearch('pipeline=-1&segment=x&status=deleted&page=0&size=33'))
      .toEqual({ pipeline: null, segment: null, types: [], status: 'open', page: 1, pageSize: 25 });
  });

  test('filters to URL and back; only what differs from the defaults is written', () => {
    const f = { pipeline: 3, segment: null, types: ['forecast'], status: 'resolved' as const, page: 2, pageSize: 100 };
    expect(searchFromFilters(f)).toBe('pipeline=3&types=forecast&status=resolved&page=2&size=100');
    expect(filtersFromSearch(searchFromFilters(f))).toEqual(f);
    expect(searchFromFilters(filtersFromSearch(''))).toBe('');
  });

  test('changing a filter starts again at page 1', () => {
    const f = filtersFromSearch('page=6&status=open');
    expect(withFilter(f, { segment: 4 })).toMatchObject({ segment: 4, page: 1 });
  });

  test('the exception log and the alerts get their own parameter names', () => {
    const f = filtersFromSearch('segment=7&types=io,supply&status=snoozed&page=2&size=50');
    expect(exceptionLogQuery(f, 9)).toEqual({ pipeline_id: 9, status: 'snoozed', page: 2, page_size: 50, segment_id: 7, types: 'io,supply' });
    expect(exceptionLogQuery(filtersFromSearch(''), 9)).toEqual({ pipeline_id: 9, status: 'open', page: 1, page_size: 25 });
    expect(alertsQuery(f, 9)).toEqual({ pipeline_id: 9, status: 'approved', page: 1, page_size: 10, segment_id: 7 });
    expect(alertsQuery(filtersFromSearch(''), 9).status).toBe('open');
  });

  test('pages', () => {
    expect([pageCount(0, 25), pageCount(25, 25), pageCount(26, 25)]).toEqual([1, 1, 2]);
    expect([pageRange(3, 20, 230), pageRange(12, 20, 230), pageRange(1, 25, 0)]).toEqual(['41–60 of 230', '221–230 of 230', 'none']);
  });
});

test('the SSE parser splits events across chunks, joins data lines and skips comments', () => {
  const p = new SseParser();
  expect(p.push('retry: 3000\n\n: keep-alive\n\nid: 7\nevent: log\ndata: {"id":7,')).toEqual([]);
  expect(p.push('"message":"a"}\n\nevent: end\r\ndata: {"status":"completed"}\r\n\r\ndata: one\ndata: two\n\n')).toEqual([
    { event: 'log', data: '{"id":7,"message":"a"}', id: '7' },
    { event: 'end', data: '{"status":"completed"}' },
    { event: 'message', data: 'one\ntwo' },
  ]);
});

test('the Temporal UI link of a job', () => {
  expect(temporalRunUrl('run-all-ab/12', { protocol: 'http:', hostname: 'localhost' })).toBe('http://localhost:8233/namespaces/default/workflows/run-all-ab%2F12');
  expect(temporalRunUrl('j1', { protocol: 'https:', hostname: 'x', base: 'https://temporal.example/ui/', namespace: 'prod' })).toBe('https://temporal.example/ui/namespaces/prod/workflows/j1');
});

describe('SKU-site chart', () => {
  const input = {
    rows: [
      { ds: '2026-01-05', series: 'history', value: 10, lower: null, upper: null },
      { ds: '2026-01-12', series: 'history', value: 40, lower: null, upper: null },
      { ds: '2026-01-19', series: 'forecast: ETS', value: 12, lower: 8, upper: 16 },
    ],
    outliers: [{ ds: '2026-01-12', y: 40, corrected_y: 14 }],
    targets: { reorder_point: 30, safety_stock: 11.5, order_up_to: null },
    inventory: [{ week_start: '2026-01-19T00:00:00Z', projected: 55 }, { week_start: '2026-01-26', projected: 43 }],
    orders: [
      { arrival_date: '2026-01-26', qty: 20, is_firm: false },
      { arrival_date: '2026-01-26', qty: 5, is_firm: false },
      { arrival_date: '2026-01-26', qty: 7, is_firm: true },
    ],
    backtest: [{ ds: '2026-01-12', method: 'Naive', value: 10 }],
  };

  test('one long table of what is drawn: planned orders of a week summed, firm apart, dates as days', () => {
    const rows = skuChartRows(input);
    expect(rows.map((r) => [r.layer, r.series, r.ds, r.value])).toEqual([
      ['demand', 'history', '2026-01-05', 10],
      ['demand', 'history', '2026-01-12', 40],
      ['demand', 'forecast: ETS', '2026-01-19', 12],
      ['outlier', 'outlier', '2026-01-12', 40],
      ['backtest', 'backtest: Naive', '2026-01-12', 10],
      ['stock', 'projected stock', '2026-01-19', 55],
      ['stock', 'projected stock', '2026-01-26', 43],
      ['order', 'planned orders', '2026-01-26', 25],
      ['order', 'firm orders', '2026-01-26', 7],
    ]);
  });

  test('targets without a value draw no rule; the spec has a layer per kind of mark', () => {
    expect(targetRules(input.targets)).toEqual([{ target: 'safety stock', value: 11.5 }, { target: 'reorder point', value: 30 }]);
    expect(targetRules(null)).toEqual([]);
    const spec = skuChartSpec(input) as { layer: Array<{ name: string; mark: { type: string } }>; data: { values: unknown[] } };
    expect(spec.layer.map((l) => [l.name, l.mark.type])).toEqual([['interval', 'area'], ['orders', 'bar'], ['lines', 'line'], ['outliers', 'point'], ['targets', 'rule']]);
    expect(spec.data.values).toHaveLength(9);
    expect((skuChartSpec({ ...input, targets: null }) as { layer: unknown[] }).layer).toHaveLength(4);
  });

  test("two SKU-sites' charts of the same layers share one shape: only their lifted rows differ", () => {
    const a = liftInlineData(skuChartSpec(input));
    const b = liftInlineData(skuChartSpec({ ...input, rows: input.rows.slice(0, 1), orders: [], targets: { reorder_point: 3, safety_stock: 1, order_up_to: 9 } }));
    expect(a.key).toBe(b.key);
    expect(Object.keys(a.datasets)).toEqual(['inline_0', 'inline_1']);
    expect([a.datasets.inline_0.length, b.datasets.inline_0.length]).toEqual([9, 5]);
    expect(b.datasets.inline_1).toEqual([{ target: 'safety stock', value: 1 }, { target: 'reorder point', value: 3 }, { target: 'order-up-to', value: 9 }]);
    const shape = a.shape as { data: unknown; layer: Array<{ data?: unknown }> };
    expect([shape.data, shape.layer[4].data]).toEqual([{ name: 'inline_0' }, { name: 'inline_1' }]);
    // without target rules the chart has a layer less: another shape, compiled apart
    expect(liftInlineData(skuChartSpec({ ...input, targets: null })).key).not.toBe(a.key);
  });
});

describe('page charts', () => {
  test('exchange curve: the items with the largest investment, each with its curve', () => {
    const groups = [
      { item_xuid: 'A', investment: 100, curve: [{ investment: 50, fill_rate: 0.8 }, { investment: 100, fill_rate: 0.95 }] },
      { item_xuid: 'B', investment: 300, curve: [{ investment: 300, fill_rate: 0.9 }] },
      { item_xuid: 'C', investment: 10, curve: [] },
      { item_xuid: 'D', investment: 5, curve: [{ investment: 5, fill_rate: 0.99 }] },
    ];
    expect(exchangeCurveRows(groups, 2)).toEqual([
      { item: 'B', investment: 300, fill_rate: 0.9 },
      { item: 'A', investment: 50, fill_rate: 0.8 },
      { item: 'A', investment: 100, fill_rate: 0.95 },
    ]);
  });

  test('heatmap leaves out cells without a fill rate', () => {
    const spec = fillRateHeatmapSpec([
      { segment_name: 'A', site_xuid: 'S1', fill_rate: 0.9, target_service: 0.95, sku_sites: 3, below_target: 1 },
      { segment_name: 'A', site_xuid: 'S2', fill_rate: null, target_service: null, sku_sites: 0, below_target: 0 },
    ]) as { data: { values: Array<{ site_xuid: string }> } };
    expect(spec.data.values.map((v) => v.site_xuid)).toEqual(['S1']);
  });

  test('KPI comparison: base and target bars per metric, a missing side left out', () => {
    const spec = compareKpiSpec([{ metric: 'fill_rate', base: 0.9, target: 0.92, delta: 0.02 }, { metric: 'forecast_mase', base: null, target: 0.8, delta: null }], '2026-01-05', 'live plan') as { data: { values: unknown[] } };
    expect(spec.data.values).toEqual([
      { metric: 'fill_rate', version: '2026-01-05', value: 0.9 },
      { metric: 'fill_rate', version: 'live plan', value: 0.92 },
      { metric: 'forecast_mase', version: 'live plan', value: 0.8 },
    ]);
  });

  test("the assistant's chart hint: a line over dates, bars over names, nothing for a table or a figure", () => {
    const rows = [{ week: '2026-01-05', qty: 3, value: '7.5' }, { week: '2026-01-12', qty: 4, value: 'x' }];
    const line = assistantChartSpec({ type: 'line', x_col: 'week', y_cols: ['qty'], title: 'Qty' }, rows) as { data: { values: unknown[] }; encoding: { x: { type: string } } };
    expect(line.encoding.x.type).toBe('temporal');
    expect(line.data.values).toEqual([{ x: '2026-01-05', measure: 'qty', value: 3 }, { x: '2026-01-12', measure: 'qty', value: 4 }]);
    const bars = assistantChartSpec({ type: 'bar', x_col: 'site', y_cols: ['n', 'm'], title: 'n' }, [{ site: 'S1', n: 2, m: 1 }]) as { encoding: { x: { type: string }; color?: unknown } };
    expect([bars.encoding.x.type, bars.encoding.color !== undefined]).toEqual(['nominal', true]);
    expect(assistantChartSpec({ type: 'table', x_col: 'week', y_cols: ['qty'], title: '' }, rows)).toBeNull();
    expect(assistantChartSpec({ type: 'kpi', x_col: null, y_cols: ['qty'], title: '' }, rows)).toBeNull();
    expect(assistantChartSpec({ type: 'line', x_col: 'week', y_cols: ['qty'], title: '' }, [])).toBeNull();
  });
});

describe('single sign-on (implicit grant)', () => {
  const google: SsoProvider = { id: 'google', label: 'Sign in with Google', authorize_url: 'https://idp.example/o/auth?hd=example.com', client_id: 'cid', response_type: 'id_token', scope: 'openid email profile' };
  const attempt: SsoAttempt = { provider: 'google', response_type: 'id_token', state: 'st-1', nonce: 'n-1' };
  const jwt = (claims: object) => `h.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.sig`;

  test("the authorize URL carries the provider's own parameters and ours", () => {
    const url = new URL(authorizeUrl(google, 'http://localhost:8002/app/sso/callback', attempt));
    expect(url.origin + url.pathname).toBe('https://idp.example/o/auth');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      hd: 'example.com', client_id: 'cid', response_type: 'id_token', redirect_uri: 'http://localhost:8002/app/sso/callback',
      scope: 'openid email profile', response_mode: 'fragment', state: 'st-1', nonce: 'n-1',
    });
  });

  test('an answer is taken only with the state and nonce of the attempt this tab started', () => {
    const good = jwt({ email: 'a@b.c', nonce: 'n-1', name: 'Zoë' });
    expect(readCallback(`#id_token=${good}&state=st-1`, attempt)).toEqual({ ok: true, provider: 'google', token: good });
    const refusals = [
      readCallback(`#id_token=${good}&state=other`, attempt),
      readCallback(`#id_token=${good}`, attempt),
      readCallback(`#id_token=${jwt({ nonce: 'old' })}&state=st-1`, attempt),
      readCallback('#id_token=not-a-jwt&state=st-1', attempt),
      readCallback('#access_token=abc&state=st-1', attempt),
      readCallback(`#id_token=${good}&state=st-1`, null),
      readCallback('#error=access_denied&error_description=the%20user%20declined&state=st-1', attempt),
    ];
    expect(refusals.map((r) => (r.ok ? 'taken' : r.reason))).toEqual([
      'The answer does not belong to the sign-in started here: start again.',
      'The answer does not belong to the sign-in started here: start again.',
      'The ID token was not issued for this sign-in: start again.',
      'The ID token was not issued for this sign-in: start again.',
      'The provider sent no token.',
      'No sign-in was started in this tab: start again from the sign-in page.',
      'The provider refused the sign-in: the user declined',
    ]);
    // Microsoft's access token is opaque: no nonce to compare, the API asks the provider
    expect(readCallback('#access_token=ms-1&token_type=Bearer&state=s', { provider: 'microsoft', response_type: 'token', state: 's', nonce: 'n' })).toEqual({ ok: true, provider: 'microsoft', token: 'ms-1' });
  });
});
