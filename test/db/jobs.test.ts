import { createTestAccount } from '../support/tenantPool';
import { getJob, heartbeat, insertJob } from '../../db/jobs';
import { openPool, withTenant, type Db } from '../../db/pool';

let db: Db;
let accountId: string;
beforeAll(async () => {
  db = await openPool(process.env.DATABASE_URL!, 2);
  accountId = (await createTestAccount(db, process.env.DATABASE_URL!, `jobs-progress-${Date.now()}`)).id;
});
afterAll(async () => {
  await db.end();
});

test('progress only moves forward for the same total: a late report of fewer done series is ignored', async () => {
  const progress = await withTenant(db, accountId, async (tx) => {
    await insertJob(tx, { job_id: 'progress-1', kind: 'step', step: 'forecast' });
    const seen: unknown[] = [];
    const report = async (p?: { done: number; total: number }) => {
      await heartbeat(tx, 'progress-1', p);
      seen.push((await getJob(tx, 'progress-1'))!.progress);
    };
    await report({ done: 500, total: 2000 });
    await report({ done: 1500, total: 2000 });
    await report({ done: 1000, total: 2000 }); // chunks finish out of order
    await report(); // a plain heartbeat keeps it
    await report({ done: 2000, total: 2000 });
    await report({ done: 0, total: 300 }); // a new total (another phase) restarts it
    return seen;
  });
  expect(progress).toEqual([
    { done: 500, total: 2000 },
    { done: 1500, total: 2000 },
    { done: 1500, total: 2000 },
    { done: 1500, total: 2000 },
    { done: 2000, total: 2000 },
    { done: 0, total: 300 },
  ]);
});
