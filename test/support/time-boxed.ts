import fc from 'fast-check';

/**
 * `fc.assert` of an async property that draws no new value once `timeLimitMs` has passed
 * (fast-check's `interruptAfterTimeLimit`, shrinking included), and returns only once the run in
 * flight when the limit struck has ended. fast-check stops waiting for that run but cannot stop
 * it: it went on (an import, a request) while the test's `after` hook dropped its database or
 * closed its server, and the connection ended under it came back as an unhandled rejection after
 * the test, failing the file (seen once in a suite run). A failure of that last run is not
 * reported: fast-check had already given up on it, as before.
 *
 * (`skipAllAfterTimeLimit` is no way out: values skipped for time are drawn again, up to
 * `maxSkipsPerRun` times `numRuns`, and then the property fails for too many skips.)
 */
export async function assertTimeBoxed<T>(
  arbitrary: fc.Arbitrary<T>,
  check: (value: T) => Promise<void>,
  { timeLimitMs, ...parameters }: fc.Parameters<[T]> & { timeLimitMs: number },
): Promise<void> {
  let inFlight: Promise<void> = Promise.resolve();
  const property = fc.asyncProperty(arbitrary, (value) => {
    const run = check(value);
    inFlight = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  });
  try {
    await fc.assert(property, {
      ...parameters,
      interruptAfterTimeLimit: timeLimitMs,
      markInterruptAsFailure: false,
    });
  } finally {
    await inFlight;
  }
}
