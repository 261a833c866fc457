import { workerDatabaseUrl } from './workerDatabase';

// Runs in each jest worker before every test file (setupFiles): every suite of this worker reads and writes the
// worker's own database, so suites in other workers never see its master rows.
if (process.env.DATABASE_URL && process.env.JEST_WORKER_ID && !process.env.TEST_SHARED_DATABASE_URL) {
  process.env.TEST_SHARED_DATABASE_URL = process.env.DATABASE_URL;
  process.env.DATABASE_URL = workerDatabaseUrl(process.env.DATABASE_URL, process.env.JEST_WORKER_ID);
}
