/** When a failed delivery is tried again, and when a subscription stops (src/webhooks/retries.ts). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  GIVE_UP_AFTER_MS,
  judgeAttempt,
  MAX_RETRY_GAP_MS,
  retryGap,
} from '../../src/webhooks/retries.js';

describe('webhook retries', () => {
  it('waits the base time, then doubles, up to an hour', () => {
    assert.deepEqual(
      [1, 2, 3, 4, 5].map((n) => retryGap(n)),
      [5000, 10_000, 20_000, 40_000, 80_000],
    );
    assert.equal(retryGap(30), MAX_RETRY_GAP_MS);
    assert.equal(retryGap(1000), MAX_RETRY_GAP_MS);
    assert.equal(retryGap(3, 10), 40, 'a configured base (tests) doubles alike');
  });

  it('delivers on 2xx, disables on 410, retries anything else, and stops after 3 days of failures', () => {
    const now = 1_000_000_000_000;
    assert.deepEqual(judgeAttempt(200, 0, null, now), { next: 'delivered' });
    assert.deepEqual(judgeAttempt(299, 4, now - 1000, now), { next: 'delivered' });
    assert.deepEqual(judgeAttempt(410, 0, null, now), { next: 'disabled' });
    for (const status of [301, 400, 404, 429, 500, 503, null])
      assert.deepEqual(judgeAttempt(status, 0, null, now), { next: 'retry', at: now + 5000 });
    assert.deepEqual(judgeAttempt(500, 2, now - 60_000, now), { next: 'retry', at: now + 20_000 });
    assert.deepEqual(judgeAttempt(500, 99, now - GIVE_UP_AFTER_MS, now), { next: 'failing' });
  });

  it('keeps trying for at least 3 days: the tries fit, and none is more than an hour apart', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 60_000 }), (base) => {
        const start = 0;
        let now = start;
        let failed = 0;
        for (;;) {
          const verdict = judgeAttempt(500, failed, failed === 0 ? null : start, now, base);
          if (verdict.next === 'failing') break;
          assert.equal(verdict.next, 'retry');
          if (verdict.next !== 'retry') return;
          assert.ok(verdict.at - now <= MAX_RETRY_GAP_MS);
          now = verdict.at;
          failed++;
        }
        assert.ok(now - start >= GIVE_UP_AFTER_MS);
      }),
      { numRuns: 50 },
    );
  });
});
