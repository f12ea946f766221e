/**
 * `atDeadline` calls back once the monotonic clock has reached the deadline, never before (a
 * plain timer can fire a fraction of a millisecond early), and not at all once cancelled.
 * `withDeadline` refuses an answer that comes after its deadline, even when the event loop runs
 * the answer's callback before the timer's (issue 56); `turnStart` is one instant for a whole
 * turn of the event loop.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { atDeadline, monotonicNow, turnStart, withDeadline } from '../../src/deadline.js';

describe('atDeadline', () => {
  it('never calls back before the deadline', async () => {
    const early: number[] = [];
    await Promise.all(
      Array.from({ length: 200 }, (_, i) => {
        // Deadlines that are not whole milliseconds away, where an early timer shows.
        const deadline = monotonicNow() + 1 + (i % 20) + 0.3 + (i % 7) / 10;
        return new Promise<void>((resolve) =>
          atDeadline(deadline, () => {
            const now = monotonicNow();
            if (now < deadline) early.push(deadline - now);
            resolve();
          }),
        );
      }),
    );
    assert.deepEqual(early, []);
  });

  it('calls back at once for a deadline already past, and never once cancelled', async () => {
    let passed = false;
    await new Promise<void>((resolve) =>
      atDeadline(monotonicNow() - 5, () => {
        passed = true;
        resolve();
      }),
    );
    assert.ok(passed);
    let called = false;
    const cancel = atDeadline(monotonicNow() + 5, () => (called = true));
    cancel();
    await new Promise((resolve) => setTimeout(resolve, 30));
    assert.equal(called, false);
  });
});

/** Holds the event loop (no timer, no I/O runs) until `ms` have passed on the monotonic clock. */
function holdLoop(ms: number): void {
  const until = monotonicNow() + ms;
  while (monotonicNow() < until);
}

describe('withDeadline', () => {
  it('refuses an answer that comes after the deadline, though its callback runs before the timer', async () => {
    const late = () => new Error('late');
    // The work ends in a check-phase callback that holds the loop past the deadline: its promise
    // settles before the next timers phase, where the deadline's timer is due.
    const work = new Promise<string>((resolve) =>
      setImmediate(() => {
        holdLoop(30);
        resolve('answer');
      }),
    );
    await assert.rejects(withDeadline(work, 10, late), /late/);
    // In time, the answer goes through.
    assert.equal(await withDeadline(Promise.resolve('answer'), 10_000, late), 'answer');
  });
});

describe('turnStart', () => {
  it('is the same instant for everything in one turn of the event loop, and new in the next', async () => {
    // From a timer's callback, as a request is read in a turn's poll phase (not in its check phase).
    await new Promise((resolve) => setTimeout(resolve, 0));
    const first = turnStart();
    holdLoop(5);
    assert.equal(turnStart(), first, "later in the same turn: the turn's start");
    await new Promise((resolve) => setTimeout(resolve, 1));
    const next = turnStart();
    assert.ok(next > first, 'a later turn has a later start');
  });
});
