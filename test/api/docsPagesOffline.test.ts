/**
 * The docs pages load nothing from outside the machine. Their bundles still name hosts in strings that are never
 * fetched (JSON Schema $ids, XML namespaces, links in error texts and in the footer); every host a served page names
 * must be one of those, so a new asset URL in an upgraded bundle fails here.
 */
import fs from 'node:fs';
import path from 'node:path';
import { startTestApp, type TestApp } from '../support/testApp';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

/** Hosts that appear only as identifiers or as links a reader may follow, never as something the page loads. */
const NEVER_FETCHED = new Set([
  'json-schema.org', 'www.w3.org', 'raw.githubusercontent.com', // $ids of JSON Schema meta-schemas, XML namespaces
  'example.com', 'api.', // placeholders in ReDoc's examples and registry check
  'github.com', 'stackoverflow.com', 'reactjs.org', 'marked.js.org', 'git.io', 'fb.me', 'redux.js.org', 'redocly.com', 'swagger.io', // error texts, footer links
  'datatracker.ietf.org', 'www.rfc-editor.org', 'spec.openapis.org', 'spdx.org', 'vladimirgorej.com', 'base', // Swagger UI's references in texts
  'www.tiktok.com', 'twitter.com', 'instagram.com', 'www.facebook.com', 'soundcloud.com', // Swagger UI's URL-sanitiser tests of known hosts
]);

const hostsIn = (text: string) => new Set([...text.matchAll(/https?:\/\/([a-z0-9][a-z0-9.-]*)/gi)].map((m) => m[1]!.toLowerCase()));

test.each(['/redoc', '/docs'])('%s names no host it could fetch from', async (page) => {
  const res = await t.call('get', page);
  expect(res.status).toBe(200);
  expect([...hostsIn(res.text)].filter((h) => !NEVER_FETCHED.has(h))).toEqual([]);
  // nothing loaded by markup or CSS from any host
  expect(res.text).not.toMatch(/\b(src|href)\s*[:=]\s*["'`]https?:\/\/(?!www\.w3\.org|redocly\.com\/redoc\/)/i);
  expect(res.text).not.toMatch(/\burl\(\s*["']?https?:/); // CSS's url(), not JavaScript's new URL(…)
  expect(res.text).not.toMatch(/@import\s+["']?(url\()?\s*["']?https?:/i);
});

test('ReDoc\'s logo is served from the page itself, not its CDN', async () => {
  const bundle = fs.readFileSync(path.join(path.dirname(require.resolve('redoc/package.json')), 'bundles/redoc.standalone.js'), 'utf8');
  expect(bundle).toContain('https://cdn.redoc.ly/'); // what the package ships and the page must rewrite
  const res = await t.call('get', '/redoc');
  expect(res.text).not.toContain('cdn.redoc.ly');
  expect(res.text).toContain('src:"data:image/svg+xml,');
});

test('Swagger UI does not send the spec\'s URL to validator.swagger.io', async () => {
  const res = await t.call('get', '/docs');
  expect(res.text).toMatch(/SwaggerUIBundle\(\{[^}]*validatorUrl: null/);
  expect(res.text).not.toContain('validator.swagger.io');
});
