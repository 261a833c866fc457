import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
// the caches a jest worker keeps between its test files (test/support/codeCacheRuntime.js)
import { createResolutionCache, createSourceCache, createTransformCache } from '../support/workerModuleCache';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'worker-module-cache-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Writes the file and sets its modification time, so that two writes can be told apart, or not, at will. */
function write(file: string, text: string, mtime: Date): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  fs.utimesSync(file, mtime, mtime);
}

describe('the source cache', () => {
  test('hands back the same string while the file keeps its size and modification time, and reads a changed file again', () => {
    const sharedSource = createSourceCache();
    const file = path.join(dir, 'module.js');
    const t0 = new Date('2026-11-30T10:00:00Z');
    write(file, 'module.exports = 1;', t0);
    const first = sharedSource(file);
    expect(first).toBe('module.exports = 1;');
    // same size and time: the cache does not read the disk (the new text proves it)
    write(file, 'module.exports = 2;', t0);
    expect(sharedSource(file)).toBe('module.exports = 1;');
    // a new modification time, same size: read again
    write(file, 'module.exports = 3;', new Date('2026-11-30T10:00:01Z'));
    expect(sharedSource(file)).toBe('module.exports = 3;');
    // a new size, same time: read again
    write(file, 'module.exports = 40;', new Date('2026-11-30T10:00:01Z'));
    expect(sharedSource(file)).toBe('module.exports = 40;');
  });

  test('reads a file under node_modules once, whatever happens to it later', () => {
    const sharedSource = createSourceCache();
    const file = path.join(dir, 'node_modules', 'pkg', 'index.js');
    write(file, 'module.exports = "a";', new Date('2026-11-30T10:00:00Z'));
    expect(sharedSource(file)).toBe('module.exports = "a";');
    write(file, 'module.exports = "changed";', new Date('2026-11-30T11:00:00Z'));
    expect(sharedSource(file)).toBe('module.exports = "a";');
  });

  test('a missing file throws, as a read of the disk would', () => {
    expect(() => createSourceCache()(path.join(dir, 'missing.js'))).toThrow(/ENOENT/);
  });
});

describe('the transform cache', () => {
  const flags = { instrument: false, supportsDynamicImport: true, supportsStaticESM: false, supportsExportNamespaceFrom: false, supportsTopLevelAwait: false };

  test('transforms a source once per project and module flags, and again when the source changes', () => {
    const calls: string[] = [];
    const transform = (filename: string, options: typeof flags, source: string) => {
      calls.push(`${filename} ${options.supportsStaticESM} ${source}`);
      return { code: `/* ${source} */` };
    };
    const memoTransform = createTransformCache();
    const stack = memoTransform('stack', transform);
    const first = stack('/a.ts', flags, 'v1');
    expect(stack('/a.ts', { ...flags }, 'v1')).toBe(first);
    expect(calls).toEqual(['/a.ts false v1']);
    expect(stack('/a.ts', { ...flags, supportsStaticESM: true }, 'v1')).toEqual({ code: '/* v1 */' });
    expect(memoTransform('quick', transform)('/a.ts', flags, 'v1')).toEqual({ code: '/* v1 */' });
    expect(stack('/a.ts', flags, 'v2')).toEqual({ code: '/* v2 */' });
    expect(calls).toEqual(['/a.ts false v1', '/a.ts true v1', '/a.ts false v1', '/a.ts false v2']);
  });
});

describe('the resolution cache', () => {
  test('resolves a name once per requiring file and project, and a name that does not resolve throws each time', () => {
    const asked: string[] = [];
    const resolve = (from: string, to: string) => {
      asked.push(`${from} ${to}`);
      if (to === 'missing') throw new Error(`Cannot find module '${to}'`);
      return `/resolved/${to}`;
    };
    const memoResolve = createResolutionCache();
    const stack = memoResolve('stack', resolve);
    expect(stack('/a.ts', 'koa')).toBe('/resolved/koa');
    expect(stack('/a.ts', 'koa')).toBe('/resolved/koa');
    expect(stack('/b.ts', 'koa')).toBe('/resolved/koa');
    expect(memoResolve('quick', resolve)('/a.ts', 'koa')).toBe('/resolved/koa');
    expect(() => stack('/a.ts', 'missing')).toThrow(/Cannot find module 'missing'/);
    expect(() => stack('/a.ts', 'missing')).toThrow(/Cannot find module 'missing'/);
    expect(asked).toEqual(['/a.ts koa', '/b.ts koa', '/a.ts koa', '/a.ts missing', '/a.ts missing']);
  });
});
