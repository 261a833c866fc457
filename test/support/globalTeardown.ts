import fs from 'node:fs';
import { reportServerCpu } from './serverCpu';

export default async function globalTeardown(): Promise<void> {
  const run = process.env.TEST_RUN_DIR;
  if (process.env.TEST_CPU_REPORT && run) {
    await reportServerCpu(process.env.TEST_CPU_REPORT, run, (globalThis as any).__TEMPORAL__?.pid).catch((err) => console.warn(`server CPU report: ${err}`));
  }
  await (globalThis as any).__TEMPORAL__?.stop();
  await (globalThis as any).__EMBEDDED_PG__?.stop();
  if (run) fs.rmSync(run, { recursive: true, force: true });
}
