/** Jest runs TypeScript through @swc/jest; ESM-only packages (jose) are transformed too, since Jest on Node 20 cannot require ESM. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.(t|j)sx?$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }] },
  transformIgnorePatterns: ['^(?!.*/node_modules/(jose|p-limit|yocto-queue)/).*/node_modules/'],
  globalSetup: '<rootDir>/test/support/globalSetup.ts',
  globalTeardown: '<rootDir>/test/support/globalTeardown.ts',
  testTimeout: 60000,
};
