/**
 * Authorization requests from anyone (DESIGN §4.16): not an open redirector (a new client's
 * failing request shows a page, whether or not the browser holds a sign-in session; a client
 * that had a grant gets its errors at its redirect URI); a request's parameters bounded in size;
 * a plain OAuth client's `offline_access` gives a refresh token without `prompt=consent`; the
 * consent page names where an app's own scheme sends the person back; the provider's URLs are
 * the issuer's whatever Host or X-Forwarded-Host a client sends. Both stores.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MAX_AUTHORIZATION_QUERY } from '../../src/oauth-server/mount.js';
import { whereBack } from '../../src/oauth-server/interactions.js';
import { DIALECTS, startHarness, type Harness } from '../support/harness.js';
import { personWith, TestBrowser } from '../support/oauth-browser.js';
import { authorize, registerClient, signIn } from '../support/oauth-flow.js';

/**
 * Authorization requests that fail whoever the browser is: no PKCE, PKCE `plain`, an implicit
 * response type, a malformed scope, and `prompt=none` (nobody may be asked: for a client nobody
 * allowed yet, `consent_required` or `login_required`).
 */
const FAILING_REQUESTS: Record<string, string | undefined>[] = [
  { code_challenge: undefined, code_challenge_method: undefined },
  { code_challenge_method: 'plain' },
  { response_type: 'token' },
  { scope: 'read:workforce bogus\u0001scope' },
  { prompt: 'none' },
];

/** Authorization requests an address may start an hour here (the tests' own requests are apart). */
const AUTHORIZATIONS = 3;

describe('where the consent page says the app sends the person back', () => {
  it('names a web origin, and an app scheme with its authority, never "null"', () => {
    assert.equal(whereBack('https://claude.ai/api/mcp/auth_callback'), 'https://claude.ai');
    assert.equal(whereBack('http://127.0.0.1:33418/cb'), 'http://127.0.0.1:33418');
    assert.equal(
      whereBack('cursor://anysphere.cursor-retrieval/oauth/callback'),
      'cursor://anysphere.cursor-retrieval',
    );
    assert.equal(whereBack('com.example.app:/oauth2redirect'), 'com.example.app:');
  });
});

