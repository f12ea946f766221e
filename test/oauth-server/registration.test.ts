/**
 * Registration on the open internet (DESIGN §4.16): open and bounded. A body over 8 KiB as sent,
 * one without a length, a `client_name` over 100 characters, a redirect URI that is `http`
 * elsewhere than on loopback or carries a user or password are refused with
 * `invalid_client_metadata`; one address registers at most VMS_READ_REGISTRATIONS_PER_HOUR
 * clients (its real address behind a trusted proxy); a registration keeps one record, and a
 * client nobody signed in to is gone after VMS_READ_UNUSED_CLIENT_HOURS. Both stores.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { MAX_CLIENT_NAME } from '../../src/oauth-server/client-policy.js';
import { MAX_REGISTRATION_BYTES } from '../../src/oauth-server/mount.js';
import { USED_CLIENT } from '../../src/oauth-server/record-adapter.js';
import { DIALECTS, startHarness, type Harness } from '../support/harness.js';
import { personWith, TestBrowser } from '../support/oauth-browser.js';
import { authorize, CALLBACK, signIn } from '../support/oauth-flow.js';

const REGISTRATIONS = 3;
/** 1.8 s: long enough to register and sign in, short enough to wait out in a test. */
const UNUSED_HOURS = 0.0005;

/** POST /oauth/register with `metadata` as JSON, from `forwardedFor` when given (through the proxy). */
async function register(base: string, metadata: Record<string, unknown>, forwardedFor?: string) {
  const response = await fetch(`${base}/oauth/register`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}),
    },
    body: JSON.stringify({
      redirect_uris: [CALLBACK],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      ...metadata,
    }),
  });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as Record<string, string>,
  };
}

