/**
 * Failed authentications per address (issue 35, item 3; src/auth/failed-attempts.ts): after
 * FAILURES_ALLOWED failures within a window an address gets 429 with Retry-After and its
 * connection closed, its tokens unchecked; a valid token from another address is never slowed,
 * and one already known valid still passes from the blocked address; the window ends. Both stores.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FailedAttempts, FAILURES_ALLOWED, WINDOW_MS } from '../../src/auth/failed-attempts.js';
import { createToken } from '../../src/auth/tokens.js';
import { ALL_SCOPES, DIALECTS, startHarness, WS, type Harness } from '../support/harness.js';

describe('FailedAttempts', () => {
  it('blocks an address for the rest of its window once it failed FAILURES_ALLOWED times', () => {
    const attempts = new FailedAttempts();
    const t0 = 1_000_000;
    for (let i = 0; i < FAILURES_ALLOWED - 1; i++) attempts.failed('10.0.0.1', t0 + i);
    assert.equal(attempts.blockedFor('10.0.0.1', t0 + 100), 0);
    attempts.failed('10.0.0.1', t0 + 100);
    assert.equal(attempts.blockedFor('10.0.0.1', t0 + 100), WINDOW_MS / 1000);
    assert.equal(attempts.blockedFor('10.0.0.1', t0 + WINDOW_MS - 1), 1);
    assert.equal(attempts.blockedFor('10.0.0.2', t0 + 100), 0, 'another address');
    assert.equal(attempts.blockedFor('10.0.0.1', t0 + WINDOW_MS), 0, 'the window ended');
    attempts.failed('10.0.0.1', t0 + WINDOW_MS);
    assert.equal(attempts.blockedFor('10.0.0.1', t0 + WINDOW_MS), 0, 'a new window, one failure');
  });

  it('blocks nothing when the limit is off (0)', () => {
    const off = new FailedAttempts(0);
    for (let i = 0; i < 1000; i++) off.failed('10.0.0.1', i);
    assert.equal(off.blockedFor('10.0.0.1', 1000), 0);
  });
});

for (const dialect of DIALECTS)
  describe(`failed authentications from one address (${dialect})`, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness({ dialect, authFailuresPerMinute: FAILURES_ALLOWED });
    });
    after(() => h.close());

    const call = (token: string | null, remoteAddress: string) =>
      h.app.inject({
        method: 'GET',
        url: '/api/v1/workers?limit=1',
        remoteAddress,
        headers: token === null ? {} : { authorization: `Bearer ${token}` },
      });

    it('answers 429 after the allowed failures, never slowing a valid token', async () => {
      const attacker = '203.0.113.7';
      // A client behind the same address that called before the flood.
      assert.equal((await call(h.tokens.staff, attacker)).statusCode, 200);
      for (let i = 0; i < FAILURES_ALLOWED; i++) {
        const token = i % 2 === 0 ? null : `vmsr_${'x'.repeat(43)}`;
        assert.equal((await call(token, attacker)).statusCode, 401, `failure ${i + 1}`);
      }
      const blocked = await call(`vmsr_${'y'.repeat(43)}`, attacker);
      assert.equal(blocked.statusCode, 429, blocked.body);
      assert.equal(blocked.json().error.code, 'rate_limited');
      assert.match(
        blocked.json().error.message,
        /^Too many failed authentications from this address/,
      );
      assert.ok(Number(blocked.headers['retry-after']) >= 1);
      assert.equal(blocked.headers.connection, 'close');
      assert.equal((await call(null, attacker)).statusCode, 429, 'no token: the same');
      // A token first seen now from the blocked address is not checked: 429 too.
      const fresh = await createToken(
        h.store,
        { workspaceId: WS, role: 'staff', scopes: ALL_SCOPES },
        new Date(),
      );
      assert.equal((await call(fresh, attacker)).statusCode, 429);
      // One known valid still passes; from another address every valid token does.
      assert.equal((await call(h.tokens.staff, attacker)).statusCode, 200);
      assert.equal((await call(fresh, '198.51.100.9')).statusCode, 200);
      assert.equal((await call(h.tokens.worker, '198.51.100.9')).statusCode, 200);
    });
  });
