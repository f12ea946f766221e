import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { InvalidAccessTokenError, AccessTokenVerifier } from '../../src/auth/access-tokens.js';
import { KEY_MAX_AGE_MS, KEY_REFETCH_INTERVAL_MS } from '../../src/auth/issuer-keys.js';
import { freePort } from '../support/cli.js';
import { TestIdentityProvider } from '../support/identity-provider.js';

const RESOURCE = 'https://vms.example.com';
const HOUR = 3600;

/**
 * DESIGN §4.12: the issuer's key set is fetched from its discovery document, kept, and fetched
 * again only for a key it lacks (a rotation) or after a failure, at most once a minute, whatever
 * arrives meanwhile; never on the hot path. The verifier's clock is the test's.
 */
describe("an issuer's signing keys", () => {
  let idp: TestIdentityProvider;
  let clock = Date.now();
  let verifier: AccessTokenVerifier;
  const token = (extra: Record<string, unknown> = {}, header = {}) =>
    idp.sign(
      {
        sub: 'person-1',
        aud: RESOURCE,
        iat: Math.floor(clock / 1000),
        exp: Math.floor(clock / 1000) + 24 * HOUR,
        ...extra,
      },
      header,
    );
  const refused = (promise: Promise<unknown>) =>
    assert.rejects(promise, (error: unknown) => error instanceof InvalidAccessTokenError);

  before(async () => {
    idp = await TestIdentityProvider.start({ resources: () => [RESOURCE], claims: () => ({}) });
    verifier = new AccessTokenVerifier([idp.entry], () => [RESOURCE], { now: () => clock });
  });
  after(() => idp.close());

  it('are fetched once, through discovery, at the first token', async () => {
    assert.equal((await verifier.verify(await token())).claims.sub, 'person-1');
    assert.equal(idp.jwksFetches, 1);
    assert.equal(idp.discoveryFetches, 1);
    for (let i = 0; i < 20; i++) await verifier.verify(await token({ jti: `n${i}` }));
    assert.equal(idp.jwksFetches, 1);
  });

  it('are fetched again for a rotated key, but not within a minute of the last fetch', async () => {
    await idp.rotateKey();
    const rotated = await token({ jti: 'rotated' });
    clock += 10_000;
    await refused(verifier.verify(rotated));
    assert.equal(idp.jwksFetches, 1, 'no fetch within the minute');
    clock += KEY_REFETCH_INTERVAL_MS;
    assert.equal((await verifier.verify(rotated)).claims.jti, 'rotated');
    assert.equal(idp.jwksFetches, 2);
    assert.equal(idp.discoveryFetches, 1, 'discovery is not read again');
  });

  it('are fetched at most once a minute for a flood of unknown kids', async () => {
    const flood = await Promise.all(
      Array.from({ length: 100 }, (_, i) => token({ jti: `f${i}` }, { kid: `unknown-${i}` })),
    );
    clock += KEY_REFETCH_INTERVAL_MS;
    const before = idp.jwksFetches;
    await Promise.all(flood.map((t) => refused(verifier.verify(t))));
    for (const t of flood) await refused(verifier.verify(t));
    assert.equal(idp.jwksFetches - before, 1);
  });

  it('are refreshed behind a verification once older than their maximum age, never waited on', async () => {
    clock += KEY_MAX_AGE_MS + 1;
    const before = idp.jwksFetches;
    assert.equal((await verifier.verify(await token({ jti: 'old-set' }))).claims.jti, 'old-set');
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(idp.jwksFetches - before, 1);
  });

  it('refuses tokens while the issuer cannot be reached, trying again at most once a minute', async () => {
    const port = await freePort();
    const issuer = `http://127.0.0.1:${port}`;
    let now = Date.now();
    const unreachable = new AccessTokenVerifier([{ ...idp.entry, issuer }], () => [RESOURCE], {
      now: () => now,
    });
    const foreign = await token({ iss: issuer });
    const keys = unreachable.keysOf(issuer);
    await refused(unreachable.verify(foreign));
    const attempts = keys?.fetches ?? 0;
    assert.ok(attempts >= 1);
    for (let i = 0; i < 20; i++) await refused(unreachable.verify(foreign));
    assert.equal(keys?.fetches, attempts, 'no attempt within the minute');
    now += KEY_REFETCH_INTERVAL_MS;
    await refused(unreachable.verify(foreign));
    assert.ok((keys?.fetches ?? 0) > attempts);
  });
});