for (const dialect of DIALECTS)
  describe(`registration on the open internet (${dialect})`, () => {
    let h: Harness;
    let base = '';
    let n = 0;
    /** Each registration from an address of its own, unless a test counts them. */
    const anywhere = () => `198.51.100.${++n}`;
    before(async () => {
      h = await startHarness({
        dialect,
        oauthServer: true,
        registrationsPerHour: REGISTRATIONS,
        unusedClientHours: UNUSED_HOURS,
        trustedProxies: ['127.0.0.1'],
      });
      base = await h.app.listen({ host: '127.0.0.1', port: 0 });
    });
    after(() => h.close());

    const records = () => h.store.authorizationRecords();

    it('refuses a body over 8 KiB as sent, and one without a length', async () => {
      const big = await register(
        base,
        { client_name: 'x', software_statement_padding: 'p'.repeat(MAX_REGISTRATION_BYTES) },
        anywhere(),
      );
      assert.equal(big.status, 400);
      assert.equal(big.body.error, 'invalid_client_metadata');
      const chunked = await new Promise<number>((resolve, reject) => {
        const { port } = new URL(base);
        const req = request(
          {
            host: '127.0.0.1',
            port,
            method: 'POST',
            path: '/oauth/register',
            headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.end(JSON.stringify({ redirect_uris: [CALLBACK] }));
      });
      assert.equal(chunked, 411);
    });

    it('refuses a client_name over 100 characters, counted as code points', async () => {
      const emoji = '😀'.repeat(MAX_CLIENT_NAME);
      assert.equal((await register(base, { client_name: emoji }, anywhere())).status, 201);
      const long = await register(base, { client_name: `${emoji}x` }, anywhere());
      assert.equal(long.status, 400);
      assert.equal(long.body.error, 'invalid_client_metadata');
      assert.match(long.body.error_description, /client_name/);
    });

    it('takes https, loopback http and private-use redirect URIs, and refuses the rest', async () => {
      for (const uri of [
        'https://app.example/callback',
        'http://127.0.0.1:33418/callback',
        'http://[::1]:4000/cb',
        'http://localhost/cb',
        'cursor://anysphere.cursor-retrieval/oauth/callback',
        'com.example.app:/oauth2redirect',
      ]) {
        const answer = await register(base, { redirect_uris: [uri] }, anywhere());
        assert.equal(answer.status, 201, `${uri}: ${JSON.stringify(answer.body)}`);
      }
      for (const uri of [
        'http://app.example/callback',
        'http://10.0.0.5/callback',
        'https://user:secret@app.example/callback',
        'https://token@app.example/callback',
        'javascript:alert(1)',
        'data:text/html,hi',
        'file:///etc/passwd',
      ]) {
        const answer = await register(base, { redirect_uris: [uri] }, anywhere());
        assert.equal(answer.status, 400, uri);
        assert.equal(answer.body.error, 'invalid_client_metadata', uri);
      }
    });

    it('keeps one record per registration, no registration access token', async () => {
      const { body } = await register(base, { client_name: 'one record' }, anywhere());
      assert.equal(body.registration_access_token, undefined);
      assert.ok(await records().findOAuthRecord('Client', body.client_id, Date.now()));
      assert.equal(
        await records().findOAuthRecord('RegistrationAccessToken', body.client_id, Date.now()),
        null,
      );
    });

    it('bounds registrations per address, the real one behind a trusted proxy', async () => {
      const address = '203.0.113.50';
      for (let i = 0; i < REGISTRATIONS; i++)
        assert.equal((await register(base, {}, address)).status, 201, `registration ${i + 1}`);
      const refused = await register(base, {}, address);
      assert.equal(refused.status, 429);
      assert.equal(refused.body.error, 'temporarily_unavailable');
      assert.ok(Number(refused.headers.get('retry-after')) > 0);
      // Another client behind the same proxy: its own count.
      assert.equal((await register(base, {}, '203.0.113.51')).status, 201);
      // Refused ones are not counted: the same address is refused, not pushed further.
      assert.equal((await register(base, {}, address)).status, 429);
    });

    it('removes a client nobody signed in to, and keeps one that has a grant', async () => {
      const unused = await register(base, { client_name: 'never used' }, anywhere());
      const used = await register(base, { client_name: 'used' }, anywhere());
      const client = { client_id: used.body.client_id, redirect_uris: [CALLBACK] };
      await signIn(base, personWith({ key: h.tokens.staff }), { client });
      assert.ok(await records().findOAuthRecord(USED_CLIENT, client.client_id, Date.now()));
      await new Promise((resolve) => setTimeout(resolve, UNUSED_HOURS * 3600_000 + 200));
      // It can no longer start an authorization: an error page, no redirect.
      const { callback, page } = await authorize(
        base,
        new TestBrowser(personWith({ key: h.tokens.staff })),
        { client: { client_id: unused.body.client_id, redirect_uris: [CALLBACK] } },
      );
      assert.equal(callback, null);
      assert.equal(page?.status, 400);
      const swept = await records().deleteExpiredOAuthRecords(Date.now());
      assert.ok(swept >= 1, String(swept));
      assert.equal(await records().findOAuthRecord('Client', unused.body.client_id, 0), null);
      // The used one stays, and signs in again.
      assert.ok(await records().findOAuthRecord('Client', client.client_id, Date.now()));
      await signIn(base, personWith({ key: h.tokens.staff }), { client });
    });
  });

describe('the built-in server failing', () => {
  let h: Harness;
  let base = '';
  const lines: { level: number; msg: string; err?: { message?: string } }[] = [];
  before(async () => {
    h = await startHarness({
      oauthServer: true,
      logger: { level: 'warn', stream: { write: (line: string) => lines.push(JSON.parse(line)) } },
    });
    base = await h.app.listen({ host: '127.0.0.1', port: 0 });
  });
  after(() => h.close());

  it('logs its 500s, which the library answers itself, at error level', async () => {
    const records = h.store.authorizationRecords();
    // A registration's write (the ceiling on unused clients held in the same statement).
    const add = records.addOAuthRecordWithin;
    records.addOAuthRecordWithin = async () => {
      throw new Error('the disk is full');
    };
    try {
      const answer = await register(base, { client_name: 'fails' });
      assert.equal(answer.status, 500);
      assert.equal(answer.body.error, 'server_error');
    } finally {
      records.addOAuthRecordWithin = add;
    }
    const logged = lines.find((line) => line.msg === 'authorization server failed a request');
    assert.ok(logged, JSON.stringify(lines));
    assert.equal(logged.level, 50);
    assert.equal(logged.err?.message, 'the disk is full');
  });
});
