/**
 * The token check under concurrency (db/authLookup.ts): requests of one tenant share one statement, and each still
 * gets its own user, revocation and account, as current as when it arrived; and the whole-pipeline forecasts that the
 * API holds in memory (read as binary arrays, db/preparedReads.ts) answer what the database answers.
 */
import crypto from 'node:crypto';
import jwt from 'jsonwebtoken';
import { authLookup } from '../../db/authLookup';
import { sql, tenantSchemaName, withTenant } from '../../db/pool';
import { readEnv } from '../../lib/env';
import { startTestApp, type TestApp, type TestTenant, type TestUser } from '../support/testApp';

let t: TestApp;
let a: TestTenant;
let b: TestTenant;
beforeAll(async () => {
  t = await startTestApp();
  a = await t.newTenant('batch-a');
  b = await t.newTenant('batch-b');
});
afterAll(() => t.close());

const me = (token: string) => t.call('get', '/api/auth/me', { token });

/** Every request at once, so that several wait for the same statement. */
const wave = (tokens: string[]) => Promise.all(tokens.map(me));

test('concurrent requests of several users in two tenants each get their own user, and the same token many times over', async () => {
  const users: Array<{ tenant: TestTenant; user: TestUser; role: string; segments: number[]; token: string }> = [];
  for (const tenant of [a, b]) {
    for (const f of [{ role: 'admin' as const }, { can_run_process: true }, { allowed_segments: [7] }]) {
      const user = await t.addUser(tenant.accountId, f);
      users.push({ tenant, user, role: f.role ?? 'user', segments: f.allowed_segments ?? [], token: await t.login(user) });
    }
  }
  const asked = [...users, ...users, ...Array(10).fill(users[0])] as typeof users;
  const answers = await wave(asked.map((u) => u.token));
  expect(answers.map((r) => [r.status, r.body.id, r.body.email, r.body.role, r.body.account_id, r.body.account_name, r.body.allowed_segments])).toEqual(
    asked.map((u) => [200, String(u.user.id), u.user.email, u.role, u.tenant.accountId, u.tenant.name, u.segments]),
  );
});

test('what SQL from anywhere changed between two waves is seen by every request of the second: revocation, deactivation, role, account', async () => {
  const keep = await t.addUser(a.accountId);
  const revoked = await t.addUser(a.accountId);
  const deactivated = await t.addUser(a.accountId);
  const promoted = await t.addUser(a.accountId);
  const tokens = { keep: await t.login(keep), revoked: await t.login(revoked), deactivated: await t.login(deactivated), promoted: await t.login(promoted) };
  const order = [tokens.keep, tokens.revoked, tokens.deactivated, tokens.promoted, tokens.keep, tokens.revoked, tokens.deactivated, tokens.promoted];
  expect((await wave(order)).map((r) => r.status)).toEqual(order.map(() => 200));

  const jti = (token: string) => (jwt.decode(token) as { jti: string }).jti;
  await t.db.query(sql.unsafe`INSERT INTO master.revoked_tokens (jti, account_id, expires_at) VALUES (${jti(tokens.revoked)}::uuid, ${a.accountId}::uuid, now() + interval '1 hour')`);
  await withTenant(t.db, a.accountId, async (tx) => {
    await tx.query(sql.unsafe`UPDATE users SET is_active = false WHERE id = ${deactivated.id}`);
    await tx.query(sql.unsafe`UPDATE users SET role = 'admin', can_create_override = true WHERE id = ${promoted.id}`);
  });
  const after = await wave(order);
  expect(after.map((r) => [r.status, r.body.detail ?? r.body.role])).toEqual([
    [200, 'user'], [401, 'Token revoked'], [401, 'Invalid token: user deactivated'], [200, 'admin'],
    [200, 'user'], [401, 'Token revoked'], [401, 'Invalid token: user deactivated'], [200, 'admin'],
  ]);
  expect(after[3].body.can_create_override).toBe(true);

  // the account itself: deactivated, every token of it is refused at once
  const other = await t.newTenant('batch-gone');
  const otherTokens = [await t.login(other.admin), await t.login(other.planner)];
  expect((await wave([...otherTokens, ...otherTokens])).map((r) => r.status)).toEqual([200, 200, 200, 200]);
  await t.db.query(sql.unsafe`UPDATE master.accounts SET is_active = false WHERE id = ${other.accountId}`);
  expect((await wave([...otherTokens, tokens.keep, ...otherTokens])).map((r) => [r.status, r.body.detail ?? r.body.email])).toEqual([
    [401, 'Invalid token: account no longer exists'], [401, 'Invalid token: account no longer exists'], [200, keep.email],
    [401, 'Invalid token: account no longer exists'], [401, 'Invalid token: account no longer exists'],
  ]);
});

