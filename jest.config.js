/**
 * Two projects: `quick` holds the pure engines (test/domain: arrays in, arrays out) and needs no PostgreSQL or
 * Temporal, so `npm run test:quick` starts neither; `stack` holds everything that goes through the real components,
 * and its globalSetup starts one PostgreSQL and one Temporal dev server for all of its workers. Jest runs a project's
 * globalSetup only when one of its files is selected.
 *
 * Jest runs TypeScript through @swc/jest; ESM-only packages (jose) are transformed too, since Jest on Node 20 cannot
 * require ESM.
 */
const common = {
  testEnvironment: 'node',
  transform: { '^.+\\.(t|j)sx?$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }] },
  transformIgnorePatterns: ['^(?!.*/node_modules/(jose|p-limit|yocto-queue)/).*/node_modules/'],
  // async local storages and promise hooks that a worker's earlier files left in the process, undone (see the file)
  setupFiles: ['<rootDir>/test/support/staleProcessHooks.js'],
  // TEST_CPU_REPORT=<file>: CPU seconds per test file (docs/TESTING.md)
  setupFilesAfterEnv: ['<rootDir>/test/support/cpuProbe.ts'],
  // jest-runtime, keeping V8's compiled code of each module between the test files of a worker
  runtime: '<rootDir>/test/support/codeCacheRuntime.js',
};

module.exports = {
  testTimeout: 60000,
  // One more worker than cores: the schema fuzz holds a worker for most of the run while it mostly waits on answers.
  // TEST_WORKERS overrides.
  maxWorkers: Number(process.env.TEST_WORKERS) || require('node:os').availableParallelism() + 1,
  // longest suites first (test/support/suiteTimings.json), so that no long suite starts last on an otherwise idle run
  testSequencer: '<rootDir>/test/support/sequencer.js',
  // a worker whose heap has grown past this after a suite is replaced by a fresh one: a backstop, since a worker no
  // longer keeps its finished suites (docs/TESTING.md); one process once outgrew V8's default 4 GB limit
  workerIdleMemoryLimit: '1536MB',
  projects: [
    { ...common, displayName: 'quick', rootDir: __dirname, roots: ['<rootDir>/test/domain'], testMatch: ['**/*.test.ts'] },
    {
      ...common,
      displayName: 'stack',
      rootDir: __dirname,
      roots: ['<rootDir>/test'],
      testMatch: ['**/*.test.ts'],
      testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/domain/'],
      globalSetup: '<rootDir>/test/support/globalSetup.ts',
      globalTeardown: '<rootDir>/test/support/globalTeardown.ts',
      setupFiles: [...common.setupFiles, '<rootDir>/test/support/workerEnv.ts'],
    },
  ],
};
