/**
 * The client's address (DESIGN §4.16; src/http/client-address.ts) and what is bounded by it:
 * X-Forwarded-For (or, without it, Forwarded) believed from the proxies VMS_READ_TRUSTED_PROXIES
 * names only, the rightmost entry that is not one of them; and requests without a credential,
 * bounded per address (VMS_READ_ANONYMOUS_PER_MINUTE), 429 past it, /healthz aside.
 */
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { clientAddressOf } from '../../src/http/client-address.js';
import { startHarness, type Harness } from '../support/harness.js';

/** A request as the resolver sees it: its peer and its headers. */
const raw = (peer: string, headers: Record<string, string> = {}) =>
  ({ socket: { remoteAddress: peer }, headers }) as unknown as IncomingMessage;

describe('the client address', () => {
  const behind = clientAddressOf(['127.0.0.1', '10.0.0.0/8', '::1']);

  it('is the peer when no proxy is trusted, whatever the headers say', () => {
    const open = clientAddressOf([]);
    assert.equal(open(raw('203.0.113.9', { 'x-forwarded-for': '1.2.3.4' })), '203.0.113.9');
    assert.equal(open(raw('::ffff:203.0.113.9')), '203.0.113.9');
  });

  it('is the peer when the peer is not a trusted proxy', () => {
    assert.equal(behind(raw('203.0.113.9', { 'x-forwarded-for': '1.2.3.4' })), '203.0.113.9');
  });

  it('is the rightmost untrusted entry of X-Forwarded-For from a trusted proxy', () => {
    const cases: [string, string][] = [
      ['198.51.100.7', '198.51.100.7'],
      ['6.6.6.6, 198.51.100.7', '198.51.100.7'],
      ['6.6.6.6, 198.51.100.7, 10.1.2.3', '198.51.100.7'],
      ['198.51.100.7,10.1.2.3,10.9.9.9', '198.51.100.7'],
      ['2001:db8::7', '2001:db8::7'],
      ['[2001:db8::7]:4711', '2001:db8::7'],
      ['198.51.100.7:5555', '198.51.100.7'],
      // Everything trusted: the farthest hop named.
      ['10.1.1.1, 10.2.2.2', '10.1.1.1'],
      // A hop that is no address: the last address known stands.
      ['garbage', '127.0.0.1'],
      ['198.51.100.7, garbage', '127.0.0.1'],
    ];
    for (const [header, expected] of cases)
      assert.equal(behind(raw('127.0.0.1', { 'x-forwarded-for': header })), expected, header);
  });

  it('reads Forwarded only without X-Forwarded-For', () => {
    assert.equal(
      behind(raw('::1', { forwarded: 'for=6.6.6.6, for="[2001:db8:cafe::17]:4711";proto=https' })),
      '2001:db8:cafe::17',
    );
    assert.equal(behind(raw('127.0.0.1', { forwarded: 'for=unknown' })), '127.0.0.1');
    assert.equal(behind(raw('127.0.0.1', { forwarded: 'not a header' })), '127.0.0.1');
    assert.equal(
      behind(raw('127.0.0.1', { forwarded: 'for=6.6.6.6', 'x-forwarded-for': '198.51.100.2' })),
      '198.51.100.2',
    );
  });

  it('tells once of forwarding headers from a private peer it does not trust', () => {
    const told: string[] = [];
    const open = clientAddressOf([], (peer) => told.push(peer));
    open(raw('203.0.113.9', { 'x-forwarded-for': '1.2.3.4' }));
    assert.deepEqual(told, [], 'a public peer: an attacker, not a proxy');
    open(raw('10.0.0.5', { 'x-forwarded-for': '1.2.3.4' }));
    open(raw('10.0.0.6', { 'x-forwarded-for': '1.2.3.4' }));
    assert.deepEqual(told, ['10.0.0.5']);
  });
});

describe('requests without a credential, per address', () => {
  let h: Harness;
  let base = '';
  const LIMIT = 5;
  before(async () => {
    h = await startHarness({ anonymousPerMinute: LIMIT, trustedProxies: ['127.0.0.1'] });
    base = await h.app.listen({ host: '127.0.0.1', port: 0 });
  });
  after(() => h.close());

  const from = (address: string, path = '/openapi.json', token?: string) =>
    fetch(`${base}${path}`, {
      headers: {
        'x-forwarded-for': address,
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
    });

  it('answers 429 past the bound, with Retry-After, the connection closed', async () => {
    for (let i = 0; i < LIMIT; i++) assert.equal((await from('203.0.113.1')).status, 200);
    const refused = await from('203.0.113.1', '/.well-known/oauth-protected-resource');
    assert.equal(refused.status, 429);
    assert.equal(refused.headers.get('connection'), 'close');
    assert.ok(Number(refused.headers.get('retry-after')) >= 1);
    const body = (await refused.json()) as { error: { code: string; message: string } };
    assert.equal(body.error.code, 'rate_limited');
    assert.match(body.error.message, /without a credential/);
  });

  it('leaves other addresses, requests with a token, and /healthz alone', async () => {
    for (let i = 0; i < LIMIT + 2; i++) await from('203.0.113.2');
    assert.equal((await from('203.0.113.3')).status, 200, 'another client behind the proxy');
    assert.equal((await from('203.0.113.2', '/api/v1/workers', h.tokens.staff)).status, 200);
    assert.equal((await from('203.0.113.2', '/healthz')).status, 200);
  });
});
