import { randomUUID } from 'node:crypto';
import { Worker } from '@temporalio/worker';
import type { healthCheck } from '../../workflows';
import { startTestWorker, workflowBundle, type TestWorker } from '../support/temporal';

describe('healthCheck workflow', () => {
  let tw: TestWorker;
  const workflowId = `health-check-${randomUUID()}`;

  // the run's dev server and workflow bundle (globalSetup): a server of its own cost this file seconds of CPU
  beforeAll(async () => {
    tw = await startTestWorker();
  }, 120_000);

  afterAll(async () => {
    await tw?.close();
  }, 120_000);

  it('reads PostgreSQL through a real worker', async () => {
    const result = await tw.client.workflow.execute<typeof healthCheck>('healthCheck', { taskQueue: tw.taskQueue, workflowId, workflowExecutionTimeout: '1 minute' });
    expect(result.ok).toBe(true);
    expect(typeof result.accounts).toBe('number');
    expect(result.accounts).toBeGreaterThanOrEqual(0);
    expect(result.server_version).toMatch(/^\d/);
    expect(new Date(result.checked_at).toISOString()).toBe(result.checked_at);
  }, 120_000);

  it('replays its own history deterministically', async () => {
    const history = await tw.client.workflow.getHandle(workflowId).fetchHistory();
    expect(history.events?.length).toBeGreaterThan(0);
    await expect(Worker.runReplayHistory({ workflowBundle: await workflowBundle() }, history, workflowId)).resolves.toBeUndefined();
  }, 120_000);
});
