/**
 * The promise's value, or `fallback` when `ms` pass first. The timer is cleared as soon as either settles, so a
 * promise that answered in time leaves nothing pending (a wait of minutes would hold what its callback reaches), and
 * it never keeps the process alive by itself. A rejection of the promise passes through.
 */
export async function orAfter<T, F>(promise: Promise<T>, ms: number, fallback: F): Promise<T | F> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<F>((resolve) => {
    timer = setTimeout(() => resolve(fallback), ms).unref();
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
