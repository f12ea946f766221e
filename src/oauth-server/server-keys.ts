import { randomBytes } from 'node:crypto';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import type { AdminWrites } from '../store/store.js';

/** The algorithm of the built-in server's access tokens (DESIGN §4.12 accepts it). */
export const SIGNING_ALGORITHM = 'ES256';

/** The server's keys: the private signing key set, and the keys its cookies are signed with. */
export interface ServerKeys {
  signing: { keys: JWK[] };
  cookies: string[];
}

const SIGNING_META = 'oauth_signing_jwks';
const COOKIE_META = 'oauth_cookie_keys';

/**
 * The built-in authorization server's keys, made once and kept with the data (the `meta` table,
 * like the cursor secret): every instance of a deployment over one database signs and accepts
 * the same tokens and reads the same cookies. Instances starting together each make a set; the
 * first written wins and every instance uses it.
 */
export async function serverKeys(store: Pick<AdminWrites, 'setMetaOnce'>): Promise<ServerKeys> {
  const { privateKey } = await generateKeyPair(SIGNING_ALGORITHM, { extractable: true });
  const made = {
    keys: [
      {
        ...(await exportJWK(privateKey)),
        kid: randomBytes(8).toString('base64url'),
        alg: SIGNING_ALGORITHM,
        use: 'sig',
      },
    ],
  };
  const signing = JSON.parse(await store.setMetaOnce(SIGNING_META, JSON.stringify(made))) as {
    keys: JWK[];
  };
  const cookies = JSON.parse(
    await store.setMetaOnce(COOKIE_META, JSON.stringify([randomBytes(32).toString('base64url')])),
  ) as string[];
  return { signing, cookies };
}

/** The members of a public JWK (RFC 7517, 7518): everything else (d, p, q…) is private. */
const PUBLIC_MEMBERS = ['kty', 'crv', 'x', 'y', 'n', 'e', 'kid', 'alg', 'use'] as const;

/** The public half of a private key set, as the server publishes it and checks tokens with. */
export function publicKeySet(signing: { keys: JWK[] }): { keys: JWK[] } {
  return {
    keys: signing.keys.map((key) =>
      Object.fromEntries(
        PUBLIC_MEMBERS.filter((member) => key[member] !== undefined).map((m) => [m, key[m]]),
      ),
    ),
  };
}