test('a tenant whose schema is gone answers 401 to every waiting request, revoked or not, and other tenants are not held up', async () => {
  const gone = await t.newTenant('batch-dropped');
  const [t1, t2] = [await t.login(gone.admin), await t.login(gone.planner)];
  await t.call('post', '/api/auth/logout', { token: t2 });
  await t.db.query(sql.unsafe`DELETE FROM master.accounts WHERE id = ${gone.accountId}`);
  await t.db.query(sql.unsafe`DROP SCHEMA ${sql.identifier([tenantSchemaName(gone.accountId)])} CASCADE`);
  const res = await wave([t1, t2, t1, await t.login(b.planner)]);
  expect(res.map((r) => [r.status, r.body.detail ?? r.body.email])).toEqual([
    [401, 'Invalid token: account no longer exists'], [401, 'Token revoked'], [401, 'Invalid token: account no longer exists'], [200, b.planner.email],
  ]);
});

test('requests joining one statement are answered each by its own row; a malformed token id fails only its own request', async () => {
  const databaseUrl = readEnv().databaseUrl!;
  const revokedJti = crypto.randomUUID();
  await t.db.query(sql.unsafe`INSERT INTO master.revoked_tokens (jti, account_id, expires_at) VALUES (${revokedJti}::uuid, ${a.accountId}::uuid, now() + interval '1 hour')`);
  // called in one turn of the event loop: they all wait for the same statement
  const calls = [
    authLookup(t.db, databaseUrl, { accountId: a.accountId, jti: crypto.randomUUID(), userId: a.admin.id }),
    authLookup(t.db, databaseUrl, { accountId: a.accountId, jti: revokedJti, userId: a.planner.id }),
    authLookup(t.db, databaseUrl, { accountId: a.accountId, jti: 'not-a-uuid-but-36-characters-long---', userId: a.planner.id }),
    authLookup(t.db, databaseUrl, { accountId: a.accountId, jti: crypto.randomUUID(), userId: 2147483 }),
    authLookup(t.db, databaseUrl, { accountId: a.accountId, jti: crypto.randomUUID(), userId: a.planner.id }),
  ];
  const settled = await Promise.allSettled(calls);
  const value = (i: number) => (settled[i] as PromiseFulfilledResult<Awaited<(typeof calls)[number]>>).value;
  expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
  expect([value(0).revoked, value(0).user?.email, value(0).account_name]).toEqual([false, a.admin.email, a.name]);
  expect([value(1).revoked, value(1).user?.email]).toEqual([true, a.planner.email]);
  expect([value(3).revoked, value(3).user, value(3).account_name]).toEqual([false, null, a.name]);
  expect([value(4).revoked, value(4).user?.email]).toEqual([false, a.planner.email]);
  expect(typeof value(0).data_version).toBe('number');
});

