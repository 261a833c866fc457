/**
 * The workbench in a real browser (Debian's Chromium through playwright-core) against the real stack: the API on
 * real PostgreSQL serving a build of the app made here, a Temporal worker on this file's own task queue, a demo
 * tenant seeded the way the start command seeds one (import staging, etl, then the forecasting steps through
 * supply as one job), and the assistant's model played by a local fake. Each page is checked by axe-core and
 * photographed for docs/WORKBENCH.md.
 */
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { setTenantParameter } from '../../db/parameters';
import { sql, withTenant } from '../../db/pool';
import { seedDemoData, startDemoForecast, waitForDemoJob } from '../../scripts/demoData/seed';
import { startFakeProviders, type FakeProviders } from '../support/fakeIdentityProviders';
import { startFakeModel, type FakeModel } from '../support/fakeModel';
import { okBody } from '../support/jobs';
import { startTestWorker, type TestWorker } from '../support/temporal';
import { startTestApp, type TestApp, type TestTenant } from '../support/testApp';
import { buildIntoTemp, launchBrowser, screenshot, seriousA11yProblems, settle } from './browserKit';

jest.setTimeout(180_000);

let dist: string;
let tw: TestWorker;
let t: TestApp;
let tenant: TestTenant;
let pipelineId: number;
let token: string;
let base: string;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let model: FakeModel;
let idp: FakeProviders;
const requests: string[] = [];
const consoleErrors: string[] = [];
const distBefore = process.env.WEB_DIST_DIR;
/** reads a SKU-site may not have yet (no outliers found, no causal results): their 404 is shown as "none" */
const MAY_BE_MISSING = /^\/api\/(series\/[^/]+\/(outliers|best-method|method-explanation)|forecasts\/[^/]+\/origins|causal\/results)$/;

const api = async (method: string, path: string, opts: { body?: unknown; query?: Record<string, unknown> } = {}) => okBody(await t.call(method, path, { token, ...opts }));

beforeAll(async () => {
  [dist, tw, model, idp] = await Promise.all([
    buildIntoTemp(),
    startTestWorker(),
    // the assistant's prompt carries the schema (TABLE …) and gets SQL; the method explanation gets a sentence
    startFakeModel((call) => (!call.messages[0]?.content.includes('TABLE ') ? 'The combination of methods had the lowest error over the backtest.' : JSON.stringify({
      sql: 'SELECT s.xuid AS site, count(*)::int AS series FROM series_weekly w JOIN sites s ON s.id = w.site_id GROUP BY s.xuid ORDER BY s.xuid',
      explanation: 'Weekly demand rows per site.',
      chart: { type: 'bar', x_col: 'site', y_cols: ['series'], title: 'Rows per site' },
    }))),
    startFakeProviders('workbench-google-client', 'workbench-microsoft-client'),
  ]);
  process.env.WEB_DIST_DIR = dist;
  t = await startTestApp({
    temporal: { client: tw.client, taskQueue: tw.taskQueue },
    sso: {
      microsoftProfileUrl: idp.microsoftProfileUrl, microsoftClientId: 'workbench-microsoft-client', microsoftAuthorizeUrl: idp.microsoftAuthorizeUrl,
      googleJwksUrl: idp.googleJwksUrl, googleClientId: 'workbench-google-client', googleAuthorizeUrl: idp.googleAuthorizeUrl,
    },
  });
  tenant = await t.newTenant('workbench');
  const temporal = { client: tw.client, taskQueue: tw.taskQueue };
  const seeded = await seedDemoData(t.db, temporal, tenant.accountId, { seed: 42, items: 12, sites: 4, seriesTarget: 24 }, 'test', 300_000);
  pipelineId = seeded.pipelineId;
  const forecast = await waitForDemoJob(t.db, tenant.accountId, await startDemoForecast(t.db, temporal, tenant.accountId, pipelineId), 400_000);
  if (forecast.status !== 'completed') throw new Error(`demo forecast ${forecast.status}: ${forecast.error}`);
  await withTenant(t.db, tenant.accountId, async (tx) => {
    await setTenantParameter(tx, 'llm', 'base_url', model.url);
    await setTenantParameter(tx, 'llm', 'model', 'tiny-test-model');
    await setTenantParameter(tx, 'llm', 'api_key', 'sk-test');
  });
  token = await t.login(tenant.planner);
  base = `http://127.0.0.1:${(t.server.address() as AddressInfo).port}`;
  browser = await launchBrowser();
  context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  page = await context.newPage();
  page.on('request', (r) => requests.push(r.url()));
  // the browser logs every answer >= 400 as "Failed to load resource"; those are judged by their URL below instead
  page.on('console', (m) => m.type() === 'error' && !m.text().startsWith('Failed to load resource') && consoleErrors.push(m.text()));
  page.on('response', (r) => r.status() >= 400 && !MAY_BE_MISSING.test(new URL(r.url()).pathname) && consoleErrors.push(`HTTP ${r.status()} ${r.request().method()} ${r.url()}`));
  page.on('pageerror', (e) => consoleErrors.push(e.message));
}, 900_000);

