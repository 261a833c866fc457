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
});