test("the pipeline's forecasts held in memory are the database's, nulls, infinities, extreme and empty arrays included", async () => {
  const token = await t.login(a.planner);
  const { uids, pipelineId } = await withTenant(t.db, a.accountId, async (tx) => {
    await tx.query(sql.unsafe`INSERT INTO items (xuid, name) VALUES ('BIN-1', 'Extremes'), ('BIN-2', 'Empty'), ('BIN-3', 'First read')`);
    await tx.query(sql.unsafe`INSERT INTO sites (xuid, name) VALUES ('BIN-S', 'DC')`);
    await tx.query(sql.unsafe`INSERT INTO series (item_id, site_id) SELECT i.id, s.id FROM items i, sites s WHERE i.xuid LIKE 'BIN-%'`);
    const p = (await tx.oneFirst(sql.unsafe`INSERT INTO scenario_pipelines (name, is_active, last_run_at) VALUES ('bin', true, now()) RETURNING id`)) as number;
    const of = (xuid: string) => sql.fragment`item_id = (SELECT id FROM items WHERE xuid = ${xuid})`;
    await tx.query(sql.unsafe`
      INSERT INTO forecast_results (pipeline_id, item_id, site_id, method, start_week, yhat, yhat_lower, yhat_upper, level)
      SELECT ${p}, item_id, site_id, 'croston', '2026-01-05',
        '{0.1, NULL, -2.5e-300, 1.7976931348623157e308, 123456789.123456789, 5e-324}', '{0, NULL, -3, 1, 2, -Infinity}', '{1, NULL, 0, Infinity, 3, NaN}', 0.8
      FROM series WHERE ${of('BIN-1')}`);
    await tx.query(sql.unsafe`
      INSERT INTO forecast_results (pipeline_id, item_id, site_id, method, start_week, yhat, yhat_lower, yhat_upper, level)
      SELECT ${p}, item_id, site_id, m, '2026-01-05', '{}', '{}', '{}', 0.95 FROM series, unnest(ARRAY['naive', 'ses']) m WHERE ${of('BIN-2')}`);
    await tx.query(sql.unsafe`
      INSERT INTO forecast_results (pipeline_id, item_id, site_id, method, start_week, yhat, yhat_lower, yhat_upper, level)
      SELECT ${p}, item_id, site_id, 'naive', '2026-01-05', '{1}', '{0}', '{2}', 0.9 FROM series WHERE ${of('BIN-3')}`);
    await tx.query(sql.unsafe`INSERT INTO series_best_method (pipeline_id, item_id, site_id, best_method, metric) SELECT ${p}, item_id, site_id, 'croston', 'mase' FROM series WHERE ${of('BIN-1')}`);
    await tx.query(sql.unsafe`INSERT INTO jobs (job_id, kind, step, pipeline_id, status, started_at, finished_at) VALUES ('bin-forecast', 'step', 'forecast', ${p}, 'completed', now(), now())`);
    const uid = async (xuid: string) => (await tx.oneFirst(sql.unsafe`SELECT item_id::text || '_' || site_id::text FROM series WHERE ${of(xuid)}`)) as string;
    return { uids: { extremes: await uid('BIN-1'), empty: await uid('BIN-2'), first: await uid('BIN-3') }, pipelineId: p };
  });
  // the first read of the version starts the load of the whole pipeline; the series read after it has loaded come from it
  expect((await t.call('get', `/api/forecasts/${uids.first}`, { token })).body.pipeline_id).toBe(pipelineId);
  const version = await withTenant(t.db, a.accountId, async (tx) => Number(await tx.oneFirst(sql.unsafe`SELECT version FROM data_version`)));
  await t.cache.reads.at(a.accountId, version)!.once(`forecastsLoaded:${pipelineId}`, () => Promise.reject(new Error('the first read did not start the load')));

  for (const uid of [uids.extremes, uids.empty]) {
    const fromMemory = await t.call('get', `/api/forecasts/${uid}`, { token });
    const fromDatabase = await t.call('get', `/api/forecasts/${uid}`, { token, query: { pipeline_id: pipelineId } });
    expect(fromMemory.status).toBe(200);
    expect(fromMemory.body).toEqual({ ...fromDatabase.body, scenario_id: null });
  }
  const extremes = (await t.call('get', `/api/forecasts/${uids.extremes}`, { token })).body;
  expect(extremes.forecasts.croston.map((p: { yhat: number | null }) => p.yhat)).toEqual([0.1, null, -2.5e-300, 1.7976931348623157e308, 123456789.123456789, 5e-324]);
  expect(extremes.forecasts.croston.map((p: { yhat_lower: number | null; yhat_upper: number | null }) => [p.yhat_lower, p.yhat_upper]).slice(3))
    .toEqual([[1, null], [2, 3], [null, null]]);
  expect(extremes.levels).toEqual({ croston: 0.8 });
  expect((await t.call('get', `/api/forecasts/${uids.empty}`, { token })).body.forecasts).toEqual({ naive: [], ses: [] });
});
