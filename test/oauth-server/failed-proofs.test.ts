/**
 * The built-in authorization server counts failed authentications as the API does (issue 35,
 * item 3; src/auth/failed-attempts.ts): a wrong code or refresh token at the token endpoint, and
 * a wrong key on the sign-in page, count against the address; past the allowed number the token
 * endpoint answers 429 in OAuth's error shape with Retry-After, before the provider reads the
 * request, and the API refuses that address's unknown tokens too; another address is never slowed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FAILURES_ALLOWED } from '../../src/auth/failed-attempts.js';
import { DIALECTS, startHarness, type Harness } from '../support/harness.js';
import { personWith, TestBrowser } from '../support/oauth-browser.js';
import { authorize, registerClient, tokenRequest } from '../support/oauth-flow.js';

for (const dialect of DIALECTS) {
  describe(`failed proofs at the built-in server (${dialect})`, () => {
    let h: Harness;
    let base = '';
    before(async () => {
      h = await startHarness({
        dialect,
        oauthServer: true,
        authFailuresPerMinute: FAILURES_ALLOWED,
      });
      base = await h.app.listen({ host: '127.0.0.1', port: 0 });
    });
    after(() => h.close());

    it('answers 429 with Retry-After after the allowed wrong keys, codes and refresh tokens, never slowing another address', async () => {
      const client = await registerClient(base);
      // One wrong key on the sign-in page: it counts.
      const wrongKey = personWith({ key: `vmsr_${'w'.repeat(43)}` });
      const { page } = await authorize(base, new TestBrowser(wrongKey), { client });
      assert.equal(page?.status, 401);
      const wrong = (i: number) =>
        tokenRequest(
          base,
          i % 2 === 0
            ? {
                grant_type: 'authorization_code',
                code: `no-such-code-${i}`,
                redirect_uri: client.redirect_uris[0],
                client_id: client.client_id,
                code_verifier: 'x'.repeat(43),
              }
            : {
                grant_type: 'refresh_token',
                refresh_token: `no-such-refresh-token-${i}`,
                client_id: client.client_id,
              },
        );
      for (let i = 1; i < FAILURES_ALLOWED; i++) {
        const answer = await wrong(i);
        assert.equal(answer.status, 400, JSON.stringify(answer.body));
        assert.equal(answer.body.error, 'invalid_grant');
      }
      const blocked = await fetch(`${base}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'another' }),
      });
      assert.equal(blocked.status, 429);
      assert.ok(Number(blocked.headers.get('retry-after')) >= 1);
      assert.equal(blocked.headers.get('connection'), 'close');
      const body = (await blocked.json()) as { error: string; error_description: string };
      assert.equal(body.error, 'temporarily_unavailable');
      assert.match(body.error_description, /failed authentications/);
      // The count is the API's: an unknown token from this address is refused before its check.
      const api = await h.app.inject({
        url: '/api/v1/workers?limit=1',
        remoteAddress: '127.0.0.1',
        headers: { authorization: `Bearer vmsr_${'z'.repeat(43)}` },
      });
      assert.equal(api.statusCode, 429, api.body);
      // Another address is never slowed, on the API or at the token endpoint.
      const other = await h.app.inject({
        url: '/api/v1/workers?limit=1',
        remoteAddress: '198.51.100.9',
        headers: { authorization: `Bearer ${h.tokens.staff}` },
      });
      assert.equal(other.statusCode, 200);
      const elsewhere = await h.app.inject({
        method: 'POST',
        url: '/oauth/token',
        remoteAddress: '198.51.100.9',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: 'x',
          client_id: client.client_id,
        }).toString(),
      });
      assert.equal(elsewhere.statusCode, 400, elsewhere.body);
    });
  });
}
