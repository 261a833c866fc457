import { sql, withTenant } from '../../db/pool';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';

/**
 * Comments on exception-log rows (migration 037; an extra beyond the spec for the workbench's work queue) over HTTP on
 * real PostgreSQL: `comment` on PATCH /api/exception-log/{id}/status, GET and POST /api/exception-log/{id}/comments.
 * Two rows of one pipeline: A@S outside the segment South, B@S in it; a user limited to South may comment only on B.
 */

let t: TestApp;
let a: TestTenant;
let planner: string;
let limited: string;
let pipelineId: number;
const row: { A: number; B: number } = { A: 0, B: 0 };

const q = (fn: (tx: any) => Promise<any>): Promise<any> => withTenant(t.db, a.accountId, fn);
const comments = async (id: number, token = planner) => t.call('get', `/api/exception-log/${id}/comments`, { token });
const patch = (id: number, body: unknown, token = planner) => t.call('patch', `/api/exception-log/${id}/status`, { token, body });
const post = (id: number, body: unknown, token = planner) => t.call('post', `/api/exception-log/${id}/comments`, { token, body });
const stored = () => q((tx) => tx.any(sql.unsafe`SELECT exception_id::int, author, comment, status FROM exception_comment ORDER BY id`));
const statusOf = (id: number) => q((tx) => tx.oneFirst(sql.unsafe`SELECT status FROM exception_log WHERE id = ${id}`));

beforeAll(async () => {
  t = await startTestApp();
  a = await t.newTenant('exception-comments');
  planner = await t.login(a.planner);
  const south = await q(async (tx) => {
    const [itemA, itemB] = (await tx.anyFirst(sql.unsafe`INSERT INTO items (xuid, name) VALUES ('A', 'Item A'), ('B', 'Item B') RETURNING id`)) as number[];
    const site = (await tx.oneFirst(sql.unsafe`INSERT INTO sites (xuid, name) VALUES ('S', 'Site S') RETURNING id`)) as number;
    await tx.query(sql.unsafe`INSERT INTO series (item_id, site_id) VALUES (${itemA}, ${site}), (${itemB}, ${site})`);
    const scenario = (await tx.oneFirst(sql.unsafe`INSERT INTO forecast_scenarios (name, is_baseline) VALUES ('Baseline', true) RETURNING id`)) as number;
    pipelineId = (await tx.oneFirst(sql.unsafe`INSERT INTO scenario_pipelines (name, forecast_scenario_id, is_active) VALUES ('comments', ${scenario}, true) RETURNING id`)) as number;
    row.A = (await tx.oneFirst(sql.unsafe`INSERT INTO exception_log (pipeline_id, item_id, site_id, exception_types) VALUES (${pipelineId}, ${itemA}, ${site}, '{forecast}') RETURNING id`)) as number;
    row.B = (await tx.oneFirst(sql.unsafe`INSERT INTO exception_log (pipeline_id, item_id, site_id, exception_types) VALUES (${pipelineId}, ${itemB}, ${site}, '{supply}') RETURNING id`)) as number;
    const segment = (await tx.oneFirst(sql.unsafe`INSERT INTO segments (name) VALUES ('South') RETURNING id`)) as number;
    await tx.query(sql.unsafe`INSERT INTO segment_members (segment_id, item_id, site_id) VALUES (${segment}, ${itemB}, ${site})`);
    return segment;
  });
  limited = await t.login(await t.addUser(a.accountId, { allowed_segments: [south] }));
}, 120_000);
afterAll(() => t.close());

test('a status change with a comment, then a comment alone: the row keeps a history with author, status and time', async () => {
  const closed = await patch(row.A, { status: 'resolved', comment: 'Forecast looks fine after the promotion ended.' });
  expect([closed.status, closed.body.id, closed.body.status]).toEqual([200, row.A, 'resolved']);
  const added = await post(row.A, { comment: 'Checked with the buyer: no extra order — ça va.' });
  expect(added.status).toBe(201);
  expect([added.body.exception_id, added.body.author, added.body.comment, added.body.status]).toEqual([row.A, a.planner.email, 'Checked with the buyer: no extra order — ça va.', null]);
  // a comment alone leaves the row's status as it was
  expect(await statusOf(row.A)).toBe('resolved');

  const list = await comments(row.A);
  expect(list.status).toBe(200);
  expect(list.body.map((c: any) => [c.exception_id, c.author, c.comment, c.status])).toEqual([
    [row.A, a.planner.email, 'Forecast looks fine after the promotion ended.', 'resolved'],
    [row.A, a.planner.email, 'Checked with the buyer: no extra order — ça va.', null],
  ]);
  expect(list.body[1].id).toBe(added.body.id);
  expect(Date.parse(list.body[0].created_at)).toBeLessThanOrEqual(Date.parse(list.body[1].created_at));
  expect(Math.abs(Date.parse(list.body[1].created_at) - Date.now())).toBeLessThan(60_000);
  // the other row has none
  expect((await comments(row.B)).body).toEqual([]);

  const audit = await q((tx) => tx.any(sql.unsafe`SELECT entity_type, action, entity_id, new_value, outcome FROM audit_log
    WHERE entity_type IN ('exception_log', 'exception_comment') ORDER BY id`));
  expect(audit.map((r: any) => [r.entity_type, r.action, r.entity_id, r.outcome])).toEqual([
    ['exception_log', 'status', String(row.A), 'success'],
    ['exception_comment', 'create', String(added.body.id), 'success'],
  ]);
  expect(audit[0].new_value).toMatchObject({ status: 'resolved', comment_id: list.body[0].id, comment: 'Forecast looks fine after the promotion ended.' });
  expect(audit[1].new_value).toMatchObject({ exception_id: row.A, comment: 'Checked with the buyer: no extra order — ça va.' });

  // a status change without a comment adds nothing to the history
  expect((await patch(row.A, { status: 'open' })).status).toBe(200);
  expect((await comments(row.A)).body).toHaveLength(2);
});

