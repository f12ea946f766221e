/**
 * Revocation is immediate (DESIGN §4.16): an access token of the built-in server revoked by RFC
 * 7009, or whose grant ended (its refresh token revoked, a refresh token or code replayed, the
 * person signed out), gets 401 at its next request; Sign out ends the server's own session in
 * that browser, so the next sign-in asks for a key again. Both stores.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { WEB_CLIENT_ID } from '../../src/oauth-server/authorization-server.js';
import { DIALECTS, get, startHarness, type Harness } from '../support/harness.js';
import { personWith, TestBrowser, type PageAnswer } from '../support/oauth-browser.js';
import {
  authorize,
  refreshRequest,
  revokeRequest,
  signIn,
  tokenRequest,
} from '../support/oauth-flow.js';

/** A person at the sign-out page who presses Sign out (what its script does). */
const pressSignOut: PageAnswer = ({ url, status, html }) => {
  if (status !== 200) return null;
  const action = /<form id="op.logoutForm" method="post" action="([^"]+)">/.exec(html)?.[1];
  const xsrf = /name="xsrf" value="([^"]+)"/.exec(html)?.[1];
  if (!action || !xsrf) return null;
  return { action: new URL(action, url), fields: { xsrf, logout: 'yes' } };
};

for (const dialect of DIALECTS)
  describe(`revocation is immediate (${dialect})`, () => {
    let h: Harness;
    let base = '';
    before(async () => {
      h = await startHarness({ dialect, oauthServer: true });
      base = await h.app.listen({ host: '127.0.0.1', port: 0 });
    });
    after(() => h.close());
    const staff = () => personWith({ key: h.tokens.staff });
    const status = async (token: string) =>
      (await get(h.app, '/api/v1/workers?limit=1', token)).status;

    it('revokes an access token itself (RFC 7009): 401 at its next request', async () => {
      const { tokens, client } = await signIn(base, staff());
      assert.equal(await status(tokens.access_token), 200);
      assert.equal(await revokeRequest(base, tokens.access_token, client.client_id), 200);
      assert.equal(await status(tokens.access_token), 401);
    });

    it('ends the grant when its refresh token is revoked: its access tokens get 401', async () => {
      const { tokens, client } = await signIn(base, staff());
      assert.equal(await status(tokens.access_token), 200);
      assert.equal(await revokeRequest(base, tokens.refresh_token, client.client_id), 200);
      assert.equal(await status(tokens.access_token), 401);
    });

    it('ends the grant when a refresh token is replayed: every access token of it gets 401', async () => {
      const { tokens, client } = await signIn(base, staff());
      const refresh = (token: string) => refreshRequest(base, client, token);
      const rotated = await refresh(tokens.refresh_token);
      assert.equal(rotated.status, 200);
      assert.equal(await status(rotated.body.access_token), 200);
      assert.equal((await refresh(tokens.refresh_token)).body.error, 'invalid_grant');
      assert.equal(await status(rotated.body.access_token), 401);
      assert.equal(await status(tokens.access_token), 401);
    });

    it('ends the grant when a code is replayed', async () => {
      const { tokens, client, code, verifier } = await signIn(base, staff());
      assert.equal(await status(tokens.access_token), 200);
      const again = await tokenRequest(base, {
        grant_type: 'authorization_code',
        code,
        redirect_uri: client.redirect_uris[0],
        client_id: client.client_id,
        code_verifier: verifier,
      });
      assert.equal(again.body.error, 'invalid_grant');
      assert.equal(await status(tokens.access_token), 401);
    });

    it('ends the session on Sign out: the next sign-in asks for a key, the grant is over', async () => {
      const pages: string[] = [];
      const browser = new TestBrowser((page) => {
        pages.push(page.html);
        return staff()(page) ?? pressSignOut(page);
      });
      const web = { client_id: WEB_CLIENT_ID, redirect_uris: [`${base}/app`] };
      const { callback, verifier } = await authorize(base, browser, {
        client: web,
        scope: 'read:workforce',
      });
      const exchanged = await tokenRequest(base, {
        grant_type: 'authorization_code',
        code: callback?.searchParams.get('code') ?? '',
        redirect_uri: `${base}/app`,
        client_id: WEB_CLIENT_ID,
        code_verifier: verifier,
      });
      assert.equal(exchanged.status, 200);
      assert.equal(await status(exchanged.body.access_token), 200);
      // Signed in: a second request goes through without the sign-in page.
      pages.length = 0;
      await authorize(base, browser, { client: web, scope: 'read:workforce' });
      assert.ok(!pages.some((html) => html.includes('name="key"')), 'the session signs in');

      const end = new URL(`${base}/oauth/end-session`);
      end.searchParams.set('client_id', WEB_CLIENT_ID);
      end.searchParams.set('post_logout_redirect_uri', `${base}/app`);
      end.searchParams.set('state', 'signed-out');
      pages.length = 0;
      const out = await browser.browse(end, `${base}/app`);
      assert.equal(out.callback?.searchParams.get('state'), 'signed-out', out.page?.html);
      assert.match(
        pages[0] ?? '',
        /<h1>Signing out of <span class="product">vms-read<\/span><\/h1>/,
      );
      assert.match(pages[0] ?? '', /<script src="\/oauth\/sign-out\.js"><\/script>/);
      assert.equal(await status(exchanged.body.access_token), 401, 'the grant ended');
      // The next sign-in in this browser asks for the key again.
      pages.length = 0;
      const { page } = await authorize(
        base,
        browser.answering(() => null),
        {
          client: web,
          scope: 'read:workforce',
        },
      );
      assert.equal(page?.status, 200);
      assert.match(page?.html ?? '', /name="key"/);
    });

    it('says so when no page asked to be sent back, with a way to sign in again', async () => {
      const browser = new TestBrowser((page) => staff()(page) ?? pressSignOut(page));
      const web = { client_id: WEB_CLIENT_ID, redirect_uris: [`${base}/app`] };
      await authorize(base, browser, { client: web, scope: 'read:workforce' });
      const end = new URL(`${base}/oauth/end-session`);
      end.searchParams.set('client_id', WEB_CLIENT_ID);
      const out = await browser.browse(end, `${base}/app`);
      assert.equal(out.page?.status, 200);
      assert.match(out.page?.html ?? '', /<h1>You are signed out<\/h1>/);
      assert.match(out.page?.html ?? '', /<a href="\/app">Sign in again<\/a>/);
    });

    it('serves the sign-out script under a policy that allows it alone', async () => {
      const script = await fetch(`${base}/oauth/sign-out.js`);
      assert.equal(script.status, 200);
      assert.match(script.headers.get('content-type') ?? '', /javascript/);
      const page = await fetch(`${base}/oauth/end-session?client_id=${WEB_CLIENT_ID}`, {
        redirect: 'manual',
      });
      // Nobody signed in: the library signs out at once, no page to show.
      assert.ok([200, 303].includes(page.status), String(page.status));
    });
  });
