/**
 * The built-in authorization server (DESIGN §4.12, issue 32): its metadata, its flow through
 * the sign-in and consent pages, what its tokens carry, and the attacks it refuses, on both stores.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hashToken } from '../../src/auth/tokens.js';
import { createToken } from '../../src/auth/tokens.js';
import { PAGES_CSP } from '../../src/oauth-server/pages.js';
import { DIALECTS, get, startHarness, WS, type Harness } from '../support/harness.js';
import { personWith, TestBrowser } from '../support/oauth-browser.js';
import {
  authorize,
  refreshRequest,
  registerClient,
  signIn,
  tokenRequest,
} from '../support/oauth-flow.js';

for (const dialect of DIALECTS) {
  describe(`the built-in authorization server (${dialect})`, () => {
    let h: Harness;
    let base = '';
    before(async () => {
      h = await startHarness({ dialect, oauthServer: true });
      base = await h.app.listen({ host: '127.0.0.1', port: 0 });
    });
    after(() => h.close());
    const staff = () => personWith({ key: h.tokens.staff });
    /** What the server keeps of one of its access tokens. */
    const ownToken = async (token: string) =>
      (await h.store.authorizationRecords().findOAuthRecord('AccessToken', token, Date.now()))
        ?.payload;
    const mint = (scopes: string[]) =>
      createToken(h.store, { workspaceId: WS, role: 'staff', scopes: scopes as never }, new Date());

    describe('metadata', () => {
      it('is served at both discovery paths, naming this server as issuer', async () => {
        const oauth = await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json();
        const oidc = await (await fetch(`${base}/.well-known/openid-configuration`)).json();
        assert.deepEqual(oauth, oidc);
        assert.equal(oauth.issuer, base);
        assert.equal(oauth.authorization_endpoint, `${base}/oauth/authorize`);
        assert.equal(oauth.token_endpoint, `${base}/oauth/token`);
        assert.equal(oauth.registration_endpoint, `${base}/oauth/register`);
        assert.equal(oauth.revocation_endpoint, `${base}/oauth/revoke`);
        assert.deepEqual(oauth.code_challenge_methods_supported, ['S256']);
        assert.deepEqual(oauth.response_types_supported, ['code']);
        assert.equal(oauth.authorization_response_iss_parameter_supported, true);
        assert.equal(oauth.client_id_metadata_document_supported, true);
        for (const scope of [
          'offline_access',
          'read:program',
          'read:financial',
          'read:workforce',
          'read:pii',
        ])
          assert.ok(oauth.scopes_supported.includes(scope), scope);
      });
      it('serves its pages under a strict policy: no script, no framing, nothing from elsewhere', async () => {
        const page = await fetch(`${base}/oauth/interaction/no-such-interaction`);
        assert.equal(page.status, 400);
        assert.equal(page.headers.get('content-security-policy'), PAGES_CSP);
        assert.equal(page.headers.get('x-frame-options'), 'DENY');
        assert.match(PAGES_CSP, /default-src 'none'/);
        assert.doesNotMatch(PAGES_CSP, /script-src/);
        assert.match(await page.text(), /This sign-in has expired/);
        const css = await fetch(`${base}/oauth/pages.css`);
        assert.equal(css.status, 200);
        assert.match(css.headers.get('content-type') ?? '', /^text\/css/);
      });
      it('is named first in the protected resource metadata', async () => {
        for (const path of ['', '/mcp']) {
          const metadata = await (
            await fetch(`${base}/.well-known/oauth-protected-resource${path}`)
          ).json();
          assert.deepEqual(metadata.authorization_servers, [base]);
        }
      });
    });

    describe('a person signs in with an access key and allows the app', () => {
      it('gives an opaque access token for this server, kept with its grant; its account is the key', async () => {
        const { tokens } = await signIn(base, staff(), {
          scope: 'read:workforce read:pii offline_access',
        });
        assert.match(tokens.access_token, /^[A-Za-z0-9_-]{43}$/, 'opaque, no claims to read');
        const record = await ownToken(tokens.access_token);
        assert.equal(record?.aud, base);
        assert.equal(record?.scope, 'read:workforce read:pii');
        const key = await h.store.findTokenByHash(hashToken(h.tokens.staff));
        assert.equal(record?.accountId, key?.id);
        assert.ok(tokens.refresh_token, 'offline_access gives a refresh token');
        const viaOAuth = await get(h.app, '/api/v1/workers?limit=3', tokens.access_token);
        const viaKey = await get(h.app, '/api/v1/workers?limit=3', h.tokens.staff);
        assert.equal(viaOAuth.status, 200, viaOAuth.raw);
        assert.deepEqual(viaOAuth.body.data.items, viaKey.body.data.items);
      });
      it('gives no refresh token unless offline_access is asked for', async () => {
        const { tokens } = await signIn(base, staff(), { scope: 'read:workforce' });
        assert.equal(tokens.refresh_token, undefined);
      });
      it('grants only the scopes the key holds, and says so on the consent page', async () => {
        const narrow = await mint(['read:workforce']);
        const client = await registerClient(base);
        const seen: string[] = [];
        const person = personWith({ key: narrow });
        const { tokens } = await signIn(
          base,
          (page) => {
            seen.push(page.html);
            return person(page);
          },
          { client, scope: 'read:workforce read:financial read:pii' },
        );
        assert.equal((await ownToken(tokens.access_token))?.scope, 'read:workforce');
        const consent = seen.find((html) => html.includes('name="decision"')) ?? '';
        assert.match(
          consent,
          /<code>read:financial<\/code>, <code>read:pii<\/code>, which your access key does not hold/,
        );
        const invoices = await get(h.app, '/api/v1/invoices', tokens.access_token);
        assert.equal(invoices.status, 403);
      });
      it('sends the person back with access_denied (and iss) when they deny', async () => {
        const { callback } = await authorize(
          base,
          new TestBrowser(personWith({ key: h.tokens.staff }, 'deny')),
          { client: await registerClient(base) },
        );
        assert.equal(callback?.searchParams.get('error'), 'access_denied');
        assert.equal(callback?.searchParams.get('iss'), base);
      });
      it('keeps cursors across a refresh (the same grant)', async () => {
        const { tokens, client } = await signIn(base, staff());
        const first = await get(h.app, '/api/v1/workers?limit=2', tokens.access_token);
        const refreshed = await tokenRequest(base, {
          grant_type: 'refresh_token',
          refresh_token: tokens.refresh_token,
          client_id: client.client_id,
        });
        assert.equal(refreshed.status, 200, JSON.stringify(refreshed.body));
        assert.notEqual(refreshed.body.access_token, tokens.access_token);
        const next = await get(
          h.app,
          `/api/v1/workers?limit=2&cursor=${first.body.data.nextCursor}`,
          refreshed.body.access_token,
        );
        assert.equal(next.status, 200, next.raw);
        assert.equal(next.body.data.items.length, 2);
      });
    });

    describe('attacks', () => {
      it('refuses a request without PKCE, or with plain: a page for a new client, a redirect once it has a grant', async () => {
        const client = await registerClient(base);
        const cases = [
          { code_challenge: undefined, code_challenge_method: undefined },
          { code_challenge: 'a'.repeat(43), code_challenge_method: 'plain' },
        ];
        for (const params of cases) {
          const { callback, page } = await authorize(base, new TestBrowser(staff()), {
            client,
            params,
          });
          assert.equal(callback, null, 'no redirect for a client without a grant');
          assert.equal(page?.status, 400);
          assert.match(page?.html ?? '', /invalid_request/);
        }
        await signIn(base, staff(), { client });
        for (const params of cases) {
          const { callback } = await authorize(base, new TestBrowser(staff()), { client, params });
          assert.equal(callback?.searchParams.get('error'), 'invalid_request', String(callback));
          assert.equal(callback?.searchParams.get('iss'), base);
        }
      });
      it('refuses a redirect URI that is not registered, without redirecting there', async () => {
        const client = await registerClient(base);
        const { callback, page } = await authorize(base, new TestBrowser(staff()), {
          client,
          params: { redirect_uri: 'https://evil.example/steal' },
        });
        assert.equal(callback, null);
        assert.equal(page?.status, 400);
        assert.match(page?.html ?? '', /redirect_uri/);
      });
      it('refuses a code used twice', async () => {
        const { client, code, verifier } = await signIn(base, staff());
        const again = await tokenRequest(base, {
          grant_type: 'authorization_code',
          code,
          redirect_uri: client.redirect_uris[0],
          client_id: client.client_id,
          code_verifier: verifier,
        });
        assert.equal(again.status, 400);
        assert.equal(again.body.error, 'invalid_grant');
      });
      it('refuses a code with the wrong verifier', async () => {
        const client = await registerClient(base);
        const { callback } = await authorize(base, new TestBrowser(staff()), { client });
        const answer = await tokenRequest(base, {
          grant_type: 'authorization_code',
          code: callback?.searchParams.get('code') ?? '',
          redirect_uri: client.redirect_uris[0],
          client_id: client.client_id,
          code_verifier: 'x'.repeat(43),
        });
        assert.equal(answer.body.error, 'invalid_grant');
      });
      it('revokes the whole family when a refresh token is used twice', async () => {
        const { tokens, client } = await signIn(base, staff());
        const refresh = (token: string) => refreshRequest(base, client, token);
        const rotated = await refresh(tokens.refresh_token);
        assert.equal(rotated.status, 200);
        assert.notEqual(rotated.body.refresh_token, tokens.refresh_token);
        const replayed = await refresh(tokens.refresh_token);
        assert.equal(replayed.body.error, 'invalid_grant');
        const successor = await refresh(rotated.body.refresh_token);
        assert.equal(successor.body.error, 'invalid_grant', 'the rotated one is revoked too');
      });
      it('refuses a token for another resource', async () => {
        const client = await registerClient(base);
        const { page } = await authorize(base, new TestBrowser(staff()), {
          client,
          resource: 'https://evil.example/api',
        });
        assert.equal(page?.status, 400);
        assert.match(page?.html ?? '', /invalid_target/);
        await signIn(base, staff(), { client });
        const { callback } = await authorize(base, new TestBrowser(staff()), {
          client,
          resource: 'https://evil.example/api',
        });
        assert.equal(callback?.searchParams.get('error'), 'invalid_target');
      });
      it("shows a hostile app name as text, marked as the app's own", async () => {
        const name = '<script>alert(1)</script>\u202eNIAMOD-TSURT <img src=x onerror=alert(2)>';
        const client = await registerClient(base, { client_name: name });
        const pages: string[] = [];
        await authorize(
          base,
          new TestBrowser((page) => {
            pages.push(page.html);
            return staff()(page);
          }),
          { client },
        );
        assert.ok(pages.length >= 2);
        for (const html of pages) {
          assert.doesNotMatch(html, /<script|<img/i);
          assert.match(
            html,
            /class="third-party" title="A name the app chose for itself"><bdi>&lt;script&gt;/,
          );
        }
      });
    });

    describe('the access key behind a grant', () => {
      it('ends its grants when revoked: the access token is refused, the refresh token too', async () => {
        const key = await mint(['read:workforce']);
        const { tokens, client } = await signIn(base, personWith({ key }));
        assert.equal((await get(h.app, '/api/v1/workers', tokens.access_token)).status, 200);
        assert.ok(await h.store.revokeToken(hashToken(key), new Date().toISOString()));
        await new Promise((resolve) => setImmediate(resolve));
        const refused = await get(h.app, '/api/v1/workers', tokens.access_token);
        assert.equal(refused.status, 401);
        assert.match(String(refused.headers['www-authenticate']), /error="invalid_token"/);
        const refresh = await tokenRequest(base, {
          grant_type: 'refresh_token',
          refresh_token: tokens.refresh_token,
          client_id: client.client_id,
        });
        assert.equal(refresh.body.error, 'invalid_grant');
      });
    });
  });
}
