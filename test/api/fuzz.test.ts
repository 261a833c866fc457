import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { logger } from '../../lib/logger';
import { ensureSchemathesis, runProcess, SCHEMATHESIS_VERSION } from '../support/schemathesis';
import { seedForecastReads } from '../support/forecastReadsSeed';
import { startTestApp, type TestApp } from '../support/testApp';

/**
 * Schema-driven fuzz: schemathesis reads /openapi.json, so every route that lands is fuzzed without being listed
 * here, and sends valid and invalid values for every parameter and body (boundaries, NUL, huge numbers, wrong
 * types, unknown methods). The only property checked is that nothing answers 5xx: validation, the database and
 * the handlers must turn any input into a 2xx or a 4xx.
 *
 * The test app has no Temporal connection, so routes that start or kill jobs answer 503 "Job service unavailable"
 * by design (api/jobs/service.ts requireTemporal); that 503, and the cache-loading one, are the only 5xx allowed.
 */
const MAX_EXAMPLES = Number(process.env.FUZZ_MAX_EXAMPLES ?? 6);
const SEED = process.env.FUZZ_SEED ?? '20260518';
const DESIGNED_503 = /^(Job service unavailable|The data cache is loading)/;

/** Operations that would end or replace the fuzzer's own session. */
const EXCLUDED_PATHS = ['/api/auth/logout', '/api/auth/switch-account'];

// A custom check instead of the built-in not_a_server_error, which has no way to tell a designed 503 from a crash.
const HOOKS = `
import json
import re
import schemathesis

DESIGNED_503 = re.compile(${JSON.stringify(DESIGNED_503.source)})


@schemathesis.check
def no_server_error(ctx, response, case):
    if response.status_code < 500:
        return None
    detail = ""
    try:
        detail = str(json.loads(response.text or "{}").get("detail", ""))
    except Exception:
        pass
    if response.status_code == 503 and DESIGNED_503.search(detail):
        return None
    raise AssertionError(f"{case.method} {case.formatted_path} answered {response.status_code}: {response.text[:300]}")
`;

let t: TestApp;
let token: string;
let st: string;
let work: string;
let savedLevel: string;
beforeAll(async () => {
  st = await ensureSchemathesis();
  t = await startTestApp();
  const tenant = await t.newTenant('fuzz');
  token = await t.login(tenant.admin);
  await seed(tenant.accountId);
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'planning-fuzz-'));
  fs.writeFileSync(path.join(work, 'fuzz_hooks.py'), HOOKS);
  savedLevel = logger.level;
}, 300_000);

/**
 * Ids start at 1 in a fresh tenant schema and the fuzzer favours boundary values, so one row of each resource (and
 * series 1_1, 2_1, 3_1 with stored results) lets the generated requests reach past "404 not found".
 */
async function seed(accountId: string): Promise<void> {
  await seedForecastReads(t.db, accountId);
  const post = async (p: string, body: unknown) => {
    const res = await t.call('post', p, { token, body });
    if (res.status !== 201) throw new Error(`seeding ${p}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.id as number;
  };
  const scenario = await post('/api/forecast/scenarios', { name: 'Baseline', is_baseline: true });
  const segment = await post('/api/segments', { name: 'Bread', rules: [{ field: 'item_xuid', operator: '=', value: 'I2' }] });
  await post('/api/scenario-pipeline', { name: 'Main', forecast_scenario_id: scenario, segment_ids: [segment] });
  await post('/api/calendars', { name: 'Plant', entries: [{ ds: '2026-01-05', factor: 0.5 }] });
  await post('/api/abc/configurations', { name: 'Value' });
}

afterAll(async () => {
  // PUT /api/log-level is fuzzed too
  logger.level = savedLevel;
  if (work) fs.rmSync(work, { recursive: true, force: true });
  await t?.close();
});

test(`no operation of /openapi.json answers 5xx (schemathesis ${SCHEMATHESIS_VERSION})`, async () => {
  const { port } = t.server.address() as AddressInfo;
  // Event streams never end a response by themselves; they have their own tests.
  const streams = t.table.routes.filter((r) => r.eventStream).map((r) => r.path);
  const excluded = [...EXCLUDED_PATHS, ...streams];
  const args = [
    'run', `http://127.0.0.1:${port}/openapi.json`,
    '--header', `Authorization: Bearer ${token}`,
    '--checks', 'no_server_error',
    '--max-examples', String(MAX_EXAMPLES),
    '--seed', SEED,
    '--workers', '2',
    '--request-timeout', '30',
    '--suppress-health-check', 'all',
    '--no-color',
    // no example database: it would land in the clone and make runs depend on earlier ones
    '--generation-database', 'none',
    ...excluded.flatMap((p) => ['--exclude-path', p]),
  ];
  // run in the scratch directory: schemathesis writes its reports and caches relative to it
  const res = await runProcess(st, args, { cwd: work, env: { ...process.env, SCHEMATHESIS_HOOKS: 'fuzz_hooks', PYTHONPATH: work, NO_COLOR: '1' } });
  if (process.env.FUZZ_OUTPUT) fs.writeFileSync(process.env.FUZZ_OUTPUT, res.output);
  const summary = res.output.split('\n').filter((l) => /selected|generated|Seed/i.test(l)).join('\n');
  process.stdout.write(`schemathesis: ${(res.ms / 1000).toFixed(0)} s, exit ${res.code}\n${summary}\n`);
  if (res.code !== 0) {
    const start = res.output.search(/=+ FAILURES =+|=+ ERRORS =+/);
    throw new Error(`schemathesis found problems (seed ${SEED}, excluded ${excluded.join(', ')}):\n${(start >= 0 ? res.output.slice(start) : res.output).slice(0, 60_000)}`);
  }
  expect(res.output).toMatch(/operations/i);
  // over 300 operations × MAX_EXAMPLES on two workers: 7–11 minutes on this machine, more when it is shared
}, 1_500_000);
