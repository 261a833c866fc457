/**
 * What the browser tests share: a build of the workbench of their own, Debian's Chromium driven by playwright-core,
 * axe-core run inside the page, and a record of every request the page makes.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

const ROOT = path.resolve(__dirname, '../..');
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const SCREENSHOTS = path.join(ROOT, 'docs/workbench');

/** `npm run web:build` into a temporary folder, in a child process (Vite is ESM-only, jest on Node 20 is not). */
export async function buildIntoTemp(): Promise<string> {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'workbench-'));
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'scripts/webBuild.ts'), '--out', out], { cwd: ROOT, env: { ...process.env, NODE_ENV: 'production' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`web build failed (${code}):\n${output}`))));
  });
  return out;
}

export async function launchBrowser(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: install Debian's chromium package (scripts/ensure-chromium.sh) or set CHROMIUM_PATH`);
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
}

export interface AxeViolation { id: string; impact: string | null; help: string; nodes: Array<{ target: string[] }> }

const AXE_SOURCE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's WCAG 2 A/AA rules on the page as it is; the serious and critical findings, named with their elements. */
export async function seriousA11yProblems(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const r = await (window as unknown as { axe: { run: (ctx: unknown, o: unknown) => Promise<{ violations: AxeViolation[] }> } }).axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`);
}

/**
 * The pictures of docs/WORKBENCH.md, taken when WORKBENCH_SCREENSHOTS=1 (`npm run docs:screenshots`): encoding them
 * cost every test run a few CPU seconds and left the clone's docs changed.
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  if (process.env.WORKBENCH_SCREENSHOTS !== '1') return;
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: false });
}

/**
 * Reads until `ok` holds or the time is up, and returns the last value read: the caller asserts on it, so a timeout
 * fails with what the page actually showed.
 */
export async function settle<T>(read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  let v = await read();
  while (!ok(v) && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 250));
    v = await read();
  }
  return v;
}