afterEach(async () => {
  // what the page said when a test failed: its console errors are the first clue
  if (consoleErrors.length) process.stderr.write(`browser console errors so far:\n${consoleErrors.join('\n')}\n`);
  if (process.env.WORKBENCH_DEBUG) fs.appendFileSync(process.env.WORKBENCH_DEBUG, `${expect.getState().currentTestName}\n${page?.url()}\n${(await page?.locator('body').innerText().catch(() => '')).slice(0, 600)}\n\n`);
});

afterAll(async () => {
  await browser?.close();
  await t?.close();
  await tw?.close();
  await model?.close();
  await idp?.close();
  if (distBefore === undefined) delete process.env.WEB_DIST_DIR;
  else process.env.WEB_DIST_DIR = distBefore;
  if (dist) fs.rmSync(dist, { recursive: true, force: true });
});

async function signIn(p: Page, user: { email: string; password: string }): Promise<void> {
  await p.goto(`${base}/app/`);
  await p.waitForURL(/\/app\/login$/);
  await p.getByLabel('E-mail').fill(user.email);
  await p.getByLabel('Password').fill(user.password);
  await p.getByRole('button', { name: 'Sign in', exact: true }).click();
  await p.waitForURL(/\/app\/queue/);
}

async function expectAccessible(name: string): Promise<void> {
  expect(await seriousA11yProblems(page)).toEqual([]);
  await screenshot(page, name);
}

test('sign in: the login page is accessible, the token lands in sessionStorage and never in a URL', async () => {
  await page.goto(`${base}/app/queue`);
  await page.waitForURL(/\/app\/login$/);
  expect(await seriousA11yProblems(page)).toEqual([]);
  await screenshot(page, 'login');
  await signIn(page, tenant.planner);
  const stored = await page.evaluate(() => JSON.parse(sessionStorage.getItem('workbench.session') ?? 'null'));
  expect(stored.user.email).toBe(tenant.planner.email);
  expect(stored.token.split('.')).toHaveLength(3);
  expect(requests.some((u) => u.includes(stored.token))).toBe(false);
});

test('the work queue shows the exception log and alerts of the demo pipeline; closing a row takes it out', async () => {
  const log = await api('get', '/api/exception-log', { query: { pipeline_id: pipelineId, status: 'open', page: 1, page_size: 25 } });
  expect(log.total).toBeGreaterThan(0);
  const rows = page.locator('[data-testid=exception-table] tbody tr[data-exception-id]');
  expect(await settle(() => rows.count(), (n) => n === Math.min(25, log.total))).toBe(Math.min(25, log.total));
  expect((await rows.evaluateAll((trs) => trs.map((tr) => Number(tr.getAttribute('data-exception-id'))))).sort()).toEqual(log.items.map((r: any) => r.id).sort());
  await expectAccessible('queue');

  const victim = log.items[0];
  const row = page.locator(`tr[data-exception-id="${victim.id}"]`);
  await row.getByRole('button', { name: /^Close: / }).click();
  await row.waitFor({ state: 'detached', timeout: 30_000 });
  const after = await api('get', '/api/exception-log', { query: { pipeline_id: pipelineId, status: 'resolved', page: 1, page_size: 100 } });
  expect(after.items.map((r: any) => r.id)).toContain(victim.id);
  expect((await api('get', '/api/exception-log', { query: { pipeline_id: pipelineId, status: 'open', page: 1, page_size: 1 } })).total).toBe(log.total - 1);
});

