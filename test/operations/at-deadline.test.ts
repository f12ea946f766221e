/**
 * `atDeadline` calls back once the monotonic clock has reached the deadline, never before (a
 * plain timer can fire a fraction of a millisecond early), and not at all once cancelled.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { atDeadline, monotonicNow } from '../../src/deadline.js';

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