test('bad comments are refused with a 400 naming the field, and change nothing', async () => {
  const before = await stored();
  const statusBefore = await statusOf(row.B);
  const cases: Array<[string, () => Promise<any>]> = [
    ['empty on PATCH', () => patch(row.B, { status: 'resolved', comment: '' })],
    ['only spaces on PATCH', () => patch(row.B, { status: 'resolved', comment: '   \n ' })],
    ['too long on PATCH', () => patch(row.B, { status: 'resolved', comment: 'x'.repeat(2001) })],
    ['a number on PATCH', () => patch(row.B, { status: 'resolved', comment: 42 })],
    ['empty on POST', () => post(row.B, { comment: '' })],
    ['too long on POST', () => post(row.B, { comment: 'é'.repeat(2001) })],
    ['null on POST', () => post(row.B, { comment: null })],
    ['missing on POST', () => post(row.B, {})],
    ['NUL on POST', () => post(row.B, { comment: 'a\u0000b' })],
  ];
  const answers = [];
  for (const [name, call] of cases) {
    const res = await call();
    answers.push([name, res.status, /comment/.test(res.body.detail ?? '')]);
  }
  expect(answers).toEqual(cases.map(([name]) => [name, 400, true]));
  expect(await stored()).toEqual(before);
  expect(await statusOf(row.B)).toBe(statusBefore);
  // 2,000 characters is the most
  const longest = await post(row.B, { comment: 'y'.repeat(2000) });
  expect([longest.status, longest.body.comment.length]).toEqual([201, 2000]);
});

test('an unknown row is a 404 naming exception_id; an unknown field is a 400', async () => {
  for (const res of [await comments(99_999_999), await post(99_999_999, { comment: 'hello' }), await patch(99_999_999, { status: 'open', comment: 'hello' })]) {
    expect([res.status, res.body.detail]).toEqual([404, 'exception_id: exception-log row 99999999 not found']);
  }
  const extra = await post(row.A, { comment: 'hello', author: 'someone else' });
  expect(extra.status).toBe(400);
  expect(extra.body.detail).toMatch(/author/);
  expect((await comments(row.A)).body.map((c: any) => c.comment)).not.toContain('hello');
});

test('a user limited to segments reads and writes comments only on rows of their series', async () => {
  const count = (await stored()).length;
  for (const res of [await comments(row.A, limited), await post(row.A, { comment: 'not mine' }, limited), await patch(row.A, { status: 'resolved', comment: 'not mine' }, limited)]) {
    expect(res.status).toBe(403);
    expect(res.body.detail).toMatch(/^Access to series \d+_\d+ denied/);
  }
  expect(await statusOf(row.A)).toBe('open');
  expect((await stored()).length).toBe(count);

  const mine = await patch(row.B, { status: 'snoozed', comment: 'Supplier confirmed the delivery for next week.' }, limited);
  expect([mine.status, mine.body.status]).toEqual([200, 'snoozed']);
  const list = await comments(row.B, limited);
  expect(list.body.at(-1)).toMatchObject({ comment: 'Supplier confirmed the delivery for next week.', status: 'snoozed', author: expect.stringContaining('@') });
  expect(list.body.at(-1).author).not.toBe(a.planner.email);
});

test('the comments go with their row', async () => {
  expect((await comments(row.B)).body.length).toBeGreaterThan(0);
  await q((tx) => tx.query(sql.unsafe`DELETE FROM exception_log WHERE id = ${row.B}`));
  expect(await q((tx) => tx.oneFirst(sql.unsafe`SELECT count(*)::int FROM exception_comment WHERE exception_id = ${row.B}`))).toBe(0);
  expect((await comments(row.B)).status).toBe(404);
});