test("a row's comments: add one, then close the row with another; both listed with their author, the row gone", async () => {
  const id = Number(await page.locator('[data-testid=exception-table] tbody tr[data-exception-id]').first().getAttribute('data-exception-id'));
  const row = page.locator(`tr[data-exception-id="${id}"]`);
  await row.getByRole('button', { name: /^Comments: / }).click();
  const detail = page.locator(`tr[data-detail-of="${id}"]`);
  await detail.getByText('No comments yet.').waitFor();
  await detail.getByLabel('Comment', { exact: true }).fill('Promotion ends next week; the forecast catches up.');
  await detail.getByRole('button', { name: 'Add comment' }).click();
  const items = detail.locator('[data-testid=exception-comments] li');
  expect(await settle(() => items.count(), (n) => n === 1)).toBe(1);
  expect(await items.first().textContent()).toContain(`${tenant.planner.email}Promotion ends next week`);
  // still in the queue: a comment alone changes no status
  expect(await row.locator('td').nth(4).textContent()).toBe('open');
  await expectAccessible('queue-comments');

  await detail.getByLabel('Comment', { exact: true }).fill('Checked with the buyer: closed.');
  await detail.getByRole('button', { name: 'Close with comment' }).click();
  await row.waitFor({ state: 'detached', timeout: 30_000 });
  const comments = await api('get', `/api/exception-log/${id}/comments`);
  expect(comments.map((c: any) => [c.author, c.comment, c.status])).toEqual([
    [tenant.planner.email, 'Promotion ends next week; the forecast catches up.', null],
    [tenant.planner.email, 'Checked with the buyer: closed.', 'resolved'],
  ]);
  const resolved = await api('get', '/api/exception-log', { query: { pipeline_id: pipelineId, status: 'resolved', page: 1, page_size: 100 } });
  expect(resolved.items.map((r: any) => r.id)).toContain(id);
});

