import path from 'node:path';
import { hypothesisStorage, pythonVersion, schemathesisPython, schemathesisVenv, SCHEMATHESIS_VERSION } from '../support/schemathesis';

/** test/support/schemathesis.ts: which Python the fuzz's venv is built from, and where it is kept. */
const version = (python: string) => pythonVersion(python) ?? [0, 0];

test('PYTHON wins; otherwise a Python of at least 3.11, the operating system\'s own first', () => {
  expect(schemathesisPython({ PYTHON: '/opt/some/python3' })).toBe('/opt/some/python3');
  const chosen = schemathesisPython({});
  const [major, minor] = version(chosen);
  expect(major * 100 + minor).toBeGreaterThanOrEqual(311);
  const system = version('/usr/bin/python3');
  if (system[0] * 100 + system[1] >= 311) expect(chosen).toBe('/usr/bin/python3');
});

test('a venv per schemathesis version and interpreter, under the cache directory', () => {
  const env = { XDG_CACHE_HOME: '/cache' };
  const a = schemathesisVenv(env, '/usr/bin/python3');
  expect(path.dirname(a)).toBe('/cache/planning-platform');
  expect(path.basename(a)).toMatch(new RegExp(`^schemathesis-venv-${SCHEMATHESIS_VERSION.replace(/\./g, '\\.')}-[0-9a-f]{8}$`));
  expect(schemathesisVenv(env, '/usr/bin/python3')).toBe(a);
  expect(schemathesisVenv(env, '/opt/other/python3')).not.toBe(a);
  expect(hypothesisStorage({ ...env, PYTHON: '/usr/bin/python3' })).toBe(path.join(a, 'hypothesis-storage'));
});
