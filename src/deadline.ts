/**
 * Settles as `work` does, or rejects with `late()` once `ms` have passed, whichever comes first.
 * `work` is not cancelled: it must be bounded by its own timeouts (every store query is), so
 * what is abandoned here ends soon after and frees what it holds.
 */
export function withDeadline<T>(work: Promise<T>, ms: number, late: () => Error): Promise<T> {
  if (ms <= 0) {
    work.catch(() => {});
    return Promise.reject(late());
  }
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(late()), ms);
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error as Error);
      },
    );
  });
}

/** Milliseconds on a monotonic clock: deadlines never move with the wall clock (or a test's). */
export const monotonicNow = (): number => performance.now();

/**
 * Calls `fn` once the monotonic clock reaches `deadline`, never before: a timer can fire a
 * fraction of a millisecond early (the event loop's clock is whole milliseconds), and then it
 * is set again for what is left. Returns the function that cancels it.
 */
export function atDeadline(deadline: number, fn: () => void): () => void {
  let timer: NodeJS.Timeout;
  const arm = () => {
    timer = setTimeout(
      () => (monotonicNow() >= deadline ? fn() : arm()),
      Math.max(0, Math.ceil(deadline - monotonicNow())),
    );
  };
  arm();
  return () => clearTimeout(timer);
}
