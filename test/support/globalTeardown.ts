import fs from 'node:fs';

export default async function globalTeardown(): Promise<void> {
  await (globalThis as any).__TEMPORAL__?.stop();
  await (globalThis as any).__EMBEDDED_PG__?.stop();
  const run = (globalThis as any).__TEST_RUN_DIR__;
  if (run) fs.rmSync(run, { recursive: true, force: true });
}
