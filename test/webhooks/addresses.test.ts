/**
 * IPv6 addresses that carry an IPv4 one (DESIGN §4.14, "On the open internet"): IPv4-mapped
 * (`::ffff:0:0/96`), IPv4-translated (`::ffff:0:0:0/96`), IPv4-compatible (`::/96`), NAT64
 * (`64:ff9b::/96`) and 6to4 (`2002::/16`, the IPv4 in bits 16–48) are judged by that IPv4
 * address, at `webhook create` (checkWebhookUrl) and when a delivery connects (postWebhook: a
 * literal host, or a name resolving to it), which call the same function. Many spellings of each.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import {
  checkWebhookUrl,
  isPublicAddress,
  WebhookAddressError,
} from '../../src/webhooks/addresses.js';
import { postWebhook } from '../../src/webhooks/post.js';

/** Hosts as a URL spells them, each with the IPv4 address (if any) it is judged by. */
const REFUSED: readonly [host: string, carried: string | null][] = [
  // IPv4-compatible, ::/96 (deprecated; the URL parser rewrites the dotted form to hex)
  ['[::127.0.0.1]', '127.0.0.1'],
  ['[::7f00:1]', '127.0.0.1'],
  ['[0:0:0:0:0:0:7f00:1]', '127.0.0.1'],
  ['[::7F00:0001]', '127.0.0.1'],
  ['[::10.0.0.1]', '10.0.0.1'],
  ['[::a00:1]', '10.0.0.1'],
  ['[::169.254.169.254]', '169.254.169.254'],
  ['[::a9fe:a9fe]', '169.254.169.254'],
  ['[::192.168.1.1]', '192.168.1.1'],
  ['[::100.64.0.1]', '100.64.0.1'],
  ['[::224.0.0.1]', '224.0.0.1'],
  ['[::0.0.0.2]', '0.0.0.2'],
  // IPv4-mapped, ::ffff:0:0/96
  ['[::ffff:127.0.0.1]', '127.0.0.1'],
  ['[::ffff:7f00:1]', '127.0.0.1'],
  ['[0:0:0:0:0:ffff:7f00:1]', '127.0.0.1'],
  ['[::ffff:169.254.169.254]', '169.254.169.254'],
  ['[::ffff:a9fe:a9fe]', '169.254.169.254'],
  ['[::ffff:10.1.2.3]', '10.1.2.3'],
  ['[::ffff:0.0.0.0]', '0.0.0.0'],
  // IPv4-translated, ::ffff:0:0:0/96
  ['[::ffff:0:127.0.0.1]', '127.0.0.1'],
  ['[::ffff:0:a9fe:a9fe]', '169.254.169.254'],
  // NAT64, 64:ff9b::/96
  ['[64:ff9b::10.0.0.1]', '10.0.0.1'],
  ['[64:ff9b::a00:1]', '10.0.0.1'],
  ['[64:ff9b:0:0:0:0:7f00:1]', '127.0.0.1'],
  ['[64:ff9b::169.254.169.254]', '169.254.169.254'],
  ['[64:ff9b::192.168.0.1]', '192.168.0.1'],
  ['[64:ff9b::]', '0.0.0.0'],
  // 6to4, 2002::/16: the IPv4 address in bits 16–48, whatever follows
  ['[2002:c0a8:0101::]', '192.168.1.1'],
  ['[2002:c0a8:101::1]', '192.168.1.1'],
  ['[2002:7f00:1::]', '127.0.0.1'],
  ['[2002:7f00:0001:ffff:ffff:ffff:ffff:ffff]', '127.0.0.1'],
  ['[2002:a9fe:a9fe::1]', '169.254.169.254'],
  ['[2002:a00:1:1::5]', '10.0.0.1'],
  ['[2002::]', '0.0.0.0'],
  // Unspecified and loopback are themselves, not the IPv4 addresses 0.0.0.0 and 0.0.0.1
  ['[::]', null],
  ['[::1]', null],
  ['[0:0:0:0:0:0:0:1]', null],
  // Local-use NAT64 (64:ff9b:1::/48, RFC 8215) translates by a network's own rules: refused
  ['[64:ff9b:1::808:808]', null],
];

/** Public IPv4 addresses carried by IPv6 ones: accepted, as their IPv4 address is. */
const ACCEPTED = [
  '[::ffff:8.8.8.8]',
  '[::ffff:808:808]',
  '[64:ff9b::8.8.8.8]',
  '[64:ff9b::5db8:d822]',
  '[2002:808:808::1]',
  '[2002:5db8:d822:1::]',
  '[::ffff:0:8.8.8.8]',
  '[2606:4700:4700::1111]',
];

const bare = (host: string) => new URL(`https://${host}/`).hostname.replace(/^\[|\]$/g, '');

describe('an IPv6 address that carries an IPv4 one', () => {
  let server: Server;
  let port: number;
  let requests = 0;
  before(async () => {
    server = createServer((request, response) => {
      requests++;
      response.writeHead(204).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  it('is refused at `webhook create` when the IPv4 address it carries is not public', async () => {
    for (const [host, carried] of REFUSED) {
      assert.equal(isPublicAddress(bare(host)), false, host);
      await assert.rejects(
        checkWebhookUrl(`https://${host}/hook`, { allowInsecure: false }),
        (error: unknown) => {
          assert.ok(error instanceof WebhookAddressError, host);
          const said = carried === null ? '' : ` \\(IPv4 ${carried.replace(/\./g, '\\.')}\\)`;
          assert.match(error.message, new RegExp(`^\\S+${said} is not a public address`), host);
          return true;
        },
      );
    }
  });

  it('is refused when a delivery connects, as a literal or as what a name resolves to, sending nothing', async () => {
    for (const [host] of REFUSED) {
      const literal = await postWebhook(
        new URL(`https://${host}:${port}/`),
        '{}',
        {},
        {
          allowInsecure: false,
        },
      );
      assert.ok('error' in literal && /is not a public address/.test(literal.error), host);
      // A name that was public at `create` and now answers with this address (DNS rebinding).
      const rebound = await postWebhook(
        new URL(`http://hooks.example.com:${port}/`),
        '{}',
        {},
        {
          allowInsecure: false,
          resolve: async () => ['8.8.8.8', bare(host)],
        },
      );
      assert.ok(
        'error' in rebound &&
          rebound.error.startsWith(`hooks.example.com resolves to ${bare(host)}`) &&
          rebound.error.includes('which is not a public address'),
        `${host}: ${JSON.stringify(rebound)}`,
      );
    }
    assert.equal(requests, 0, 'nothing reached the receiver');
  });

  it('is accepted when the IPv4 address it carries is public', async () => {
    for (const host of ACCEPTED) {
      assert.equal(isPublicAddress(bare(host)), true, host);
      const url = await checkWebhookUrl(`https://${host}/hook`, { allowInsecure: false });
      assert.equal(url.pathname, '/hook');
    }
  });
});