/** The SKU-site chart on the page against the API's numbers: one mark per point, bar, line and rule it should draw. */
async function expectChartFromApi(uid: string): Promise<void> {
  await page.waitForURL(new RegExp(`/app/sku/${encodeURIComponent(uid).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
  const chart = page.locator('[data-testid=sku-chart]');
  await chart.and(page.locator('[data-state=drawn]')).waitFor({ timeout: 60_000 });

  const spec = await api('get', `/api/series/${encodeURIComponent(uid)}/vega-spec`, { query: { pipeline_id: pipelineId } });
  const outliers = await t.call('get', `/api/series/${encodeURIComponent(uid)}/outliers`, { token, query: { pipeline_id: pipelineId } });
  const outlierPoints = outliers.status === 200 ? outliers.body.points.length : 0;
  const demandWithValue = spec.data.values.filter((r: any) => r.value !== null);
  expect(demandWithValue.length).toBeGreaterThan(50);
  // the outliers layer: one diamond per outlier the API reports
  expect(await chart.locator('g.outliers_marks path').count()).toBe(outlierPoints);
  // the lines layer draws one path per series: history, corrected history, the forecast, projected stock
  const lineSeries = new Set(demandWithValue.map((r: any) => r.series));
  const key = await api('get', `/api/adjustments/${encodeURIComponent(uid)}`);
  const supplyScenario = (await api('get', '/api/supply/scenarios')).find((s: any) => s.is_default);
  const inventory = await api('get', '/api/supply/inventory', { query: { pipeline_id: pipelineId, scenario_id: supplyScenario.id, item_id: key.item_id, site_id: key.site_id, limit: 60 } });
  if (inventory.length) lineSeries.add('projected stock');
  expect(await chart.locator('g.lines_marks path').count()).toBe(lineSeries.size);
  // the orders layer: one bar per arrival week and kind (planned, firm)
  const orders = await api('get', '/api/supply/orders', { query: { pipeline_id: pipelineId, scenario_id: supplyScenario.id, item_id: key.item_id, site_id: key.site_id, include_firm: true, limit: 200 } });
  const bars = new Set(orders.map((o: any) => `${o.arrival_date.slice(0, 10)}|${o.is_firm}`));
  expect(await chart.locator('g.orders_marks path').count()).toBe(bars.size);
  // the MEIO targets as rules, and the same numbers in the side panel
  const meio = (await api('get', '/api/meio/scenarios')).find((s: any) => s.is_default);
  const [target] = await api('get', `/api/meio/scenarios/${meio.id}/results`, { query: { pipeline_id: pipelineId, level: 'sku', item_id: key.item_id, site_id: key.site_id } });
  const ruleCount = target ? ['reorder_point', 'safety_stock', 'order_up_to'].filter((k) => typeof target[k] === 'number').length : 0;
  expect(await chart.locator('g.targets_marks line, g.targets_marks path').count()).toBe(ruleCount);
  if (target) {
    const rop = new Intl.NumberFormat('en-GB', { maximumFractionDigits: target.reorder_point >= 100 ? 0 : 1 }).format(target.reorder_point);
    expect(await settle(async () => (await page.locator('[data-testid=targets]').textContent()) ?? '', (s) => s.includes(rop))).toContain(`Reorder point${rop}`);
  }
  const best = await t.call('get', `/api/series/${encodeURIComponent(uid)}/best-method`, { token, query: { pipeline_id: pipelineId } });
  if (best.status === 200) expect(await settle(() => page.locator('[data-testid=ranking] li').count(), (n) => n === best.body.ranking.length)).toBe(best.body.ranking.length);
}

test("a row opens its SKU-site, whose chart draws its marks from the API's numbers", async () => {
  const first = page.locator('[data-testid=exception-table] tbody tr[data-exception-id]').first();
  const uid = (await first.getAttribute('data-unique-id'))!;
  await first.getByRole('link').first().click();
  await expectChartFromApi(uid);
  // a planner with can_create_override gets the correction form
  expect(await settle(() => page.getByRole('button', { name: 'Save correction' }).count(), (n) => n === 1)).toBe(1);
  await expectAccessible('sku-site');

  // the next SKU-site reuses the chart compiled for the first one's shape, with its own rows
  await page.getByRole('link', { name: '← Work queue' }).click();
  const second = page.locator('[data-testid=exception-table] tbody tr[data-exception-id]').nth(1);
  const other = (await second.getAttribute('data-unique-id'))!;
  expect(other).not.toBe(uid);
  await second.getByRole('link').first().click();
  await expectChartFromApi(other);
});

test('runs: start a step, follow its live log and see it complete; kill and the Temporal link are offered', async () => {
  await page.getByRole('link', { name: 'Runs' }).click();
  await page.getByLabel('What to run').selectOption('outlier');
  await page.getByRole('button', { name: /^Start on / }).click();
  const status = page.locator('[data-testid=job-status]');
  const read = () => status.textContent({ timeout: 1000 }).catch(() => null);
  expect(await settle(read, (s) => ['completed', 'failed', 'killed'].includes(s ?? ''), 240_000)).toBe('completed');
  expect(await settle(() => page.locator('[data-testid=job-log] li').count(), (n) => n > 0)).toBeGreaterThan(0);
  const jobs = await api('get', '/api/pipeline/jobs', { query: { limit: 1 } });
  expect([jobs[0].step, jobs[0].status]).toEqual(['outlier', 'completed']);
  const link = page.locator(`tr[data-job-id="${jobs[0].job_id}"] a`);
  expect(await link.getAttribute('href')).toMatch(new RegExp(`:8233/namespaces/default/workflows/${jobs[0].job_id}$`));
  await expectAccessible('runs');
}, 300_000);

test('plan versions: freeze two weeks, compare them as a table and a chart, and see the next scheduled run', async () => {
  const effective = await api('get', '/api/history/planning-date', { query: { pipeline_id: pipelineId } });
  const earlier = new Date(Date.parse(effective.effective) - 7 * 86_400_000).toISOString().slice(0, 10);
  await api('put', '/api/history/planning-date', { body: { pipeline_id: pipelineId, planning_date: earlier } });
  await page.getByRole('link', { name: 'Plan versions' }).click();
  await page.getByLabel('Comment').fill('last week');
  await page.getByRole('button', { name: 'Freeze now' }).click();
  await page.getByRole('status').filter({ hasText: 'Frozen as' }).waitFor({ timeout: 180_000 });
  await api('put', '/api/history/planning-date', { body: { pipeline_id: pipelineId, planning_date: null } });
  await page.getByLabel('Comment').fill('this week');
  await page.getByRole('button', { name: 'Freeze now' }).click();
  expect(await settle(() => page.locator('[data-testid=version-table] tbody tr').count(), (n) => n === 2, 180_000)).toBe(2);

  const versions = await api('get', '/api/history/versions', { query: { pipeline_id: pipelineId } });
  expect(versions.map((v: any) => v.comment).sort()).toEqual(['last week', 'this week']);
  const older = versions.find((v: any) => v.comment === 'last week').archive_date;
  const newer = versions.find((v: any) => v.comment === 'this week').archive_date;
  await page.getByLabel('Base version').selectOption(older);
  await page.getByLabel('Compared version').selectOption(newer);
  const compare = await api('get', '/api/compare/versions', { query: { pipeline_id: pipelineId, base: older, target: newer, dimension: 'kpi' } });
  const table = page.locator('[data-testid=compare-table]');
  expect(await settle(() => table.locator('thead').textContent(), (s) => s === `KPI${older}${newer}Change`)).toBe(`KPI${older}${newer}Change`);
  expect(await table.locator('tbody tr td:first-child').allTextContents()).toEqual(compare.rows.map((r: any) => r.metric));
  const chart = page.locator('[data-testid=compare-chart]');
  await chart.and(page.locator('[data-state=drawn]')).waitFor({ timeout: 60_000 });
  const bars = compare.rows.reduce((n: number, r: any) => n + (typeof r.base === 'number' ? 1 : 0) + (typeof r.target === 'number' ? 1 : 0), 0);
  expect(await chart.locator('g.mark-rect.role-mark path').count()).toBe(bars);
  const schedule = await api('get', '/api/history/schedule', { query: { pipeline_id: pipelineId } });
  if (schedule.exists) expect(await page.locator('[data-testid=next-run]').textContent()).toContain(schedule.next_runs[0].replace('T', ' ').slice(0, 19));
  await expectAccessible('versions');
}, 420_000);

test('inventory: the exchange curve of the default MEIO scenario and the fill-rate heatmap', async () => {
  await page.getByRole('link', { name: 'Inventory' }).click();
  const meio = (await api('get', '/api/meio/scenarios')).find((s: any) => s.is_default);
  const heat = await api('get', '/api/meio/fr-heatmap', { query: { pipeline_id: pipelineId, scenario_id: meio.id } });
  const cells = heat.cells.filter((c: any) => c.fill_rate !== null).length;
  expect(cells).toBeGreaterThan(0);
  const heatmap = page.locator('[data-testid=heatmap-chart]');
  await heatmap.and(page.locator('[data-state=drawn]')).waitFor({ timeout: 60_000 });
  expect(await heatmap.locator('g.mark-rect.role-mark path').count()).toBe(cells);
  await page.locator('[data-testid=exchange-chart][data-state=drawn]').waitFor({ timeout: 60_000 });
  await expectAccessible('inventory');
});

test('assistant: the question, the SQL it ran, the table and the chart', async () => {
  await page.getByRole('link', { name: 'Assistant' }).click();
  await page.getByLabel('Question about the plan').fill('how many weekly rows per site?');
  await page.getByRole('button', { name: 'Ask' }).click();
  await page.locator('[data-testid=answer]').waitFor({ timeout: 60_000 });
  expect(await page.locator('[data-testid=answer-sql]').textContent()).toContain('FROM series_weekly w JOIN sites s');
  const rows = page.locator('[data-testid=answer-table] tbody tr');
  const sites = await withTenant(t.db, tenant.accountId, (tx) => tx.anyFirst(sql.unsafe`SELECT DISTINCT s.xuid FROM series_weekly w JOIN sites s ON s.id = w.site_id ORDER BY 1`));
  expect(await rows.locator('td:first-child').allTextContents()).toEqual(sites);
  const chart = page.locator('[data-testid=answer-chart]');
  await chart.and(page.locator('[data-state=drawn]')).waitFor({ timeout: 60_000 });
  expect(await chart.locator('g.mark-rect.role-mark path').count()).toBe(sites.length);
  expect(model.calls.at(-1)!.messages.at(-1)!.content).toBe('how many weekly rows per site?');
  await expectAccessible('assistant');
});

test('single sign-on: the buttons the server offers, a round trip through each provider\'s authorize endpoint, our token only in the header', async () => {
  const admin = await t.login(tenant.admin);
  for (const [email, provider] of [['ms.planner@contoso.example', 'microsoft'], ['g.planner@example.org', 'google']]) {
    expect((await t.call('post', '/api/auth/users', { token: admin, body: { email, name: email, auth_provider: provider } })).status).toBe(201);
  }
  idp.signInAs.microsoft = { mail: 'MS.Planner@contoso.example', displayName: 'MS Planner' };
  idp.signInAs.google = { email: 'g.planner@example.org', name: 'G Planner' };
  const other = await context.browser()!.newContext({ viewport: { width: 1280, height: 800 } });
  const p = await other.newPage();
  const seen: string[] = [];
  p.on('request', (r) => seen.push(r.url()));
  try {
    await p.goto(`${base}/app/login`);
    const sso = p.getByRole('region', { name: 'Single sign-on' });
    await sso.waitFor();
    expect(await sso.getByRole('button').allTextContents()).toEqual(['Sign in with Microsoft', 'Sign in with Google']);
    // the login page itself loads nothing from the provider: no script, font or image of theirs
    expect(seen.filter((u) => !u.startsWith(base) && !u.startsWith('data:'))).toEqual([]);

    for (const [button, email, provider] of [['Sign in with Microsoft', 'ms.planner@contoso.example', 'microsoft'], ['Sign in with Google', 'g.planner@example.org', 'google']] as const) {
      await p.getByRole('button', { name: button }).click();
      await p.waitForURL(/\/app\/queue$/, { timeout: 30_000 });
      const asked = idp.authorizeRequests.at(-1)!;
      expect([asked.provider, asked.params.redirect_uri, asked.params.response_mode]).toEqual([provider, `${base}/app/sso/callback`, 'fragment']);
      // the provider's token was in the callback's fragment only for a moment: the address bar no longer holds it
      expect(new URL(p.url()).hash).toBe('');
      const stored = await p.evaluate(() => JSON.parse(sessionStorage.getItem('workbench.session') ?? 'null'));
      expect([stored.user.email, (await t.call('get', '/api/auth/me', { token: stored.token })).body.auth_provider]).toEqual([email, provider]);
      expect(await p.evaluate(() => sessionStorage.getItem('workbench.sso'))).toBeNull();
      expect(seen.some((u) => u.includes(stored.token))).toBe(false);
      await p.locator('[data-testid=exception-table]').waitFor({ timeout: 30_000 });
      await p.getByRole('button', { name: 'Sign out' }).click();
      await p.waitForURL(/\/app\/login$/);
    }
    await screenshot(p, 'login-sso');

    // a provider that says no: the callback says why and offers the way back, nobody is signed in
    delete idp.signInAs.google;
    await p.getByRole('button', { name: 'Sign in with Google' }).click();
    await p.getByRole('alert').filter({ hasText: 'The provider refused the sign-in: the user declined' }).waitFor({ timeout: 30_000 });
    expect(await p.evaluate(() => sessionStorage.getItem('workbench.session'))).toBeNull();
    expect(await seriousA11yProblems(p)).toEqual([]);
    // an answer this tab did not ask for (another state) is refused before the API sees it
    const before = idp.authorizeRequests.length;
    await p.goto(`${base}/app/login`);
    await p.goto(`${base}/app/sso/callback#access_token=ms-forged&state=not-ours`);
    await p.getByRole('alert').filter({ hasText: 'No sign-in was started in this tab' }).waitFor();
    const posts = seen.filter((u) => u.endsWith('/api/auth/microsoft') || u.endsWith('/api/auth/google')).length;
    expect(posts).toBe(2);
    expect(idp.authorizeRequests.length).toBe(before);
  } finally {
    await other.close();
  }
});

