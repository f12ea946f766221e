/**
 * The time-boxed property runs of the fuzz and importer suites (test/support/time-boxed.ts):
 * past the limit no new value is drawn, and the run in flight has ended when the assertion
 * returns, so a test's `after` hook never closes a database under it.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { assertTimeBoxed } from '../support/time-boxed.js';

describe('a time-boxed property', () => {
  it('returns only once the run in flight when the limit struck has ended', async () => {
    const runs = { started: 0, ended: 0 };
    await assertTimeBoxed(
      fc.integer(),
      async () => {
        // The first run passes at once (a property that passed no run fails, time-boxed or not).
        if (runs.started++ > 0) await sleep(60);
        runs.ended++;
      },
      { numRuns: 1_000, timeLimitMs: 500 },
    );
    assert.ok(runs.started >= 1 && runs.started < 1_000, JSON.stringify(runs));
    assert.equal(runs.ended, runs.started, 'every run started has ended');
  });

  it('still fails on a counterexample found within the limit', async () => {
    await assert.rejects(
      assertTimeBoxed(
        fc.integer({ min: 0, max: 100 }),
        async (n) => assert.ok(n < 50, `${n} is not under 50`),
        { numRuns: 200, timeLimitMs: 10_000, seed: 1 },
      ),
      /Counterexample: \[50\]/,
    );
  });

  it('ignores a failure of the run fast-check stopped waiting for, and leaves none unhandled', async () => {
    let runs = 0;
    let late = 0;
    await assertTimeBoxed(
      fc.integer(),
      async () => {
        if (runs++ === 0) return;
        await sleep(700);
        late++;
        throw new Error('after the limit');
      },
      { numRuns: 10, timeLimitMs: 500 },
    );
    assert.equal(runs, 2);
    assert.equal(late, 1, 'the run in flight ended before the assertion returned');
  });
});
