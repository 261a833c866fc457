import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startEmbeddedPostgres } from '../../db/embedded';
import { migrateAll } from '../../db/migrate';
import { freePort } from '../../lib/net';
import { startDevServer } from '../../temporal/devServer';

/** One real PostgreSQL for the whole run (embedded unless DATABASE_URL is given); each test file makes its own tenants. */
export default async function globalSetup(): Promise<void> {
  process.env.NODE_ENV = 'test';
  process.env.BCRYPT_ROUNDS ??= '4';
  if (!process.env.DATABASE_URL) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'planning-test-pg-'));
    fs.chmodSync(dir, 0o777);
    const db = await startEmbeddedPostgres({ dataDir: path.join(dir, 'data'), port: await freePort(), persistent: false, fast: true });
    (globalThis as any).__EMBEDDED_PG__ = { db, dir };
    process.env.DATABASE_URL = db.url;
  }
  await migrateAll(process.env.DATABASE_URL);
  if (!process.env.TEMPORAL_ADDRESS) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'planning-test-temporal-'));
    const server = await startDevServer({ dataDir: dir, port: await freePort(), uiPort: await freePort(), ui: false });
    (globalThis as any).__TEMPORAL__ = { server, dir };
    process.env.TEMPORAL_ADDRESS = server.address;
    process.env.TEMPORAL_NAMESPACE = server.namespace;
  }
}
