import { orAfter } from '../../lib/timeout';

describe('orAfter', () => {
  test('answers the promise\'s value when it settles first, and clears its timer at once', async () => {
    const cleared = jest.spyOn(global, 'clearTimeout');
    await expect(orAfter(Promise.resolve(7), 60_000, null)).resolves.toBe(7);
    expect(cleared).toHaveBeenCalledTimes(1);
    cleared.mockRestore();
  });

  test('answers the fallback when the time passes first', async () => {
    const never = new Promise<number>(() => undefined);
    const started = Date.now();
    await expect(orAfter(never, 30, 'late')).resolves.toBe('late');
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
  });

  test('a rejection passes through', async () => {
    await expect(orAfter(Promise.reject(new Error('boom')), 60_000, null)).rejects.toThrow('boom');
  });
});
