/**
 * Failed authentications per address (DESIGN §4.16; src/address-bounds.ts): only a credential that
 * was presented and is wrong counts (a request without one is discovery); past the limit a wrong
 * one gets 429 with Retry-After and its connection closed; a correct credential is never refused
 * because of its address: an access key never seen before, the built-in server's OAuth access
 * token, its refresh token at the token endpoint, a key typed on its sign-in page. Both stores.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ADDRESS_BOUNDS, AddressWindows, addressKey } from '../../src/address-bounds.js';
import { createToken } from '../../src/auth/tokens.js';
import { ALL_SCOPES, DIALECTS, startHarness, WS, type Harness } from '../support/harness.js';
import { personWith, TestBrowser } from '../support/oauth-browser.js';
import { authorize, refreshRequest, registerClient, signIn } from '../support/oauth-flow.js';

const ALLOWED = ADDRESS_BOUNDS.failedAuthentications.limit;
const wrongKey = (i: number) => `vmsr_${String(i).padStart(43, 'x')}`;

describe('AddressWindows', () => {
  it('says how long an address at its limit waits, counts addresses apart, and is off at 0', async () => {
    const refusals: string[] = [];
    const windows = new AddressWindows('failedAuthentications', 3, (bound) => refusals.push(bound));
    for (let i = 0; i < 2; i++) await windows.count('10.0.0.1');
    assert.equal(await windows.waitFor('10.0.0.1'), 0);
    await windows.count('10.0.0.1');
    const wait = await windows.waitFor('10.0.0.1');
    assert.ok(wait >= 59 && wait <= 60, String(wait));
    assert.equal(await windows.waitFor('10.0.0.2'), 0, 'another address');
    assert.equal(await windows.take('10.0.0.2'), 0);
    assert.deepEqual(refusals, ['failedAuthentications'], 'each wait said is a refusal');
    const off = new AddressWindows('failedAuthentications', 0);
    for (let i = 0; i < 100; i++) await off.count('10.0.0.1');
    assert.equal(await off.waitFor('10.0.0.1'), 0);
  });
  it('counts an IPv6 address by its /64 and an IPv4-mapped one as IPv4', () => {
    assert.equal(addressKey('2001:db8:1:2:aaaa::1'), addressKey('2001:db8:1:2:bbbb::2'));
    assert.notEqual(addressKey('2001:db8:1:2::1'), addressKey('2001:db8:1:3::1'));
    assert.equal(addressKey('::ffff:203.0.113.7'), '203.0.113.7');
  });
});

for (const dialect of DIALECTS)
  describe(`failed authentications from one address (${dialect})`, () => {
    let h: Harness;
    let base = '';
    before(async () => {
      h = await startHarness({ dialect, authFailuresPerMinute: ALLOWED, oauthServer: true });
      base = await h.app.listen({ host: '127.0.0.1', port: 0 });
    });
    after(() => h.close());

    const call = (token: string | null, remoteAddress: string) =>
      h.app.inject({
        method: 'GET',
        url: '/api/v1/workers?limit=1',
        remoteAddress,
        headers: token === null ? {} : { authorization: `Bearer ${token}` },
      });

    it('never counts a request without a credential: discovery from a shared address', async () => {
      const office = '198.51.100.20';
      for (let i = 0; i < ALLOWED * 3; i++) {
        const answer = await call(null, office);
        assert.equal(answer.statusCode, 401);
        assert.doesNotMatch(String(answer.headers['www-authenticate']), /error=/);
      }
      assert.equal((await call(wrongKey(0), office)).statusCode, 401, 'not blocked');
    });

    it('answers a wrong credential past the limit 429, cheaply, and a correct one as always', async () => {
      const attacker = '203.0.113.7';
      for (let i = 0; i < ALLOWED; i++)
        assert.equal((await call(wrongKey(i), attacker)).statusCode, 401, `failure ${i + 1}`);
      const blocked = await call(wrongKey(99), attacker);
      assert.equal(blocked.statusCode, 429, blocked.body);
      assert.equal(blocked.json().error.code, 'rate_limited');
      assert.match(blocked.json().error.message, /^Too many failed authentications/);
      assert.ok(Number(blocked.headers['retry-after']) >= 1);
      assert.equal(blocked.headers.connection, 'close');
      // No credential: discovery, the 401 challenge as ever.
      assert.equal((await call(null, attacker)).statusCode, 401);
      // A key never seen before from this address, and the others: accepted.
      const fresh = await createToken(
        h.store,
        { workspaceId: WS, role: 'staff', scopes: ALL_SCOPES },
        new Date(),
      );
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal((await call(fresh, attacker)).statusCode, 200);
      assert.equal((await call(h.tokens.worker, attacker)).statusCode, 200);
      assert.equal((await call(wrongKey(100), '198.51.100.9')).statusCode, 401, 'elsewhere: 401');
    });

    it('accepts the built-in server’s correct tokens, codes and keys from a blocked address', async () => {
      // This address (the tests' own, 127.0.0.1) fails until it is blocked.
      const wrong = (i: number) =>
        fetch(`${base}/api/v1/workers?limit=1`, {
          headers: { authorization: `Bearer ${wrongKey(1000 + i)}` },
        });
      for (let i = 0; i < ALLOWED; i++) assert.equal((await wrong(i)).status, 401);
      assert.equal((await wrong(ALLOWED)).status, 429);
      // A person signs in with a correct key; the code and the refresh token are accepted.
      const { tokens, client } = await signIn(base, personWith({ key: h.tokens.staff }));
      const api = await fetch(`${base}/api/v1/workers?limit=1`, {
        headers: { authorization: `Bearer ${tokens.access_token}` },
      });
      assert.equal(api.status, 200);
      const refreshed = await refreshRequest(base, client, tokens.refresh_token);
      assert.equal(refreshed.status, 200, JSON.stringify(refreshed.body));
      // Wrong ones from here: 429, at the token endpoint and on the sign-in page.
      const replay = await refreshRequest(base, client, 'no-such-refresh-token');
      assert.equal(replay.status, 429, JSON.stringify(replay.body));
      assert.equal(replay.body.error, 'temporarily_unavailable');
      const { page } = await authorize(base, new TestBrowser(personWith({ key: wrongKey(5000) })), {
        client: await registerClient(base),
      });
      assert.equal(page?.status, 429);
      assert.match(page?.html ?? '', /Too many wrong access keys/);
    });
  });
