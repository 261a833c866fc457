/** The process settings an operator sets in the environment (lib/env.ts; docs/GETTING_STARTED.md's table). */
import { DEFAULT_ASSISTANT_STATEMENT_TIMEOUT_MS, readEnv } from '../../lib/env';

test('the assistant limits default to the spec values and read whole numbers from the environment', () => {
  const defaults = readEnv({});
  expect(DEFAULT_ASSISTANT_STATEMENT_TIMEOUT_MS).toBe(8000);
  expect(defaults).toMatchObject({ assistantStatementTimeoutMs: 8000, assistantConcurrency: 4, assistantConcurrencyPerTenant: 2, assistantQueue: 8 });
  expect(readEnv({ ASSISTANT_STATEMENT_TIMEOUT_MS: '2000', ASSISTANT_QUEUE: '0' })).toMatchObject({ assistantStatementTimeoutMs: 2000, assistantQueue: 0 });
  // an empty value is unset, as in a compose file's `VAR=`
  expect(readEnv({ ASSISTANT_STATEMENT_TIMEOUT_MS: '' }).assistantStatementTimeoutMs).toBe(8000);
});

test.each([
  ['ASSISTANT_STATEMENT_TIMEOUT_MS', '50', 'ASSISTANT_STATEMENT_TIMEOUT_MS must be a whole number >= 100, got "50"'],
  ['ASSISTANT_STATEMENT_TIMEOUT_MS', '8s', 'ASSISTANT_STATEMENT_TIMEOUT_MS must be a whole number >= 100, got "8s"'],
  ['ASSISTANT_CONCURRENCY', '0', 'ASSISTANT_CONCURRENCY must be a whole number >= 1, got "0"'],
  ['ASSISTANT_QUEUE', '1.5', 'ASSISTANT_QUEUE must be a whole number >= 0, got "1.5"'],
])('%s=%s stops the process with a message naming the variable', (name, value, message) => {
  expect(() => readEnv({ [name]: value })).toThrow(message);
});
