import fs from 'node:fs';

export default async function globalTeardown(): Promise<void> {
  const temporal = (globalThis as any).__TEMPORAL__;
  if (temporal) {
    await temporal.server.stop();
    fs.rmSync(temporal.dir, { recursive: true, force: true });
  }
  const pg = (globalThis as any).__EMBEDDED_PG__;
  if (pg) {
    await pg.db.stop();
    fs.rmSync(pg.dir, { recursive: true, force: true });
  }
}
