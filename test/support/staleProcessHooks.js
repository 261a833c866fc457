/**
 * Jest gives every test file a fresh module registry but runs the files of a worker in one process, whose core
 * modules and V8 isolate are shared. Two things a file's modules register there outlive the file, and each made every
 * later file's promises dearer:
 *
 * - every `AsyncLocalStorage` that was used (one per Temporal client and native connection, the activity context,
 *   Koa's) stays in Node's list of enabled storages, and Node 20 propagates each of them into every new promise
 *   (`_propagate`: 6 % of a worker's CPU over test/workflows, about as much as the forecasting engines it ran);
 * - a Temporal replay (`Worker.runReplayHistories`) runs its workflows in the calling thread and installs V8 promise
 *   hooks there for stack traces, never removed (the SDK expects a worker thread that ends): each later promise of
 *   the process compiled and ran a `Function` to look for a workflow context (`getActivator`, about 7 %).
 *
 * A third kept each earlier file in memory: roarr's listener on the worker's stdout (below).
 *
 * This file runs before each test file's modules load. It disables the storages and stops the promise hooks that the
 * worker's earlier files created (their tests are over, their connections closed), and tracks the ones this file
 * will create. Production processes create a handful once, and replay only in tests.
 */
const asyncHooks = require('node:async_hooks');
const v8 = require('node:v8');

const TRACKED = Symbol.for('planning.test.staleProcessHooks');

if (!asyncHooks[TRACKED]) {
  /** what the files of this worker registered, each entry a way to undo it */
  const registered = [];
  const Original = asyncHooks.AsyncLocalStorage;
  // Undoing must never change which hooks V8 and Node have installed: when the last storage goes, Node switches its
  // promise hooks off, and doing that inside a promise reaction leaves the async id stack unbalanced (a native
  // assertion in InternalCallbackScope::Close). One storage of the worker's own stays enabled for that, and a
  // stale promise hook is made a no-op instead of being removed.
  new Original().run(true, () => undefined);
  class TrackedAsyncLocalStorage extends Original {
    constructor(...args) {
      super(...args);
      const ref = new WeakRef(this);
      registered.push(() => ref.deref()?.disable());
    }
  }
  asyncHooks.AsyncLocalStorage = TrackedAsyncLocalStorage;
  const createHook = v8.promiseHooks.createHook;
  v8.promiseHooks.createHook = (hooks) => {
    let live = true;
    const guarded = Object.fromEntries(Object.entries(hooks).map(([name, fn]) => [name, (...args) => (live ? fn(...args) : undefined)]));
    const stop = createHook(guarded);
    registered.push(() => {
      live = false;
    });
    return stop;
  };
  asyncHooks[TRACKED] = registered;
}

const stale = asyncHooks[TRACKED].splice(0);
// roarr (slonik's logger) keeps its state on the global object, which is this file's own, and adds an 'error'
// listener to process.stdout, which is the worker's: each file added one that held its whole context. Its own
// teardown removes it once the file is over.
const fileGlobal = globalThis;
asyncHooks[TRACKED].push(() => fileGlobal.ROARR?.teardown?.());
for (const undo of stale) undo();
if (process.env.TEST_STALE_HOOKS_LOG) process.stderr.write(`staleProcessHooks: undid ${stale.length} registrations of earlier files\n`);
