import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { base64url, SignJWT, generateKeyPair } from 'jose';
import { assertError } from '../support/assertions.js';
import { DIALECTS, get, startHarness, WS, type Answer, type Harness } from '../support/harness.js';
import { TestIdentityProvider, type ScriptClient } from '../support/identity-provider.js';

/** The harness serves by inject, not listening: its resource identifier is http://localhost. */
const RESOURCE = 'http://localhost';
const SCRIPT: ScriptClient = {
  clientId: 'payroll-script',
  secret: 'a-long-enough-client-secret-0001',
};

/** DESIGN §4.12: a refused token is 401 with `error="invalid_token"` and the resource metadata. */
function assertInvalidToken(answer: Answer) {
  assertError(answer, 401, 'unauthorized');
  const challenge = String(answer.headers['www-authenticate']);
  assert.match(challenge, /^Bearer realm="vms-read", error="invalid_token", /);
  assert.match(
    challenge,
    /resource_metadata="http:\/\/localhost\/\.well-known\/oauth-protected-resource"/,
  );
  assert.match(challenge, /scope="read:workforce"$/);
}

for (const dialect of DIALECTS) {
  describe(`OAuth access tokens from an external issuer (${dialect})`, () => {
    let h: Harness;
    let idp: TestIdentityProvider;
    /** Claims by subject: what the identity provider puts in each token it issues. */
    const claims = new Map<string, Record<string, unknown>>();
    const workers = (token: string) => get(h.app, '/api/v1/workers?limit=2', token);
    /** A token signed by the provider's own key for a staff person, shaped by `extra`. */
    const signed = (extra: Record<string, unknown> = {}, header = {}) =>
      idp.sign(
        {
          sub: 'person-1',
          aud: RESOURCE,
          scope: 'read:workforce read:program',
          client_id: 'hr-portal',
          vms_workspace: WS,
          vms_role: 'staff',
          ...extra,
        },
        header,
      );

    before(async () => {
      idp = await TestIdentityProvider.start({
        resources: () => [RESOURCE, `${RESOURCE}/mcp`],
        claims: (subject) => claims.get(subject) ?? {},
        scripts: [SCRIPT],
      });
      claims.set(SCRIPT.clientId, { vms_workspace: WS, vms_role: 'staff' });
      h = await startHarness({
        dialect,
        oauthIssuers: [idp.entry],
      });
    });
    after(async () => {
      await h.close();
      await idp.close();
    });

    describe('accepted', () => {
      it('reads a list with a token the provider issued by client credentials', async () => {
        const token = await idp.clientCredentials(SCRIPT, {
          scope: 'read:workforce',
          resource: RESOURCE,
        });
        const answer = await workers(token);
        assert.equal(answer.status, 200, answer.raw);
        assert.equal(answer.body.data.items.length, 2);
      });
      it('accepts the MCP endpoint as audience too, and typ JWT, application/at+jwt or none', async () => {
        for (const token of [
          await signed({ aud: `${RESOURCE}/mcp` }),
          await signed({}, { typ: 'JWT' }),
          await signed({}, { typ: 'application/at+jwt' }),
          await signed({}, { typ: undefined }),
          await signed({ aud: ['https://other.example', RESOURCE] }),
        ])
          assert.equal((await workers(token)).status, 200);
      });
      it('allows 60 seconds of clock skew on exp, nbf and iat', async () => {
        const now = Math.floor(Date.now() / 1000);
        for (const token of [
          await signed({ exp: now - 30 }),
          await signed({ nbf: now + 30 }),
          await signed({ iat: now + 30 }),
        ])
          assert.equal((await workers(token)).status, 200);
      });
      it('reads scopes from scp as a string or an array', async () => {
        for (const scp of ['read:workforce', ['read:workforce', 'read:pii']]) {
          const answer = await workers(await signed({ scope: undefined, scp }));
          assert.equal(answer.status, 200, answer.raw);
        }
      });
    });

    describe('refused, each with the invalid_token challenge', () => {
      it('a token with alg none', async () => {
        const header = base64url.encode(JSON.stringify({ alg: 'none', typ: 'at+jwt' }));
        const good = await signed();
        const payload = good.split('.')[1];
        for (const token of [`${header}.${payload}.`, `${header}.${payload}.${good.split('.')[2]}`])
          assertInvalidToken(await workers(token));
      });
      it('a token signed with HS256 using the public key as the secret', async () => {
        const jwk = (await idp.publicJwks()).keys[0];
        for (const secret of [
          new TextEncoder().encode(JSON.stringify(jwk)),
          new TextEncoder().encode(String(jwk.x)),
        ]) {
          const now = Math.floor(Date.now() / 1000);
          const token = await new SignJWT({
            iss: idp.issuer,
            sub: 'person-1',
            aud: RESOURCE,
            exp: now + 600,
            scope: 'read:workforce',
            vms_workspace: WS,
            vms_role: 'staff',
          })
            .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', kid: String(jwk.kid) })
            .sign(secret);
          assertInvalidToken(await workers(token));
        }
      });
      it('a token whose iss is not a configured issuer', async () => {
        assertInvalidToken(await workers(await signed({ iss: 'https://evil.example' })));
        assertInvalidToken(await workers(await signed({ iss: `${idp.issuer}/` })));
      });
      it('a token whose aud is another resource, or missing', async () => {
        assertInvalidToken(await workers(await signed({ aud: 'https://other.example' })));
        assertInvalidToken(await workers(await signed({ aud: `${RESOURCE}/api` })));
        assertInvalidToken(await workers(await signed({ aud: undefined })));
      });
      it('an expired token, and one without exp', async () => {
        const now = Math.floor(Date.now() / 1000);
        assertInvalidToken(await workers(await signed({ exp: now - 120 })));
        assertInvalidToken(await workers(await signed({ exp: undefined })));
      });
      it('a token not yet valid (nbf or iat in the future beyond the skew)', async () => {
        const now = Math.floor(Date.now() / 1000);
        assertInvalidToken(await workers(await signed({ nbf: now + 120 })));
        assertInvalidToken(await workers(await signed({ iat: now + 120 })));
      });
      it('a token with a typ that is not an access token', async () => {
        for (const typ of ['dpop+jwt', 'logout+jwt', 'secevent+jwt', 'at+jwt+x'])
          assertInvalidToken(await workers(await signed({}, { typ })));
      });
      it('a token without a subject', async () => {
        assertInvalidToken(await workers(await signed({ sub: undefined })));
      });
      it('a token with a tampered signature or payload', async () => {
        const token = await signed();
        const [head, payload, signature] = token.split('.');
        const flipped = signature[5] === 'A' ? 'B' : 'A';
        const badSignature = `${head}.${payload}.${signature.slice(0, 5)}${flipped}${signature.slice(6)}`;
        assertInvalidToken(await workers(badSignature));
        const claimsJson = JSON.parse(Buffer.from(payload, 'base64url').toString());
        const escalated = base64url.encode(
          JSON.stringify({ ...claimsJson, scope: 'read:workforce read:pii read:financial' }),
        );
        assertInvalidToken(await workers(`${head}.${escalated}.${signature}`));
      });
      it('a token signed by another key under a kid the issuer does not have', async () => {
        const { privateKey } = await generateKeyPair('ES256');
        const now = Math.floor(Date.now() / 1000);
        const forged = await new SignJWT({
          iss: idp.issuer,
          sub: 'person-1',
          aud: RESOURCE,
          exp: now + 600,
          scope: 'read:workforce',
          vms_workspace: WS,
          vms_role: 'staff',
        })
          .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: 'unknown-kid' })
          .sign(privateKey);
        assertInvalidToken(await workers(forged));
      });
      it("a token signed by another key under the issuer's own kid", async () => {
        const { privateKey } = await generateKeyPair('ES256');
        const jwk = (await idp.publicJwks()).keys[0];
        const token = await signed();
        const now = Math.floor(Date.now() / 1000);
        const forged = await new SignJWT({
          ...JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()),
          exp: now + 600,
        })
          .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: String(jwk.kid) })
          .sign(privateKey);
        assertInvalidToken(await workers(forged));
      });
      it('a token in the query string (never read there)', async () => {
        const token = await signed();
        const answer = await get(h.app, `/api/v1/workers?access_token=${token}`);
        assertError(answer, 401, 'unauthorized');
        assert.doesNotMatch(String(answer.headers['www-authenticate']), /error=/);
      });
      it('a token whose workspace, worker or supplier does not exist', async () => {
        assertInvalidToken(await workers(await signed({ vms_workspace: 'ws_nowhere' })));
        assertInvalidToken(await workers(await signed({ vms_workspace: undefined })));
        assertInvalidToken(
          await workers(await signed({ vms_role: 'worker', vms_worker: 'wkr_nobody' })),
        );
        assertInvalidToken(await workers(await signed({ vms_role: 'worker' })));
        assertInvalidToken(
          await workers(await signed({ vms_role: 'billing_entity', vms_supplier: 'sup_nobody' })),
        );
        assertInvalidToken(await workers(await signed({ vms_role: 'admin' })));
      });
      it('a token whose worker belongs to another workspace', async () => {
        const other = await h.one<{ id: string }>(
          'SELECT id FROM workers WHERE workspace_id <> ? ORDER BY id LIMIT 1',
          WS,
        );
        assertInvalidToken(
          await workers(await signed({ vms_role: 'worker', vms_worker: other.id })),
        );
      });
    });

    describe("the issuer's key set", () => {
      it('is not fetched again for tokens already seen, nor for new tokens of known keys', async () => {
        const token = await signed();
        assert.equal((await workers(token)).status, 200);
        const fetches = idp.jwksFetches;
        for (let i = 0; i < 50; i++) assert.equal((await workers(token)).status, 200);
        for (let i = 0; i < 10; i++)
          assert.equal((await workers(await signed({ jti: `t${i}` }))).status, 200);
        assert.equal(idp.jwksFetches, fetches);
      });
      it('is fetched at most once for a flood of unknown kids', async () => {
        const token = await signed();
        assert.equal((await workers(token)).status, 200);
        const fetches = idp.jwksFetches;
        const [head, payload, signature] = token.split('.');
        const decoded = JSON.parse(Buffer.from(head, 'base64url').toString());
        const flood = Array.from({ length: 200 }, (_, i) => {
          const h2 = base64url.encode(JSON.stringify({ ...decoded, kid: `flood-${i}` }));
          return `${h2}.${payload}.${signature}`;
        });
        const answers = await Promise.all(flood.map((t) => workers(t)));
        for (const answer of answers) assertInvalidToken(answer);
        assert.ok(idp.jwksFetches - fetches <= 1, `${idp.jwksFetches - fetches} fetches`);
      });
    });

    describe('hostile tokens (fuzzed)', () => {
      it('answers any JWT-shaped token it cannot verify 401 with the challenge, never another status', async () => {
        const good = await signed();
        const [, , signature] = good.split('.');
        const segment = (json: fc.Arbitrary<unknown>) =>
          json.map((value) => base64url.encode(JSON.stringify(value)));
        const header = fc.oneof(
          fc.record(
            {
              alg: fc.constantFrom('none', 'HS256', 'ES256', 'RS256', 'EdDSA', 'ES512', ''),
              kid: fc.oneof(fc.string(), fc.constant('test-key-1')),
              typ: fc.oneof(fc.string(), fc.constant('at+jwt')),
              crit: fc.array(fc.string()),
              jku: fc.webUrl(),
              x5u: fc.webUrl(),
            },
            { requiredKeys: [] },
          ),
          fc.jsonValue(),
        );
        const payload = fc.oneof(
          fc.record(
            {
              iss: fc.oneof(fc.constant(idp.issuer), fc.string(), fc.integer()),
              aud: fc.oneof(fc.constant(RESOURCE), fc.array(fc.string())),
              exp: fc.oneof(fc.integer(), fc.double(), fc.string()),
              sub: fc.oneof(fc.string(), fc.constant(null)),
              scope: fc.oneof(fc.string(), fc.array(fc.string())),
              vms_workspace: fc.oneof(fc.constant(WS), fc.string()),
              vms_role: fc.constantFrom('staff', 'worker', 'billing_entity', 'root'),
            },
            { requiredKeys: [] },
          ),
          fc.jsonValue(),
        );
        const token = fc.oneof(
          fc.tuple(segment(header), segment(payload), fc.constantFrom(signature, '', 'AAAA')),
          fc.tuple(fc.base64String(), fc.base64String(), fc.base64String()),
        );
        await fc.assert(
          fc.asyncProperty(token, async (parts) => {
            const answer = await workers(parts.join('.'));
            assertInvalidToken(answer);
          }),
          { numRuns: 150, seed: 31 },
        );
      });
    });

    describe('discovery and challenges', () => {
      it('names the issuer in the protected resource metadata, for the API and /mcp', async () => {
        for (const [path, resource] of [
          ['/.well-known/oauth-protected-resource', RESOURCE],
          ['/.well-known/oauth-protected-resource/mcp', `${RESOURCE}/mcp`],
        ]) {
          const answer = await get(h.app, path);
          assert.equal(answer.status, 200);
          assert.equal(answer.body.resource, resource);
          assert.deepEqual(answer.body.authorization_servers, [idp.issuer]);
          assert.deepEqual(answer.body.bearer_methods_supported, ['header']);
          assert.deepEqual(answer.body.scopes_supported, [
            'read:program',
            'read:financial',
            'read:workforce',
            'read:pii',
          ]);
        }
      });
      it('answers a request without a token with the challenge and no error code', async () => {
        const answer = await get(h.app, '/api/v1/invoices');
        assertError(answer, 401, 'unauthorized');
        assert.equal(
          answer.headers['www-authenticate'],
          'Bearer realm="vms-read", resource_metadata="http://localhost/.well-known/oauth-protected-resource", scope="read:financial"',
        );
      });
      it('answers a missing scope with a step-up challenge: the scopes held plus the one needed', async () => {
        const answer = await get(
          h.app,
          '/api/v1/invoices',
          await signed({ scope: 'read:workforce read:program' }),
        );
        assertError(answer, 403, 'insufficient_scope');
        assert.equal(
          answer.headers['www-authenticate'],
          'Bearer error="insufficient_scope", scope="read:workforce read:program read:financial", resource_metadata="http://localhost/.well-known/oauth-protected-resource"',
        );
      });
      it('keeps only the four scopes of SPEC from a token', async () => {
        const answer = await get(
          h.app,
          '/api/v1/invoices',
          await signed({ scope: 'read:workforce admin read:financialx openid' }),
        );
        assertError(answer, 403, 'insufficient_scope');
        assert.match(
          String(answer.headers['www-authenticate']),
          /scope="read:workforce read:financial"/,
        );
      });
    });
  });
}
