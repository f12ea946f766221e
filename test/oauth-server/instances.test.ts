/**
 * The built-in authorization server across instances and switched off (DESIGN §4.12): instances
 * over one database behind one URL issue and accept the same tokens (its keys are kept with the
 * data); VMS_READ_OAUTH_SERVER=off leaves no trace of it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { OWN_TOKEN_RECHECK_MS } from '../../src/auth/own-tokens.js';
import { createService } from '../../src/service.js';
import { freePort } from '../support/cli.js';
import { DIALECTS, get, startHarness, type Harness } from '../support/harness.js';
import { personWith } from '../support/oauth-browser.js';
import { revokeRequest, signIn } from '../support/oauth-flow.js';

for (const dialect of DIALECTS) {
  describe(`two instances behind one URL, over one database (${dialect})`, () => {
    let h: Harness;
    let other: FastifyInstance;
    let base = '';
    let otherBase = '';
    before(async () => {
      const port = await freePort();
      base = `http://127.0.0.1:${port}`;
      const origins = { publicUrl: base, allowedOrigins: [] };
      h = await startHarness({ dialect, oauthServer: true, origins });
      await h.app.listen({ host: '127.0.0.1', port });
      ({ app: other } = await createService({
        store: h.store,
        secret: 'test-secret',
        quotaPerMinute: 0,
        oauthServer: true,
        origins,
      }));
      otherBase = await other.listen({ host: '127.0.0.1', port: 0 });
    });
    after(async () => {
      await other.close();
      await h.close();
    });

    it('publish the same keys', async () => {
      const jwks = async (at: string) => (await fetch(`${at}/oauth/jwks`)).json();
      assert.deepEqual(await jwks(otherBase), await jwks(base));
    });
    it('refuse a token one of them revoked: that one at once, the other within a second', async () => {
      const { tokens, client } = await signIn(base, personWith({ key: h.tokens.staff }));
      const status = async (at: string) =>
        (
          await fetch(`${at}/api/v1/workers?limit=1`, {
            headers: { authorization: `Bearer ${tokens.access_token}` },
          })
        ).status;
      assert.equal(await status(base), 200);
      assert.equal(await status(otherBase), 200, 'the other instance keeps it now');
      assert.equal(await revokeRequest(base, tokens.access_token, client.client_id), 200);
      assert.equal(await status(base), 401);
      await new Promise((resolve) => setTimeout(resolve, OWN_TOKEN_RECHECK_MS + 50));
      assert.equal(await status(otherBase), 401);
    });
    it("accept each other's tokens", async () => {
      const { tokens } = await signIn(base, personWith({ key: h.tokens.staff }));
      const answer = await fetch(`${otherBase}/api/v1/workers?limit=1`, {
        headers: { authorization: `Bearer ${tokens.access_token}` },
      });
      assert.equal(answer.status, 200, await answer.text());
    });
  });
}

describe('VMS_READ_OAUTH_SERVER=off', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ oauthServer: false });
  });
  after(() => h.close());

  it('serves no authorization server and names none', async () => {
    for (const path of [
      '/oauth/authorize',
      '/oauth/jwks',
      '/.well-known/oauth-authorization-server',
      '/.well-known/openid-configuration',
    ]) {
      const answer = await get(h.app, path);
      assert.equal(answer.status, 404, path);
      assert.equal(answer.body.error.code, 'not_found', path);
    }
    const metadata = await get(h.app, '/.well-known/oauth-protected-resource');
    assert.equal(metadata.body.authorization_servers, undefined);
    const signIn = await get(h.app, '/app/sign-in.json');
    assert.equal(signIn.body.issuer, null);
  });
});
