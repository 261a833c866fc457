import { allocateLp } from '../../../domain/allocation/lp';
import { randomInstance } from '../../../bench/lib/allocationInstances';

// A runtime whose next `failures` solves throw as a Wasm abort would: allocateLp must drop it, load a fresh runtime
// and retry the batch once (LIBRARIES.md: recreate the instance after a thrown error).
const state = { loads: 0, failures: 0 };
jest.mock('highs', () => {
  const actual = jest.requireActual('highs');
  const load = actual.default ?? actual;
  return {
    __esModule: true,
    default: async (...args: unknown[]) => {
      state.loads++;
      const real = await load(...args);
      return new Proxy(real, {
        get(target, key) {
          if (key === 'withModel' && state.failures > 0) {
            return () => {
              state.failures--;
              throw new Error('RuntimeError: unreachable');
            };
          }
          const v = Reflect.get(target, key);
          return typeof v === 'function' ? v.bind(target) : v;
        },
      });
    },
  };
});

describe('recovery after a throw inside HiGHS', () => {
  const problem = randomInstance(5, { demands: 200 });

  it('reloads the runtime and retries the batch once', async () => {
    const clean = await allocateLp(problem);
    const loadsBefore = state.loads;
    state.failures = 1;
    const r = await allocateLp(problem);
    expect(r.lp.reloads).toBe(1);
    expect(state.loads).toBe(loadsBefore + 1);
    expect(r.allocations).toEqual(clean.allocations);
  });

  it('a second throw in a row is rethrown, and the next call starts on a fresh runtime', async () => {
    const loadsBefore = state.loads;
    state.failures = 2;
    await expect(allocateLp(problem)).rejects.toThrow('unreachable');
    const r = await allocateLp(problem);
    expect(r.lp.reloads).toBe(0);
    expect(state.loads).toBe(loadsBefore + 2);
  });
});
