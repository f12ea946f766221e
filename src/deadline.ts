/**
 * Settles as `work` does, or rejects with `late()` once `ms` have passed, whichever comes first.
 * An answer that comes after the deadline is late too (issue 56): on a busy event loop the timer
 * can fire after the work's own callback, and a time limit that still let that answer through
 * answered late rather than refusing. `work` is not cancelled: it must be bounded by its own
 * timeouts (every store query is), so what is abandoned here ends soon after and frees what it
 * holds.
 */
export function withDeadline<T>(work: Promise<T>, ms: number, late: () => Error): Promise<T> {
  if (ms <= 0) {
    work.catch(() => {});
    return Promise.reject(late());
  }
  const deadline = monotonicNow() + ms;
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(late()), ms);
    work.then(
      (value) => {
        clearTimeout(timer);
        if (monotonicNow() > deadline) reject(late());
        else resolve(value);
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

/** When the event loop began the turn it is in now; see `turnStart`. */
let currentTurn: number | undefined;

/**
 * When the event loop began reading what it reads in this turn: the first call of a turn stamps
 * it, a callback in the turn's check phase (setImmediate, after all of its reads) forgets it.
 * Requests that arrive together are read one after another in one turn, each after the previous
 * one's work (parsing, validation, a report's compilation): counted from here, a request's time
 * limit includes its wait behind them for the event loop, which a clock read when its turn came
 * did not (issue 56: 64 reports at once with a 50 ms limit answered in a median 833 ms at load 4).
 */
export function turnStart(): number {
  if (currentTurn === undefined) {
    currentTurn = monotonicNow();
    setImmediate(() => (currentTurn = undefined));
  }
  return currentTurn;
}
