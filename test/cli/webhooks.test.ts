/**
 * Webhook subscriptions (DESIGN §4.14), first part: where one may send (https and public
 * addresses only, unless VMS_READ_WEBHOOK_ALLOW_INSECURE=1; a name is judged by every address it
 * resolves to), and the commands that make and manage them, on both stores. The secret is one a
 * Standard Webhooks library takes: a message signed with it verifies.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import {
  checkWebhookUrl,
  isPublicAddress,
  WebhookAddressError,
} from '../../src/webhooks/addresses.js';
import { runCli, staffKeyByCli } from '../support/cli.js';
import { DIALECTS, openTestDatabase, type TestDatabase } from '../support/test-databases.js';

const WS = 'ws_business';
const INSECURE = { VMS_READ_WEBHOOK_ALLOW_INSECURE: '1' };

describe('where a webhook may be sent', () => {
  it('takes only public addresses, IPv4 and IPv6, an IPv4-mapped one as its IPv4', () => {
    const inside = [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
      '::1',
      '::',
      'fe80::1',
      'fc00::1',
      'fd12:3456::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      'not an address',
    ];
    for (const address of inside) assert.equal(isPublicAddress(address), false, address);
    for (const address of ['8.8.8.8', '93.184.216.34', '2606:4700:4700::1111', '::ffff:8.8.8.8'])
      assert.equal(isPublicAddress(address), true, address);
  });

  const secure = (resolve?: (host: string) => Promise<string[]>) => ({
    allowInsecure: false,
    resolve,
  });
  const refused = async (
    url: string,
    pattern: RegExp,
    resolve?: (host: string) => Promise<string[]>,
  ) =>
    assert.rejects(checkWebhookUrl(url, secure(resolve)), (error: unknown) => {
      assert.ok(error instanceof WebhookAddressError);
      assert.match(error.message, pattern);
      return true;
    });

  it('refuses http, credentials, private literals, and names resolving to any private address', async () => {
    await refused('http://hooks.example.com/x', /must be https/);
    await refused('not a url', /not an absolute URL/);
    await refused('https://user:pw@hooks.example.com/x', /user name or password/);
    await refused('https://127.0.0.1/x', /^127\.0\.0\.1 is not a public address/);
    await refused('https://[::1]:8443/x', /^::1 is not a public address/);
    await refused('https://169.254.169.254/latest/meta-data', /not a public address/);
    // A name with one public and one private address: refused (DNS may give either).
    await refused(
      'https://hooks.example.com/x',
      /^hooks\.example\.com resolves to 10\.0\.0\.5, which is not a public address/,
      async () => ['93.184.216.34', '10.0.0.5'],
    );
    await refused('https://nowhere.example/x', /does not resolve/, async () => {
      throw new Error('ENOTFOUND');
    });
    // The system's resolver: localhost is loopback.
    await refused('https://localhost/x', /^localhost resolves to (127\.0\.0\.1|::1), which/);
  });

  it('takes an https URL whose name resolves only to public addresses, and anything with the insecure setting', async () => {
    const url = await checkWebhookUrl(
      'https://hooks.example.com/vms?x=1',
      secure(async () => ['93.184.216.34', '2606:4700:4700::1111']),
    );
    assert.equal(url.hostname, 'hooks.example.com');
    await checkWebhookUrl('https://8.8.8.8/x', secure());
    await checkWebhookUrl('http://127.0.0.1:9/x', { allowInsecure: true });
    await assert.rejects(checkWebhookUrl('ftp://127.0.0.1/x', { allowInsecure: true }));
  });
});

for (const dialect of DIALECTS) {
  describe(`vms-read webhook create|list|disable|enable|delete (${dialect})`, () => {
    let db: TestDatabase;
    let token: string;
    before(async () => {
      db = await openTestDatabase(dialect);
      token = staffKey('read:program,read:financial,read:workforce');
    });
    after(() => db.drop());

    /** A staff access key of the workspace, minted by the CLI. */
    const staffKey = (scopes: string) => staffKeyByCli(db.db, WS, scopes);

    const list = () => {
      const listed = runCli(['webhook', 'list', '--db', db.db, '--json']);
      assert.equal(listed.status, 0, listed.stderr);
      return JSON.parse(listed.stdout) as { id: string; state: string; types: string[] | null }[];
    };

    it('refuses a URL that is not https and public with one line and exit 2, writing nothing', () => {
      for (const [url, message] of [
        ['http://127.0.0.1:9/hook', /must be https/],
        ['https://127.0.0.1/hook', /127\.0\.0\.1 is not a public address/],
        ['https://localhost/hook', /localhost resolves to .*, which is not a public address/],
      ] as const) {
        const result = runCli(['webhook', 'create', '--db', db.db, '--token', token, '--url', url]);
        assert.equal(result.status, 2, url);
        assert.match(result.stderr, message);
        assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
      }
      assert.deepEqual(list(), []);
    });

    it('makes a subscription with a Standard Webhooks secret, lists it, and follows its key', async () => {
      const created = runCli(
        [
          'webhook',
          'create',
          '--db',
          db.db,
          '--token',
          token,
          '--url',
          'http://127.0.0.1:9/hook',
          '--type',
          'invoice',
          '--type',
          'timesheet',
        ],
        INSECURE,
      );
      assert.equal(created.status, 0, created.stderr);
      const { id, secret } = JSON.parse(created.stdout) as { id: string; secret: string };
      assert.match(id, /^whk_[0-9a-f]{24}$/);
      assert.match(secret, /^whsec_[A-Za-z0-9+/]+=*$/);
      assert.equal(Buffer.from(secret.slice(6), 'base64').length, 32);
      // A receiver's library verifies what is signed with it, and nothing else.
      const receiver = new Webhook(secret);
      const headers = {
        'webhook-id': 'msg_1',
        'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
      };
      const body = '{"type":"vms.changes"}';
      const signature = receiver.sign('msg_1', new Date(), body);
      assert.deepEqual(receiver.verify(body, { ...headers, 'webhook-signature': signature }), {
        type: 'vms.changes',
      });
      assert.throws(() =>
        new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(body, {
          ...headers,
          'webhook-signature': signature,
        }),
      );

      const version = (await db.store.dataVersion()).version;
      const [listed] = list();
      assert.deepEqual(
        { ...listed, createdAt: undefined },
        {
          id,
          workspace: WS,
          url: 'http://127.0.0.1:9/hook',
          types: ['invoice', 'timesheet'],
          state: 'active',
          fromVersion: version,
          createdAt: undefined,
        },
      );
      assert.ok(!JSON.stringify(list()).includes(secret.slice(6)), 'the secret is not listed');
      const plain = runCli(['webhook', 'list', '--db', db.db]);
      assert.equal(
        plain.stdout,
        `id\tstate\tworkspace\turl\n${id}\tactive\t${WS}\thttp://127.0.0.1:9/hook\n`,
      );

      for (const [action, state] of [
        ['disable', 'disabled'],
        ['enable', 'active'],
      ] as const) {
        const result = runCli(['webhook', action, '--db', db.db, '--id', id]);
        assert.equal(result.status, 0, result.stderr);
        assert.equal(result.stdout, `${action}d\n`);
        assert.equal(list()[0].state, state);
      }
      const revoked = runCli(['token', 'revoke', '--db', db.db, '--token', token]);
      assert.equal(revoked.status, 0, revoked.stderr);
      assert.equal(list()[0].state, 'disabled', 'a revoked key disables its subscriptions');
      const again = runCli(
        ['webhook', 'create', '--db', db.db, '--token', token, '--url', 'http://127.0.0.1:9/hook'],
        INSECURE,
      );
      assert.equal(again.status, 2);
      assert.match(again.stderr, /the token is revoked or expired/);

      const deleted = runCli(['webhook', 'delete', '--db', db.db, '--id', id]);
      assert.equal(deleted.stdout, 'deleted\n');
      assert.deepEqual(list(), []);
      for (const action of ['enable', 'disable', 'delete']) {
        const unknown = runCli(['webhook', action, '--db', db.db, '--id', id]);
        assert.equal(unknown.status, 2, action);
        assert.match(unknown.stderr, new RegExp(`no such webhook: ${id}`));
      }
    });

    it('refuses an unknown token or item type with exit 2, and documents every command', () => {
      const unknown = runCli(
        ['webhook', 'create', '--db', db.db, '--token', 'vmsr_nope', '--url', 'https://8.8.8.8/'],
        INSECURE,
      );
      assert.equal(unknown.status, 2);
      assert.match(unknown.stderr, /no such token/);
      const live = staffKey('read:program');
      const badType = runCli(
        [
          'webhook',
          'create',
          '--db',
          db.db,
          '--token',
          live,
          '--url',
          'https://8.8.8.8/',
          '--type',
          'time_entry',
        ],
        INSECURE,
      );
      assert.equal(badType.status, 2);
      assert.match(
        badType.stderr,
        /--type must be one of approval_status, assignment, .*got "time_entry"/,
      );
      assert.deepEqual(list(), []);
      const group = runCli(['webhook', '--help']);
      assert.equal(group.status, 0);
      for (const action of ['create', 'list', 'disable', 'enable', 'delete', 'deliveries'])
        assert.match(group.stdout, new RegExp(`webhook ${action}`));
      const help = runCli(['webhook', 'create', '--help']);
      assert.match(help.stdout, /--type TYPE/);
      assert.match(help.stdout, /Standard\s+Webhooks/);
    });

    it('shows recent attempts, newest first, and keeps the newest 100', async () => {
      const created = runCli(
        [
          'webhook',
          'create',
          '--db',
          db.db,
          '--token',
          staffKey('read:program'),
          '--url',
          'http://127.0.0.1:9/h',
        ],
        INSECURE,
      );
      assert.equal(created.status, 0, created.stderr);
      const { id } = JSON.parse(created.stdout) as { id: string };
      const webhooks = db.store.webhooks();
      const t0 = Date.parse('2026-11-27T10:00:00.000Z');
      for (let n = 1; n <= 105; n++)
        await webhooks.recordAttempt({
          subscriptionId: id,
          messageId: `msg_${Math.ceil(n / 3)}`,
          attempt: ((n - 1) % 3) + 1,
          at: t0 + n * 1000,
          dataVersion: 7,
          items: 2,
          status: n % 3 === 0 ? 204 : null,
          answerBytes: n % 3 === 0 ? 0 : null,
          error: n % 3 === 0 ? null : 'ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:9',
          ms: 3,
          outcome: n % 3 === 0 ? 'delivered' : 'retry',
        });
      const json = runCli(['webhook', 'deliveries', '--db', db.db, '--id', id, '--json']);
      assert.equal(json.status, 0, json.stderr);
      const attempts = JSON.parse(json.stdout) as Record<string, unknown>[];
      assert.equal(attempts.length, 20, 'twenty by default');
      assert.deepEqual(attempts[0], {
        at: '2026-11-27T10:01:45.000Z',
        messageId: 'msg_35',
        attempt: 3,
        dataVersion: 7,
        items: 2,
        status: 204,
        answerBytes: 0,
        error: null,
        ms: 3,
        outcome: 'delivered',
      });
      const all = runCli(['webhook', 'deliveries', '--db', db.db, '--id', id, '--limit', '100']);
      const [header, ...lines] = all.stdout.trim().split('\n');
      assert.equal(header, 'at\toutcome\tstatus\tanswer_bytes\tms\tmessage_id\terror');
      assert.equal(lines.length, 100, 'the newest 100 are kept');
      assert.equal(lines.at(-1), '2026-11-27T10:00:06.000Z\tdelivered\t204\t0\t3\tmsg_2');
      assert.equal(
        lines.at(-2),
        '2026-11-27T10:00:07.000Z\tretry\t-\t-\t3\tmsg_3\tECONNREFUSED: connect ECONNREFUSED 127.0.0.1:9',
      );
      for (const [args, message] of [
        [['--id', 'whk_nope'], /no such webhook: whk_nope/],
        [['--id', id, '--limit', '0'], /--limit must be a whole number from 1 to 100/],
      ] as const) {
        const refused = runCli(['webhook', 'deliveries', '--db', db.db, ...args]);
        assert.equal(refused.status, 2);
        assert.match(refused.stderr, message);
      }
    });
  });
}