test('a user without run or override permissions is not offered them; a tablet width needs no sideways scroll', async () => {
  const viewer = await t.addUser(tenant.accountId, { role: 'user' });
  const other = await context.browser()!.newContext({ viewport: { width: 768, height: 1024 } });
  const p = await other.newPage();
  try {
    await signIn(p, viewer);
    await p.locator('[data-testid=exception-table]').waitFor({ timeout: 30_000 });
    expect(await p.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(768);
    await p.getByRole('link', { name: 'Runs' }).click();
    await p.getByText('Starting runs needs the run permission').waitFor();
    expect(await p.getByRole('button', { name: /^Start on / }).count()).toBe(0);
    await p.getByRole('link', { name: 'Plan versions' }).click();
    await p.getByRole('heading', { name: /Plan versions of/ }).waitFor();
    expect(await p.getByRole('button', { name: 'Freeze now' }).count()).toBe(0);
    await screenshot(p, 'tablet-versions');
  } finally {
    await other.close();
  }
});

test('sign out revokes the token; nothing the app loaded came from another host, and the console stayed clean', async () => {
  const stored = await page.evaluate(() => JSON.parse(sessionStorage.getItem('workbench.session')!));
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.waitForURL(/\/app\/login$/);
  expect(await page.evaluate(() => sessionStorage.getItem('workbench.session'))).toBeNull();
  expect((await t.call('get', '/api/auth/me', { token: stored.token })).status).toBe(401);
  const foreign = requests.filter((u) => !u.startsWith(base) && !u.startsWith('data:') && !u.startsWith('blob:'));
  expect(foreign).toEqual([]);
  expect(consoleErrors).toEqual([]);
});
