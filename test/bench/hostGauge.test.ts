import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describeGauge, measureHostGauge, nodeWork, pgWork } from '../../bench/lib/hostGauge';
import { openPool, type Db } from '../../db/pool';

let db: Db;
beforeAll(async () => {
  db = await openPool(process.env.DATABASE_URL!, 1);
});
afterAll(async () => {
  await db.end();
});

describe('host gauge (bench/lib/hostGauge.ts)', () => {
  test('the Node work is the same every time: its checksum depends on the seed only', () => {
    const a = nodeWork(42);
    expect(Number.isFinite(a)).toBe(true);
    expect(nodeWork(42)).toBe(a);
    expect(nodeWork(7)).not.toBe(a);
  });

  test('the PostgreSQL work answers the number of distinct strings it hashed', async () => {
    expect(await pgWork(db)).toBe(200_000);
  });

  test('a measurement times both parts; without a database only Node', async () => {
    const g = await measureHostGauge(db, 1);
    expect(g.node_ms).toBeGreaterThan(0);
    expect(g.pg_ms).toBeGreaterThan(0);
    expect(describeGauge(g)).toMatch(/^Node \d+ ms, PostgreSQL \d+ ms$/);
    const nodeOnly = await measureHostGauge(null, 1);
    expect(nodeOnly.pg_ms).toBeNull();
    expect(describeGauge(nodeOnly)).toMatch(/^Node \d+ ms, PostgreSQL —$/);
    expect(describeGauge(undefined)).toBe('not measured');
  });

  test('run as a script it prints the Node part alone, as the test command logs it before and after the suites', () => {
    const root = path.join(__dirname, '../..');
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'bench/lib/hostGauge.ts'], { cwd: root, encoding: 'utf8', timeout: 60_000 });
    expect([run.status, run.stderr]).toEqual([0, '']);
    expect(run.stdout).toMatch(/^Node \d+ ms\n$/);
    expect(Number(/\d+/.exec(run.stdout)![0])).toBeGreaterThan(0);
    // scripts/test.sh calls it by this path, before and after the suites
    const testScript = fs.readFileSync(path.join(root, 'scripts/test.sh'), 'utf8');
    expect(testScript).toContain('node --import tsx bench/lib/hostGauge.ts');
    expect(testScript.match(/host gauge (before|after) the suites/g)).toEqual(['host gauge before the suites', 'host gauge after the suites']);
  });
});