for (const dialect of DIALECTS)
  describe(`authorization requests from anyone (${dialect})`, () => {
    let h: Harness;
    let base = '';
    before(async () => {
      h = await startHarness({ dialect, oauthServer: true });
      base = await h.app.listen({ host: '127.0.0.1', port: 0 });
    });
    after(() => h.close());
    const staff = () => personWith({ key: h.tokens.staff });

    it('shows a page, not a redirect, when a new client’s request fails before anyone signed in', async () => {
      const target = 'https://attacker.example/landing';
      const client = await registerClient(base, { redirect_uris: [target] });
      for (const params of [
        { code_challenge: undefined },
        { scope: 'read:workforce bogus\u0001scope' },
        { response_type: 'token' },
        { code_challenge_method: 'plain' },
      ]) {
        const url = new URL(`${base}/oauth/authorize`);
        const query = {
          response_type: 'code',
          client_id: client.client_id,
          redirect_uri: target,
          scope: 'read:workforce',
          state: 's',
          code_challenge: 'x'.repeat(43),
          code_challenge_method: 'S256',
          ...params,
        };
        for (const [name, value] of Object.entries(query))
          if (value !== undefined) url.searchParams.set(name, value);
        for (const response_mode of [undefined, 'fragment', 'form_post']) {
          if (response_mode) url.searchParams.set('response_mode', response_mode);
          const answer = await fetch(url, { redirect: 'manual' });
          const body = await answer.text();
          assert.equal(answer.headers.get('location'), null, `${url}`);
          assert.equal(answer.status, 400, `${url}: ${body}`);
          assert.doesNotMatch(body, /attacker\.example/);
        }
      }
    });

    it('shows a page, not a redirect, when a new client’s request fails in a browser signed in', async () => {
      // A person signs in through another app, with an access key, in this browser: its cookies
      // hold the server's session from then on.
      const browser = new TestBrowser(staff());
      const other = await registerClient(base);
      const signedIn = await authorize(base, browser, { client: other });
      assert.ok(signedIn.callback?.searchParams.get('code'), 'signed in');
      const target = 'https://evil.example/cb';
      const fresh = await registerClient(base, { redirect_uris: [target] });
      // The same browser, answering no page from now on.
      const signedInBrowser = browser.answering(() => null);
      // The session is there: a well-formed request of the new client goes straight to consent.
      const consent = await authorize(base, signedInBrowser, { client: fresh });
      assert.match(consent.page?.html ?? '', /name="decision"/);
      for (const params of FAILING_REQUESTS)
        for (const response_mode of [undefined, 'query', 'fragment', 'form_post']) {
          const { callback, page } = await authorize(base, signedInBrowser, {
            client: fresh,
            params: { ...params, response_mode },
          });
          const said = JSON.stringify({ ...params, response_mode }, (_k, v: unknown) => v ?? null);
          assert.equal(callback, null, `${said}: sent back to ${callback}`);
          assert.equal(page?.status, 400, `${said}: ${page?.html}`);
          assert.doesNotMatch(page?.html ?? '', /evil\.example/, said);
          assert.match(page?.html ?? '', /This app asked for something it cannot have/, said);
        }
    });

    it('redirects a failing request of a client that had a grant, signed in or not', async () => {
      const { client } = await signIn(base, staff());
      // A browser that holds a session too (signed in to this same client), then answers nothing.
      const browser = new TestBrowser();
      await authorize(base, browser.answering(staff()), { client });
      // With the session and the grant, prompt=none is no failure: it gets a code.
      const failing = (who: TestBrowser) =>
        who === browser ? FAILING_REQUESTS.filter((p) => p.prompt !== 'none') : FAILING_REQUESTS;
      for (const who of [browser, new TestBrowser()])
        for (const params of failing(who)) {
          const { callback, state } = await authorize(base, who, { client, params });
          const said = JSON.stringify(params, (_k, v: unknown) => v ?? null);
          assert.ok(callback, `${said}: not sent back`);
          // In the query, or in the fragment for a response type that asks for one.
          const answer = callback.searchParams.has('error')
            ? callback.searchParams
            : new URLSearchParams(callback.hash.slice(1));
          assert.ok(answer.get('error'), `${said}: ${callback}`);
          assert.equal(answer.get('state'), state, said);
          assert.equal(answer.get('iss'), base, said);
        }
    });

    it('refuses an authorization request whose parameters pass 4 KiB, with a page', async () => {
      const client = await registerClient(base);
      const { page, callback } = await authorize(base, new TestBrowser(staff()), {
        client,
        params: { state: 's'.repeat(MAX_AUTHORIZATION_QUERY) },
      });
      assert.equal(callback, null);
      assert.equal(page?.status, 400);
      assert.match(page?.html ?? '', /too long/);
      // Just under it: the sign-in goes on.
      const fits = await authorize(base, new TestBrowser(staff()), {
        client,
        params: { state: 's'.repeat(MAX_AUTHORIZATION_QUERY - 1000) },
      });
      assert.ok(fits.callback?.searchParams.get('code'));
    });

    it('gives a plain OAuth client asking for offline_access a refresh token without prompt=consent', async () => {
      const plain = await signIn(base, staff(), {
        scope: 'read:workforce offline_access',
        params: { prompt: undefined },
      });
      assert.ok(plain.tokens.refresh_token, JSON.stringify(plain.tokens));
      // An OpenID Connect request keeps OpenID's rule: offline_access needs prompt=consent.
      const oidc = await signIn(base, staff(), {
        scope: 'openid read:workforce offline_access',
        params: { prompt: undefined },
      });
      assert.equal(oidc.tokens.refresh_token, undefined);
    });

    it('says where an app’s own scheme sends the person back', async () => {
      const redirect = 'cursor://anysphere.cursor-retrieval/oauth/callback';
      const client = await registerClient(base, { redirect_uris: [redirect] });
      const pages: string[] = [];
      await authorize(
        base,
        new TestBrowser((page) => {
          pages.push(page.html);
          return staff()(page);
        }),
        { client },
      );
      const consent = pages.find((html) => html.includes('name="decision"')) ?? '';
      assert.match(
        consent,
        /send you back to <code>cursor:\/\/anysphere\.cursor-retrieval<\/code>/,
      );
      assert.doesNotMatch(consent, /<code>null<\/code>/);
    });

    it('makes its URLs from its issuer, whatever Host or X-Forwarded-Host says', async () => {
      const metadata = (await (
        await fetch(`${base}/.well-known/oauth-authorization-server`, {
          headers: { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' },
        })
      ).json()) as Record<string, string>;
      assert.equal(metadata.issuer, base);
      assert.equal(metadata.authorization_endpoint, `${base}/oauth/authorize`);
      assert.equal(metadata.token_endpoint, `${base}/oauth/token`);
    });
  });

describe('authorization requests per address', () => {
  let h: Harness;
  let base = '';
  before(async () => {
    h = await startHarness({
      oauthServer: true,
      authorizationsPerHour: AUTHORIZATIONS,
      trustedProxies: ['127.0.0.1'],
    });
    base = await h.app.listen({ host: '127.0.0.1', port: 0 });
  });
  after(() => h.close());

  it('bounds the authorization requests one address starts, its real one behind the proxy', async () => {
    const client = await registerClient(base);
    const start = (address: string) =>
      fetch(
        `${base}/oauth/authorize?${new URLSearchParams({
          response_type: 'code',
          client_id: client.client_id,
          redirect_uri: client.redirect_uris[0],
          scope: 'read:workforce',
          code_challenge: 'x'.repeat(43),
          code_challenge_method: 'S256',
        })}`,
        { redirect: 'manual', headers: { 'x-forwarded-for': address } },
      );
    for (let i = 0; i < AUTHORIZATIONS; i++)
      assert.equal((await start('203.0.113.60')).status, 303, `request ${i + 1}`);
    const refused = await start('203.0.113.60');
    assert.equal(refused.status, 429);
    assert.ok(Number(refused.headers.get('retry-after')) > 0);
    assert.match(await refused.text(), /Too many sign-ins from here/);
    assert.equal((await start('203.0.113.61')).status, 303, 'another address');
  });
});
